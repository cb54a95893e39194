// How many kernel launches queue before the host blocks: a long gate spin, then tiny kernels
// behind it, each launch call timed. The first launch that blocks until the gate ends marks the
// queue full. Nothing is required of the figure (info); an H200 queued about 1,100
// (docs/vendor-behaviour.md).
#include <fmt/format.h>

#include "async/async_checks.hpp"
#include "async/judges.hpp"

namespace gpuconform {

namespace {

struct Depth {
    int launches = 0;           // tiny launches that returned quickly before the loop stopped
    bool full = false;          // a launch blocked until the gate ended
    int noise = 0;              // slow launches that returned while the gate still ran
    double blocked_ms = 0;      // how long the blocking launch took
    double gate_launch_ms = 0;  // how long the gate's own launch call took
    std::vector<double> call_us;
};

Depth fill_queue(Backend& b, StreamHandle s, double gate_ms, double blocked_ms, int cap) {
    Depth d;
    const auto gate_launched = async::Clock::now();  // the gate cannot start before its launch call
    GC_CHECK(b.launch_spin(s, static_cast<std::uint64_t>(gate_ms * 1e6)));
    d.gate_launch_ms = async::ms_since(gate_launched);
    for (int i = 0; i < cap; ++i) {
        const double start = async::ms_since(gate_launched);
        if (start >= gate_ms) {
            break;  // the gate may have ended: no evidence past this point
        }
        GC_CHECK(b.launch_spin(s, 0));
        const double end = async::ms_since(gate_launched);
        const auto c = async::classify_launch(start, end, gate_ms, blocked_ms);
        if (c == async::LaunchClass::QueueFull) {
            d.full = true;
            d.blocked_ms = end - start;
            break;
        }
        d.noise += c == async::LaunchClass::Noise ? 1 : 0;
        d.call_us.push_back((end - start) * 1e3);
        ++d.launches;
    }
    GC_CHECK(b.stream_synchronize(s));
    return d;
}

void run(CheckContext& ctx, CheckResult& r) {
    Backend& b = *ctx.backend;
    const double gate_ms = ctx.expect(r, "long_ms");
    const double blocked_ms = ctx.expect(r, "blocked_launch_ms");
    const int cap = static_cast<int>(ctx.expect(r, "max_launches"));
    async::Stream s(b, StreamKind::NonBlocking);
    async::warm_up(b, s);
    const Depth d = fill_queue(b, s, gate_ms, blocked_ms, cap);
    r.measurements.push_back(async::single("queued_launches", d.launches, "launches"));
    r.measurements.push_back(summarize("launch_call_us", "us", d.call_us));
    r.facts["queue_full"] = d.full;
    r.facts["slow_launches_while_gate_ran"] = d.noise;
    r.status = Status::Info;
    if (d.gate_launch_ms >= gate_ms) {
        r.status = Status::Error;
        r.summary = fmt::format(
            "could not judge: launching the {:.0f} ms gate blocked until it had finished, so "
            "nothing queued behind it; see async.launch.returns_early",
            gate_ms);
        return;
    }
    if (d.full) {
        r.measurements.push_back(async::single("blocked_launch_ms", d.blocked_ms, "ms"));
        r.summary = fmt::format(
            "the launch queue held {} kernels behind a running one; launch {} blocked the host "
            "for {:.1f} ms: code that queues more work than that stalls in \"async\" calls",
            d.launches, d.launches + 1, d.blocked_ms);
        return;
    }
    const std::string why = d.launches >= cap ? fmt::format("the cap of {} launches was reached", cap)
                                              : fmt::format("the {:.0f} ms gate ended first", gate_ms);
    r.summary = fmt::format(
        "the launch queue holds at least {} kernels ({}); raise long_ms or max_launches in a "
        "--profile file to find the limit",
        d.launches, why);
}

}  // namespace

CheckDef make_async_queue_launch_depth() {
    CheckDef d;
    d.id = "async.queue.launch_depth";
    d.profile_keys = {
        keys::ms("long_ms"),
        keys::range("blocked_launch_ms", 0.01, 60'000, false),  // up to a minute
        keys::range("max_launches", 1, 10'000'000, true),
    };
    d.informational = true;  // a reading: info, never pass
    d.measurements = {
        measure::key("queued_launches", Direction::Higher, 0.10),
        measure::diagnostic("blocked_launch_ms", Direction::None, 0.20),
        measure::diagnostic("launch_call_us", Direction::Lower, 2.00),
    };
    d.caught_by = {"launch_blocks"};
    d.timing_sensitive = true;  // launch depth is measured by timing
    d.rests_on_asynchrony = true;
    d.layer = "async";
    d.description = "How many kernel launches queue behind a running kernel before the host blocks";
    d.scope = Scope::Device;
    d.timeout_s = 20;
    d.run = run;
    return d;
}

}  // namespace gpuconform
