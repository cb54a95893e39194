#include "store/store_time.hpp"

#include <ctime>
#include <regex>

#include "core/utc_time.hpp"

namespace gpuconform::store {

namespace {

std::optional<std::time_t> parse_utc(const std::string& text) {
    static const std::regex shape(R"(\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}:\d{2}Z)?)");
    if (!std::regex_match(text, shape)) {
        return std::nullopt;
    }
    std::tm tm{};
    const std::string full = text.size() == 10 ? text + "T00:00:00Z" : text;
    const char* end = strptime(full.c_str(), "%Y-%m-%dT%H:%M:%SZ", &tm);
    if (end == nullptr || *end != '\0') {
        return std::nullopt;
    }
    return timegm(&tm);
}

}  // namespace

std::string utc_now() { return utc_iso(std::time(nullptr)); }

std::optional<std::string> window_bound(const std::string& text) {
    const auto t = parse_utc(text);
    if (!t || utc_iso(*t).substr(0, 10) != text.substr(0, 10)) {  // 2026-02-30 is no day
        return std::nullopt;
    }
    return utc_iso(*t);
}

std::optional<std::string> shifted(const std::string& time, long long seconds) {
    const auto t = parse_utc(time);
    if (!t) {
        return std::nullopt;
    }
    return utc_iso(static_cast<std::time_t>(*t + seconds));
}

}  // namespace gpuconform::store
