// health.clocks: clock event (throttle) reasons active now, temperature against the slowdown and
// shutdown thresholds, the enforced power limit against the default (docs/gpu-health.md).
#include <fmt/format.h>

#include "health/health_check_common.hpp"

namespace gpuconform {

CheckDef make_health_clocks() {
    CheckDef d = health_check("health.clocks",
                              "clock event reasons active now, temperature against slowdown/shutdown, power limit");
    d.profile_keys = {
        keys::range("slowdown_margin_c", 0, 50, false),
    };
    d.measurements = {
        measure::diagnostic("temperature_c", Direction::Lower, 0.00),
        measure::diagnostic("*", Direction::None, 0.00),
    };
    d.caught_by = {"thermal_slowdown", "power_capped"};
    d.run = [](CheckContext& ctx, CheckResult& r) {
        const GpuHealth& g = gpu_of(ctx);
        add_identity(r, g);
        const double margin = ctx.expect(r, "slowdown_margin_c");
        if (g.clock_event_reasons.ok()) {
            r.facts["clock_event_reasons"] = fmt::format("{:#x}", *g.clock_event_reasons.value);
        }
        add_reading(r, "temperature_c", g.temperature_c, "°C");
        add_reading(r, "slowdown_c", g.slowdown_c, "°C");
        add_reading(r, "shutdown_c", g.shutdown_c, "°C");
        add_reading(r, "power_limit_mw", g.power_limit_mw, "mW");
        add_reading(r, "default_power_limit_mw", g.default_power_limit_mw, "mW");
        apply(r, judge_clocks(g, margin));
    };
    return d;
}

}  // namespace gpuconform
