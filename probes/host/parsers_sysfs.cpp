// Parsers of sysfs PCI attributes and the NVIDIA driver's /proc file.
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <sstream>

#include "host/host_fs.hpp"
#include "host/parsers.hpp"

namespace gpuconform {

std::optional<double> parse_link_speed(const std::string& text) {
    const auto t = trim(text);
    char* end = nullptr;
    const double v = std::strtod(t.c_str(), &end);
    if (end == t.c_str() || v <= 0) {
        return std::nullopt;
    }
    return v;
}

std::optional<int> parse_link_width(const std::string& text) {
    const auto t = trim(text);
    int v = 0;
    const auto r = std::from_chars(t.data(), t.data() + t.size(), v);
    if (r.ec != std::errc{} || v <= 0) {
        return std::nullopt;
    }
    return v;
}

std::optional<std::uint32_t> parse_hex(const std::string& text) {
    auto t = trim(text);
    if (t.starts_with("0x") || t.starts_with("0X")) {
        t = t.substr(2);
    }
    std::uint32_t v = 0;
    const auto r = std::from_chars(t.data(), t.data() + t.size(), v, 16);
    if (t.empty() || r.ec != std::errc{} || r.ptr != t.data() + t.size()) {
        return std::nullopt;
    }
    return v;
}

std::optional<int> parse_numa_node(const std::string& text) {
    const auto t = trim(text);
    int v = -1;
    const auto r = std::from_chars(t.data(), t.data() + t.size(), v);
    if (r.ec != std::errc{} || v < 0) {
        return std::nullopt;
    }
    return v;
}

std::string gpu_vendor_name(std::uint32_t vendor_id) {
    switch (vendor_id) {
        case 0x10de:
            return "nvidia";
        case 0x1002:
            return "amd";
        default:
            return "";
    }
}

bool is_display_class(std::uint32_t class_code) { return (class_code >> 16) == 0x03; }

std::string parse_nvidia_proc_version(const std::string& text) {
    const auto first_line = text.substr(0, text.find('\n'));
    const auto module = first_line.find("Kernel Module");
    std::istringstream in(module == std::string::npos ? first_line : first_line.substr(module));
    for (std::string word; in >> word;) {
        // The version is the first word made of digits and dots with at least one dot.
        const bool numeric = word.find_first_not_of("0123456789.") == std::string::npos;
        if (numeric && word.find('.') != std::string::npos && std::isdigit(static_cast<unsigned char>(word[0]))) {
            return word;
        }
    }
    return "";
}

}  // namespace gpuconform
