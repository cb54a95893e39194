// libFuzzer harness over the tolerance reader (`diff --tolerances`): any text is a table whose
// every floor is a finite number from 0 to below 1, or a std::runtime_error naming file and line
// (which diff reports as exit 2); any other exception, crash or hang is a bug.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "reports/tolerance.hpp"

namespace {
bool sane(const std::optional<double>& floor) { return !floor || (std::isfinite(*floor) && *floor >= 0 && *floor < 1); }
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    gpuconform::ToleranceTable table;
    try {
        table = gpuconform::parse_tolerances(text, "fuzz.yaml");
    } catch (const std::runtime_error& e) {
        if (std::string(e.what()).rfind("fuzz.yaml:", 0) != 0) {
            __builtin_trap();  // a refusal must name the file and line
        }
        return 0;
    }
    if (!sane(table.default_floor)) {
        __builtin_trap();
    }
    for (const auto& rule : table.rules) {
        if (rule.match.empty() || !sane(rule.floor)) {
            __builtin_trap();
        }
    }
    (void)table.find("async.copy.bandwidth", "bw_pinned_H2D_256MiB");
    return 0;
}
