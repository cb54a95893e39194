// Event timing against a known duration: a spin of T ms between two events, also timed by the
// host around launch + event_synchronize. Events must report about T, and never more than the
// host waited in all; ~0 or far off means profiles built on events are wrong here.
#include <cmath>

#include <fmt/format.h>

#include "async/async_checks.hpp"
#include "async/judges.hpp"

namespace gpuconform {

namespace {

void run(CheckContext& ctx, CheckResult& r) {
    Backend& b = *ctx.backend;
    const double spin_ms = ctx.expect(r, "spin_ms");
    const double tolerance = ctx.expect(r, "max_relative_error");
    async::Stream s(b, StreamKind::NonBlocking);
    async::warm_up(b, s);
    const int reps = static_cast<int>(ctx.expect(r, "repetitions"));
    std::vector<double> event_ms;
    std::vector<double> host_ms;
    for (int i = 0; i < reps; ++i) {
        async::Event start(b);
        async::Event stop(b);
        const auto t0 = async::Clock::now();
        GC_CHECK(b.event_record(start, s));
        GC_CHECK(b.launch_spin(s, static_cast<std::uint64_t>(spin_ms * 1e6)));
        GC_CHECK(b.event_record(stop, s));
        GC_CHECK(b.event_synchronize(stop));
        host_ms.push_back(async::ms_since(t0));
        GC_CHECK(b.stream_synchronize(s));  // the elapsed-time query needs both events complete
        float ms = 0;
        GC_CHECK(b.event_elapsed_ms(start, stop, &ms));
        event_ms.push_back(ms);
    }
    const Measurement ev = summarize("event_ms", "ms", event_ms);
    const Measurement host = summarize("host_ms", "ms", host_ms);
    r.measurements.push_back(ev);
    r.measurements.push_back(host);
    r.measurements.push_back(async::single("spin_ms", spin_ms, "ms"));
    const double error = std::abs(*ev.value - spin_ms) / spin_ms;
    r.measurements.push_back(async::single("relative_error", error, "ratio"));
    const auto v = async::judge_event_timing(*ev.value, *host.value, spin_ms, tolerance);
    r.status = v.status;
    if (v.status == Status::Pass) {
        r.summary = fmt::format("events timed a {:.0f} ms kernel as {:.3f} ms ({:.1f}% off; host saw {:.3f} ms)",
                                spin_ms, *ev.value, error * 100, *host.value);
        return;
    }
    r.summary = fmt::format(
        "{}: events timed a {:.0f} ms kernel as {:.3f} ms, the host waited {:.3f} ms "
        "(tolerance {:.0f}%)",
        v.why, spin_ms, *ev.value, *host.value, tolerance * 100);
    r.remediation =
        "device-event timings (cudaEventElapsedTime/hipEventElapsedTime) cannot be trusted on this "
        "install: time with the host clock around a synchronize, and report the driver version";
}

}  // namespace

CheckDef make_async_event_timing_accuracy() {
    CheckDef d;
    d.id = "async.event.timing_accuracy";
    d.profile_keys = {
        keys::ms("spin_ms"),
        keys::ratio("max_relative_error"),
        keys::count("repetitions"),
    };
    d.measurements = {
        measure::diagnostic("relative_error", Direction::Lower, 1.00),
        measure::diagnostic("*_ms", Direction::None, 0.20),
    };
    d.caught_by = {"events_ignored", "hang", "crash", "sticky_error"};
    d.timing_sensitive = true;  // compares event time with host time; time slicing stretches kernels
    d.layer = "async";
    d.description = "Event-timed duration of a known spin agrees with the kernel's length and the host clock";
    d.scope = Scope::Device;
    d.timeout_s = 10;
    d.run = run;
    return d;
}

}  // namespace gpuconform
