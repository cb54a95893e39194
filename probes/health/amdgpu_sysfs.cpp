#include "health/amdgpu_sysfs.hpp"

#include <charconv>
#include <sstream>

namespace gpuconform {

namespace {

std::string trim(const std::string& s) {
    const auto first = s.find_first_not_of(" \t\r");
    if (first == std::string::npos) {
        return {};
    }
    return s.substr(first, s.find_last_not_of(" \t\r") - first + 1);
}

std::optional<std::uint64_t> number(const std::string& s) {
    std::uint64_t v = 0;
    const std::string t = trim(s);
    const auto r = std::from_chars(t.data(), t.data() + t.size(), v);
    if (t.empty() || r.ec != std::errc{} || r.ptr != t.data() + t.size()) {
        return std::nullopt;
    }
    return v;
}

}  // namespace

std::optional<RasCount> parse_ras_err_count(const std::string& text) {
    RasCount c;
    bool ue = false;
    bool ce = false;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        const auto colon = line.find(':');
        if (colon == std::string::npos) {
            continue;
        }
        const std::string key = trim(line.substr(0, colon));
        const auto value = number(line.substr(colon + 1));
        if (!value) {
            continue;
        }
        if (key == "ue") {
            c.uncorrectable = *value;
            ue = true;
        } else if (key == "ce") {
            c.correctable = *value;
            ce = true;
        }
    }
    return ue && ce ? std::optional<RasCount>(c) : std::nullopt;
}

BadPages parse_bad_pages(const std::string& text) {
    BadPages p;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        const auto last = line.rfind(':');
        if (last == std::string::npos || line.find(':') == last) {
            continue;  // not "pfn : size : flag"
        }
        const std::string flag = trim(line.substr(last + 1));
        p.reserved += flag == "R" ? 1 : 0;
        p.pending += flag == "P" ? 1 : 0;
        p.failed += flag == "F" ? 1 : 0;
    }
    return p;
}

}  // namespace gpuconform
