#include "text_escape.hpp"

#include <fmt/format.h>

namespace gpuconform {

namespace {

// The length in bytes of a UTF-8 sequence that is a bidirectional override or isolate
// (U+202A-202E, U+2066-2069) or a C1 control (U+0080-009F) starting at s[i]; 0 otherwise.
std::size_t unsafe_sequence(std::string_view s, std::size_t i) {
    const auto at = [&](std::size_t k) { return i + k < s.size() ? static_cast<unsigned char>(s[i + k]) : 0u; };
    if (at(0) == 0xE2 && at(1) == 0x80 && at(2) >= 0xAA && at(2) <= 0xAE) {
        return 3;
    }
    if (at(0) == 0xE2 && at(1) == 0x81 && at(2) >= 0xA6 && at(2) <= 0xA9) {
        return 3;
    }
    if (at(0) == 0xC2 && at(1) >= 0x80 && at(1) <= 0x9F) {
        return 2;
    }
    return 0;
}

}  // namespace

std::string bounded(std::string_view s, std::size_t max_bytes) {
    if (s.size() <= max_bytes) {
        return std::string(s);
    }
    std::size_t cut = max_bytes;
    while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) {
        --cut;  // never split a UTF-8 sequence
    }
    return fmt::format("{}… ({} bytes more)", s.substr(0, cut), s.size() - cut);
}

std::string strip_unsafe(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (std::size_t i = 0; i < s.size(); ++i) {
        const auto u = static_cast<unsigned char>(s[i]);
        if (const std::size_t n = unsafe_sequence(s, i); n > 0) {
            out += "\\u";  // shown, never obeyed: a bidi override reorders the text around it
            out += n == 3 ? fmt::format("{:04x}", ((u & 0x0F) << 12) | ((s[i + 1] & 0x3F) << 6) | (s[i + 2] & 0x3F))
                          : fmt::format("{:04x}", ((u & 0x1F) << 6) | (s[i + 1] & 0x3F));
            i += n - 1;
        } else if (u < 0x20 || u == 0x7f) {
            out += fmt::format("\\x{:02x}", u);
        } else {
            out += s[i];
        }
    }
    return out;
}

std::string xml_escape(std::string_view s) {
    std::string out;
    out.reserve(s.size() + 16);
    for (const char c : s) {
        const auto u = static_cast<unsigned char>(c);
        switch (c) {
            case '&':
                out += "&amp;";
                break;
            case '<':
                out += "&lt;";
                break;
            case '>':
                out += "&gt;";
                break;
            case '"':
                out += "&quot;";
                break;
            case '\'':
                out += "&#39;";
                break;
            case '\t':
                out += "&#9;";
                break;
            case '\n':
                out += "&#10;";
                break;
            case '\r':
                out += "&#13;";
                break;
            default:
                if (u < 0x20 || u == 0x7f) {
                    out += "\xEF\xBF\xBD";  // not representable in XML 1.0, even as a reference
                } else {
                    out += c;
                }
        }
    }
    return out;
}

std::string csv_field(std::string_view raw) {
    // A cell starting with = + - @ tab or CR is run as a formula by spreadsheets (OWASP "CSV
    // Injection"): a leading apostrophe makes it text.
    std::string text = bounded(raw, k_max_view_bytes);
    if (!text.empty() && std::string_view("=+-@\t\r").find(text[0]) != std::string_view::npos) {
        text.insert(0, 1, '\'');
    }
    const std::string_view s = text;
    if (s.find_first_of(",\"\r\n") == std::string_view::npos) {
        return std::string(s);
    }
    std::string out = "\"";
    for (const char c : s) {
        if (c == '"') {
            out += '"';
        }
        out += c;
    }
    out += '"';
    return out;
}

std::string prometheus_label(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (const char c : s) {
        if (c == '\\') {
            out += "\\\\";
        } else if (c == '"') {
            out += "\\\"";
        } else if (c == '\n') {
            out += "\\n";
        } else {
            out += c;
        }
    }
    return out;
}

std::string prometheus_help(std::string_view raw) {
    const std::string s = bounded(raw, k_max_view_bytes);
    std::string out;
    out.reserve(s.size());
    for (const char c : s) {
        if (c == '\\') {
            out += "\\\\";
        } else if (c == '\n') {
            out += "\\n";
        } else {
            out += c;
        }
    }
    return out;
}

std::string markdown_cell(std::string_view raw) {
    const std::string flat = [&] {
        std::string t(raw.substr(0, k_max_view_bytes * 2));
        for (char& c : t) {
            c = (c == '\n' || c == '\r') ? ' ' : c;
        }
        return strip_unsafe(bounded(t, k_max_view_bytes));
    }();
    const std::string_view s = flat;
    std::string out;
    out.reserve(s.size());
    for (const char c : s) {
        switch (c) {
            case '|':
                out += "\\|";
                break;
            case '<':
                out += "&lt;";
                break;
            case '>':
                out += "&gt;";
                break;
            case '&':
                out += "&amp;";
                break;
            case '\n':
            case '\r':
                out += ' ';
                break;
            default:
                out += c;
        }
    }
    return out;
}

std::string terminal_safe(std::string_view s) { return strip_unsafe(bounded(s, k_max_view_bytes)); }

}  // namespace gpuconform
