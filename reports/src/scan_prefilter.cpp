#include "scan_prefilter.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>

namespace gpuconform {

namespace {

// Keys whose values scan_report never reads, at whatever depth they occur; sorted.
constexpr std::array<std::string_view, 34> k_dropped{"arch",          "attribution",   "bdf",
                                                     "cgroup",        "class_code",    "command_line",
                                                     "container",     "cpu",           "current_speed_gts",
                                                     "current_width", "device_count",  "device_id",
                                                     "duration_s",    "env",           "exit_status",
                                                     "expectation",   "facts",         "finished",
                                                     "glibc",         "interrupted",   "kernel_drivers",
                                                     "layer",         "limits",        "link",
                                                     "load_error",    "max_speed_gts", "max_width",
                                                     "module_path",   "numa_node",     "phases",
                                                     "remediation",   "started",       "summary",
                                                     "user"};

// (length, first letter) pairs of the dropped keys: most keys are rejected by this alone.
constexpr std::array<std::uint32_t, 32> k_dropped_shapes = [] {
    std::array<std::uint32_t, 32> shapes{};
    for (const std::string_view k : k_dropped) {
        shapes[k.size() % 32] |= 1u << ((k[0] - 'a') % 32);
    }
    return shapes;
}();

bool dropped(std::string_view key, bool keep_measurements) {
    if (key.empty() || key[0] < 'a' || key[0] > 'z') {
        return false;
    }
    if (!keep_measurements && key == "measurements") {
        return true;
    }
    if ((k_dropped_shapes[key.size() % 32] & (1u << ((key[0] - 'a') % 32))) == 0) {
        return false;
    }
    return std::binary_search(k_dropped.begin(), k_dropped.end(), key);
}

bool is_space(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

// Index just past the string whose opening quote is at `i`; npos when unterminated.
std::size_t end_of_string(std::string_view s, std::size_t i) {
    for (++i; i < s.size(); ++i) {
        const char* p = static_cast<const char*>(std::memchr(s.data() + i, '"', s.size() - i));
        if (p == nullptr) {
            return std::string_view::npos;
        }
        i = static_cast<std::size_t>(p - s.data());
        std::size_t backslashes = 0;
        while (backslashes < i && s[i - 1 - backslashes] == '\\') {
            ++backslashes;
        }
        if (backslashes % 2 == 0) {
            return i + 1;
        }
    }
    return std::string_view::npos;
}

// Index just past the value starting at `i` (after whitespace); npos when it never ends.
std::size_t end_of_value(std::string_view s, std::size_t i) {
    while (i < s.size() && is_space(s[i])) {
        ++i;
    }
    if (i >= s.size()) {
        return std::string_view::npos;
    }
    if (s[i] == '"') {
        return end_of_string(s, i);
    }
    if (s[i] != '{' && s[i] != '[') {
        while (i < s.size() && s[i] != ',' && s[i] != '}' && s[i] != ']') {
            ++i;
        }
        return i < s.size() ? i : std::string_view::npos;
    }
    int depth = 0;
    for (; i < s.size(); ++i) {
        const char c = s[i];
        if (c == '"') {
            i = end_of_string(s, i);
            if (i == std::string_view::npos) {
                return i;
            }
            --i;
        } else if (c == '{' || c == '[') {
            ++depth;
        } else if ((c == '}' || c == ']') && --depth == 0) {
            return i + 1;
        }
    }
    return std::string_view::npos;
}

}  // namespace

bool prefilter_report(std::string_view in, bool keep_measurements, std::string& out) {
    out.clear();
    out.reserve(in.size() / 2);
    std::size_t i = 0;
    while (i < in.size()) {
        const char c = in[i];
        if (is_space(c)) {
            ++i;
            continue;
        }
        if (c != '"') {
            out += c;
            ++i;
            continue;
        }
        const std::size_t end = end_of_string(in, i);
        if (end == std::string_view::npos) {
            out.append(in.substr(i));
            return false;
        }
        const std::string_view key = in.substr(i + 1, end - i - 2);
        out.append(in.substr(i, end - i));
        std::size_t j = end;
        while (j < in.size() && is_space(in[j])) {
            ++j;
        }
        i = end;
        if (j < in.size() && in[j] == ':' && dropped(key, keep_measurements)) {
            const std::size_t value_end = end_of_value(in, j + 1);
            if (value_end == std::string_view::npos) {
                return false;
            }
            // Drop the whole member: its key, its value and one comma beside it.
            out.resize(out.size() - key.size() - 2);
            i = value_end;
            while (i < in.size() && is_space(in[i])) {
                ++i;
            }
            if (i < in.size() && in[i] == ',') {
                ++i;
            } else if (!out.empty() && out.back() == ',') {
                out.pop_back();
            }
        }
    }
    return true;
}

}  // namespace gpuconform
