// health.pcie_errors: the PCIe replay counter with the time it was read; its growth across a run
// is a later reading's to judge (docs/gpu-health.md, "Links").
#include <ctime>

#include <fmt/format.h>

#include "health/health_check_common.hpp"

namespace gpuconform {

CheckDef make_health_pcie_errors() {
    CheckDef d = health_check("health.pcie_errors", "PCIe replay counter, recorded with the time it was read");
    d.run = [](CheckContext& ctx, CheckResult& r) {
        const GpuHealth& g = gpu_of(ctx);
        add_identity(r, g);
        add_reading(r, "pcie_replays", g.pcie_replays, "replays");
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
