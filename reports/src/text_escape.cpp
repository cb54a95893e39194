#include "text_escape.hpp"

#include <fmt/format.h>

namespace gpuconform {

std::string xml_escape(std::string_view s) {
    std::string out;
    out.reserve(s.size() + 16);
    for (const char c : s) {
        const auto u = static_cast<unsigned char>(c);
        switch (c) {
        case '&': out += "&amp;"; break;
        case '<': out += "&lt;"; break;
        case '>': out += "&gt;"; break;
        case '"': out += "&quot;"; break;
        case '\'': out += "&#39;"; break;
        case '\t': out += "&#9;"; break;
        case '\n': out += "&#10;"; break;
        case '\r': out += "&#13;"; break;
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

std::string csv_field(std::string_view s) {
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

std::string markdown_cell(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (const char c : s) {
        switch (c) {
        case '|': out += "\\|"; break;
        case '<': out += "&lt;"; break;
        case '>': out += "&gt;"; break;
        case '&': out += "&amp;"; break;
        case '\n':
        case '\r': out += ' '; break;
        default: out += c;
        }
    }
    return out;
}

std::string terminal_safe(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (const char c : s) {
        const auto u = static_cast<unsigned char>(c);
        if (u < 0x20 || u == 0x7f) {
            out += fmt::format("\\x{:02x}", u);
        } else {
            out += c;
        }
    }
    return out;
}

}  // namespace gpuconform
