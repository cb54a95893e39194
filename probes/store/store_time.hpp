// Times as the store keeps them: UTC ISO 8601 text ("2026-11-29T15:59:24Z"), which sorts as text.
#pragma once

#include <optional>
#include <string>

namespace gpuconform::store {

std::string utc_now();

// A window bound given on the command line: "2026-11-29" (that day's start) or
// "2026-11-29T15:59:24Z". Returns it in the stored form, or nullopt when it is neither.
std::optional<std::string> window_bound(const std::string& text);

// `time` moved by `seconds`; nullopt when `time` is not in the stored form.
std::optional<std::string> shifted(const std::string& time, long long seconds);

}  // namespace gpuconform::store
