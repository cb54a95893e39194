#include "core/check.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "core/profile_keys.hpp"

namespace gpuconform {

namespace {
std::string describe(const ApiResult& r, const char* expr, const char* file, int line) {
    return fmt::format("{} ({}) from {} at {}:{}", r.name.empty() ? fmt::format("error {}", r.code) : r.name, r.message,
                       expr, file, line);
}

std::string vendor_of(const CheckContext& ctx) {
    if (ctx.backend != nullptr) {
        return ctx.backend->vendor();
    }
    return ctx.backend_info != nullptr ? ctx.backend_info->vendor : "";
}
}  // namespace

bool device_chosen(const RunOptions& options, int device) {
    return options.devices.empty() ||
           std::find(options.devices.begin(), options.devices.end(), device) != options.devices.end();
}

bool some_devices_chosen(const RunOptions& options, int count) {
    for (int d = 0; d < count; ++d) {
        if (!device_chosen(options, d)) {
            return true;
        }
    }
    return false;
}

ApiError::ApiError(const ApiResult& r, const char* expr, const char* file, int line)
    : std::runtime_error(describe(r, expr, file, line)), result(r) {}

std::optional<double> CheckContext::expect_optional(CheckResult& result, const std::string& key) const {
    if (!profile.declares(result.id, key)) {
        // A profile could never set it: the reader refuses undeclared keys.
        throw std::logic_error(fmt::format(
            "{} reads the profile key '{}', which it does not declare (CheckDef::profile_keys)", result.id, key));
    }
    const auto v = profile.lookup(result.id, key, vendor_of(*this), props.arch, options.quick);
    if (v) {
        result.expectation[key] = *v;
    }
    return v;
}

double CheckContext::expect(CheckResult& result, const std::string& key) const {
    const auto v = expect_optional(result, key);
    if (!v) {
        throw std::runtime_error(fmt::format("no expectation '{}' for {} in the profile ({} / {})", key, result.id,
                                             vendor_of(*this), props.arch));
    }
    return *v;
}

}  // namespace gpuconform
