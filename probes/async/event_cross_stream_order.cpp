// Cross-stream ordering with events: a copy on stream A, an event recorded after it, stream B
// waiting on that event, a verify kernel on B. B must never read stale data (fail on one stale
// trial). The same without the wait shows the race (info): proof the streams run concurrently.
#include <fmt/format.h>

#include "async/async_checks.hpp"
#include "async/timing_pair.hpp"

namespace gpuconform {

namespace {

constexpr std::size_t k_bytes = std::size_t{16} << 20;

struct Setup {
    Backend& b;
    async::Stream& a;
    async::Stream& consumer;
    async::DeviceBuffer& dev;
    async::HostBuffer& host;
    async::MismatchCounter& counter;
    std::uint64_t gate_ns;
};

// One trial; true when B read stale data.
bool stale_trial(Setup& s, bool wait_event) {
    const std::uint32_t old_seed = async::fresh_seed();
    const std::uint32_t seed = async::fresh_seed();
    GC_CHECK(s.b.launch_fill(s.a, s.dev.data(), s.dev.words(), old_seed));
    GC_CHECK(s.b.stream_synchronize(s.a));
    s.host.fill(seed);
    async::Event copied(s.b, /*timing=*/false);
    GC_CHECK(s.b.launch_spin(s.a, s.gate_ns));
    GC_CHECK(s.b.memcpy_async(s.dev.data(), s.host.data(), k_bytes, CopyKind::HostToDevice, s.a));
    GC_CHECK(s.b.event_record(copied, s.a));
    if (wait_event) {
        GC_CHECK(s.b.stream_wait_event(s.consumer, copied));
    }
    const std::uint64_t bad = s.counter.count(s.consumer, s.dev.data(), s.dev.words(), seed);
    GC_CHECK(s.b.stream_synchronize(s.a));
    return bad != 0;
}

void run(CheckContext& ctx, CheckResult& r) {
    Backend& b = *ctx.backend;
    async::Stream a(b, StreamKind::NonBlocking);
    async::Stream consumer(b, StreamKind::NonBlocking);
    async::warm_up(b, a);
    async::warm_up(b, consumer);
    async::DeviceBuffer dev(b, k_bytes);
    async::HostBuffer host(b, k_bytes, async::HostKind::Pinned);
    async::MismatchCounter counter(b, consumer);
    Setup s{b, a, consumer, dev, host, counter, static_cast<std::uint64_t>(ctx.expect(r, "gate_ms") * 1e6)};
    const int trials = ctx.options.quick ? 8 : 20;
    int stale_ordered = 0;
    int stale_racy = 0;
    for (int i = 0; i < trials; ++i) {
        stale_ordered += stale_trial(s, /*wait_event=*/true) ? 1 : 0;
    }
    for (int i = 0; i < trials; ++i) {
        stale_racy += stale_trial(s, /*wait_event=*/false) ? 1 : 0;
    }
    r.measurements.push_back(async::single("stale_with_event_wait", stale_ordered, "trials"));
    r.measurements.push_back(async::single("stale_without_wait", stale_racy, "trials"));
    r.facts["trials"] = trials;
    r.facts["copy_bytes"] = k_bytes;
    const std::string race = stale_racy > 0
                                 ? fmt::format("without the wait the race was seen in {}/{}", stale_racy, trials)
                                 : fmt::format("without the wait the race was seen in 0/{}: the streams may not run "
                                               "concurrently here",
                                               trials);
    if (stale_ordered > 0) {
        r.status = Status::Fail;
        r.summary = fmt::format("stream B read stale data in {}/{} trials despite waiting on an event recorded after "
                                "the copy on stream A; {}",
                                stale_ordered, trials, race);
        r.remediation = "cross-stream dependencies expressed with events (cudaStreamWaitEvent/hipStreamWaitEvent) "
                        "are not honoured: report the driver and runtime versions; do not rely on events for "
                        "ordering on this install";
        return;
    }
    r.status = Status::Pass;
    r.summary = fmt::format("an event wait ordered stream B after a 16 MiB copy on stream A in {}/{} trials; {}",
                            trials, trials, race);
}

}  // namespace

CheckDef make_async_event_cross_stream_order() {
    CheckDef d;
    d.id = "async.event.cross_stream_order";
    d.timing_sensitive = false;  // event order
    d.layer = "async";
    d.description = "An event wait orders a consumer stream after a copy on another stream; without it, the race";
    d.scope = Scope::Device;
    d.timeout_s = 20;
    d.run = run;
    return d;
}

}  // namespace gpuconform
