// health.ecc: ECC mode and error counts (docs/gpu-health.md, "Memory").
#include "health/health_check_common.hpp"

namespace gpuconform {

CheckDef make_health_ecc() {
    CheckDef d = health_check("health.ecc", "ECC mode (current, pending) and uncorrectable/correctable error counts");
    d.profile_keys = {
        keys::range("max_uncorrected_errors", 0, 1'000'000, true),
    };
    d.measurements = {
        measure::diagnostic("*", Direction::Lower, 0.00),
    };
    d.caught_by = {"ecc_uncorrectable"};
    d.run = [](CheckContext& ctx, CheckResult& r) {
        const GpuHealth& g = gpu_of(ctx);
        add_identity(r, g);
        const auto max_uncorrected = static_cast<std::uint64_t>(ctx.expect(r, "max_uncorrected_errors"));
        if (g.ecc_mode.ok()) {
            r.facts["ecc_current"] = g.ecc_mode.value->current ? "enabled" : "disabled";
            r.facts["ecc_pending"] = g.ecc_mode.value->pending ? "enabled" : "disabled";
        }
        add_reading(r, "volatile_uncorrected", g.ecc.volatile_uncorrected, "errors");
        add_reading(r, "volatile_corrected", g.ecc.volatile_corrected, "errors");
        add_reading(r, "aggregate_uncorrected", g.ecc.aggregate_uncorrected, "errors");
        add_reading(r, "aggregate_corrected", g.ecc.aggregate_corrected, "errors");
        apply(r, judge_ecc(g, max_uncorrected));
    };
    return d;
}

}  // namespace gpuconform
