// async.launch.returns_early: a kernel launch returns before the kernel finishes.
#include <fmt/format.h>

#include "async/async_checks.hpp"
#include "async/toolkit.hpp"

namespace gpuconform {

namespace {

void run(CheckContext& ctx, CheckResult& r) {
    using namespace async;
    Backend& b = *ctx.backend;
    Stream s(b, StreamKind::NonBlocking);
    warm_up(b, s);
    const std::uint64_t gate = gate_ns(ctx, r);
    const int trials = static_cast<int>(ctx.expect(r, "trials"));
    std::vector<double> call_ms;
    int blocked = 0;
    for (int i = 0; i < trials; ++i) {
        const auto t0 = Clock::now();
        GC_CHECK(b.launch_releasable_spin(s, gate));
        call_ms.push_back(ms_since(t0));
        bool done = false;
        GC_CHECK(b.stream_query(s, &done));
        blocked += done ? 1 : 0;
        GC_CHECK(b.release_spins());
        GC_CHECK(b.stream_synchronize(s));
    }
    r.measurements.push_back(summarize("launch_call_ms", "ms", call_ms));
    r.measurements.push_back({"kernel_ms", static_cast<double>(gate) / 1e6, "ms", 1, {}, {}});
    const double worst = *std::max_element(call_ms.begin(), call_ms.end());
    if (blocked == 0) {
        r.status = Status::Pass;
        r.summary = fmt::format("{} launches of a {:.0f} ms kernel returned in ≤ {:.3f} ms while it ran", trials,
                                static_cast<double>(gate) / 1e6, worst);
    } else {
        r.status = Status::Fail;
        r.summary = fmt::format("{} of {} launches returned only after the {:.0f} ms kernel finished", blocked, trials,
                                static_cast<double>(gate) / 1e6);
        r.remediation =
            "kernel launches are synchronous here: unset CUDA_LAUNCH_BLOCKING / HIP_LAUNCH_BLOCKING / "
            "AMD_SERIALIZE_KERNEL, and check for a profiler or debugger forcing serialization";
    }
}

}  // namespace

CheckDef make_async_launch_returns_early() {
    CheckDef d;
    d.id = "async.launch.returns_early";
    d.profile_keys = {
        keys::ms("gate_ms"),
        keys::count("trials"),
    };
    d.measurements = {
        measure::diagnostic("launch_call_ms", Direction::Lower, 2.00),
        measure::diagnostic("kernel_ms", Direction::None, 0.20),
    };
    d.caught_by = {"launch_blocks", "hang", "crash", "sticky_error"};
    d.timing_sensitive = false;  // a gated launch returning early
    d.rests_on_asynchrony = true;
    d.layer = "async";
    d.description = "A kernel launch returns before the kernel finishes";
    d.scope = Scope::Device;
    d.timeout_s = 15;
    d.run = run;
    return d;
}

}  // namespace gpuconform
