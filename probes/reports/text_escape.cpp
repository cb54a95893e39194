#include "reports/text_escape.hpp"

#include <utility>

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

namespace {

// The UTF-8 sequence at s[i]: its length and code point; length 0 when it is not valid UTF-8
// (a stray byte, a truncated or overlong sequence, a value above U+10FFFF).
std::pair<std::size_t, char32_t> utf8_at(std::string_view s, std::size_t i) {
    const auto b = static_cast<unsigned char>(s[i]);
    const std::size_t len = b < 0x80 ? 1 : (b >> 5) == 0x6 ? 2 : (b >> 4) == 0xE ? 3 : (b >> 3) == 0x1E ? 4 : 0;
    if (len == 0 || i + len > s.size()) {
        return {0, 0};
    }
    char32_t cp = len == 1 ? b : len == 2 ? (b & 0x1F) : len == 3 ? (b & 0x0F) : (b & 0x07);
    for (std::size_t k = 1; k < len; ++k) {
        const auto c = static_cast<unsigned char>(s[i + k]);
        if ((c & 0xC0) != 0x80) {
            return {0, 0};
        }
        cp = (cp << 6) | (c & 0x3F);
    }
    const std::size_t min_len = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    return min_len == len && cp <= 0x10FFFF ? std::pair{len, cp} : std::pair<std::size_t, char32_t>{0, 0};
}

constexpr const char* k_replacement = "\xEF\xBF\xBD";  // U+FFFD

}  // namespace

std::string xml_escape(std::string_view raw) {
    const std::string bound = bounded(raw, k_max_view_bytes);
    const std::string_view s = bound;
    std::string out;
    out.reserve(s.size());
    for (std::size_t i = 0; i < s.size();) {
        const auto [len, cp] = utf8_at(s, i);
        if (len == 0) {
            out += k_replacement;  // not UTF-8: the page and the XML parser would reject the file
            ++i;
            continue;
        }
        // Code points XML 1.0 forbids even as references (https://www.w3.org/TR/xml/#charsets):
        // surrogates, U+FFFE and U+FFFF are dropped (noncharacters: nothing was meant by them);
        // the C0 controls other than tab, newline and CR become U+FFFD (something was there).
        if ((cp >= 0xD800 && cp <= 0xDFFF) || cp == 0xFFFE || cp == 0xFFFF) {
            // dropped
        } else if (cp < 0x20 && cp != '\t' && cp != '\n' && cp != '\r') {
            out += k_replacement;
        } else if (unsafe_sequence(s, i) > 0 || cp == 0x7f) {
            out += strip_unsafe(s.substr(i, len));  // a bidi control or C1 control: shown, never obeyed
        } else if (len > 1) {
            out.append(s.substr(i, len));
        } else {
            switch (static_cast<char>(cp)) {
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
                    out += static_cast<char>(cp);
            }
        }
        i += len;
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

std::string prometheus_label(std::string_view raw) {
    const std::string bound = bounded(raw, k_max_view_bytes);
    const std::string_view s = bound;
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
