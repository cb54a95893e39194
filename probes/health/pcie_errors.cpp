// health.pcie_errors: the PCIe replay counter and the kernel's AER totals, with the time they were
// read; their growth across the run is health.error_growth's to judge (docs/gpu-health.md, "Links").
#include <ctime>

#include <fmt/format.h>

#include "health/health_check_common.hpp"

namespace gpuconform {

CheckDef make_health_pcie_errors() {
    CheckDef d =
        health_check("health.pcie_errors", "PCIe replay counter and AER totals, recorded with the time they were read");
    d.informational = true;  // a reading: info, never pass
    d.measurements = {
        measure::diagnostic("*", Direction::Lower, 0.00),
    };
    d.run = [](CheckContext& ctx, CheckResult& r) {
        const GpuHealth& g = gpu_of(ctx);
        add_identity(r, g);
        add_reading(r, "pcie_replays", g.pcie_replays, "replays");
        const auto aer_field = [&](std::uint64_t AerCounts::*field) {
            return g.aer.ok() ? Read<std::uint64_t>::of((*g.aer.value).*field)
                              : Read<std::uint64_t>{std::nullopt, g.aer.not_supported, g.aer.error};
        };
        add_reading(r, "aer_correctable", aer_field(&AerCounts::correctable), "errors");
        add_reading(r, "aer_nonfatal", aer_field(&AerCounts::nonfatal), "errors");
        add_reading(r, "aer_fatal", aer_field(&AerCounts::fatal), "errors");
        const auto t = static_cast<std::time_t>(g.read_at_unix_s);
        std::tm utc{};
        gmtime_r(&t, &utc);
        r.facts["read_at"] = fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z", utc.tm_year + 1900, utc.tm_mon + 1,
                                         utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec);
        r.facts["read_at_unix_s"] = g.read_at_unix_s;
        apply(r, judge_pcie_errors(g));
    };
    return d;
}

}  // namespace gpuconform
