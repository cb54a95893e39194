// Cross-stream ordering with events: a copy on stream A behind a spin, an event recorded after
// it, stream B waiting on that event, a verify kernel on B. B must never read stale data (fail on
// one stale trial). The same without the wait must show the race: only then could B have run
// early, so only then does a clean ordered trial prove anything. A trial whose spin had already
// ended when B's work was queued (launches or copies that block the host) decides nothing. No
// decided trial, or no race seen, is `error`: no evidence is never a pass.
#include <fmt/format.h>

#include "async/async_checks.hpp"
#include "async/mismatch_counter.hpp"

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
    std::uint32_t host_seed;  // what the host buffer holds: filled once, copied in every trial
};

enum class Trial { Clean, Stale, Undecided };

// One trial: whether B read stale data, or undecided when the host queued B's work after the
// spin that holds A back had (mostly) run out.
Trial stale_trial(Setup& s, bool wait_event) {
    // The device buffer gets a pattern of its own each trial, so no earlier trial's copy can pass
    // for this one's.
    std::uint32_t old_seed = async::fresh_seed();
    while (old_seed == s.host_seed) {
        old_seed = async::fresh_seed();
    }
    GC_CHECK(s.b.launch_fill(s.a, s.dev.data(), s.dev.words(), old_seed));
    GC_CHECK(s.b.stream_synchronize(s.a));
    async::Event copied(s.b, /*timing=*/false);
    const auto gate_launched = async::Clock::now();
    GC_CHECK(s.b.launch_spin(s.a, s.gate_ns));
    GC_CHECK(s.b.memcpy_async(s.dev.data(), s.host.data(), k_bytes, CopyKind::HostToDevice, s.a));
    GC_CHECK(s.b.event_record(copied, s.a));
    if (wait_event) {
        GC_CHECK(s.b.stream_wait_event(s.consumer, copied));
    }
    // The gated calls' rule (async::classify): past half the gate, A may be done.
    const bool held = async::ms_since(gate_launched) < async::k_half_gate * static_cast<double>(s.gate_ns) / 1e6;
    const std::uint64_t bad = s.counter.count(s.consumer, s.dev.data(), s.dev.words(), s.host_seed);
    GC_CHECK(s.b.stream_synchronize(s.a));
    if (bad != 0) {
        return Trial::Stale;  // stale data is stale however late B was queued
    }
    return held ? Trial::Clean : Trial::Undecided;
}

struct Tally {
    int stale = 0;
    int decided = 0;
};

Tally run_trials(Setup& s, bool wait_event, int trials) {
    Tally t;
    for (int i = 0; i < trials; ++i) {
        const Trial outcome = stale_trial(s, wait_event);
        t.stale += outcome == Trial::Stale ? 1 : 0;
        t.decided += outcome != Trial::Undecided ? 1 : 0;
    }
    return t;
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
    const std::uint32_t host_seed = async::fresh_seed();
    host.fill(host_seed);
    Setup s{b, a, consumer, dev, host, counter, static_cast<std::uint64_t>(ctx.expect(r, "gate_ms") * 1e6), host_seed};
    const int trials = static_cast<int>(ctx.expect(r, "trials"));
    const Tally ordered = run_trials(s, /*wait_event=*/true, trials);
    const Tally racy = run_trials(s, /*wait_event=*/false, trials);
    const int stale_ordered = ordered.stale;
    const int stale_racy = racy.stale;
    r.measurements.push_back(async::single("stale_with_event_wait", stale_ordered, "trials"));
    r.measurements.push_back(async::single("stale_without_wait", stale_racy, "trials"));
    r.facts["trials"] = trials;
    r.facts["decided_with_event_wait"] = ordered.decided;
    r.facts["decided_without_wait"] = racy.decided;
    r.facts["copy_bytes"] = k_bytes;
    const std::string race = fmt::format("without the wait the race was seen in {}/{}", stale_racy, trials);
    if (stale_ordered > 0) {
        r.status = Status::Fail;
        r.summary = fmt::format(
            "stream B read stale data in {}/{} trials despite waiting on an event recorded after "
            "the copy on stream A; {}",
            stale_ordered, trials, race);
        r.remediation =
            "cross-stream dependencies expressed with events (cudaStreamWaitEvent/hipStreamWaitEvent) "
            "are not honoured: report the driver and runtime versions; do not rely on events for "
            "ordering on this install";
        return;
    }
    if (ordered.decided == 0) {
        r.status = Status::Error;
        r.summary = fmt::format(
            "could not judge: in all {} trials the spin holding stream A back had run out before "
            "stream B's work was queued (do launches or copies block the host? see "
            "async.launch.returns_early); no stale read seen",
            trials);
        return;
    }
    if (stale_racy == 0) {
        r.status = Status::Error;
        r.summary = fmt::format(
            "could not judge: {}, so stream B never ran ahead of the copy and the event wait's "
            "ordering could not be shown (do the two streams run concurrently? see "
            "async.stream.nonblocking_independent); no stale read with the wait in {} trials",
            race, trials);
        return;
    }
    r.status = Status::Pass;
    r.summary = fmt::format(
        "an event wait ordered stream B after a 16 MiB copy on stream A in {}/{} trials{}; {}", ordered.decided,
        ordered.decided,
        ordered.decided < trials ? fmt::format(" ({} undecided: B queued late)", trials - ordered.decided) : "", race);
}

}  // namespace

CheckDef make_async_event_cross_stream_order() {
    CheckDef d;
    d.id = "async.event.cross_stream_order";
    d.profile_keys = {
        keys::ms("gate_ms"),
        keys::count("trials"),
    };
    d.measurements = {
        measure::diagnostic("stale_with_event_wait", Direction::Lower, 0.00),
        measure::diagnostic("stale_without_wait", Direction::None, 0.00),
    };
    d.caught_by = {"pinned_copy_blocks", "launch_blocks", "events_ignored", "copies_corrupt",
                   "cotenant+pinned_copy_blocks"};
    d.timing_sensitive = false;  // event order
    d.layer = "async";
    d.description = "An event wait orders a consumer stream after a copy on another stream; without it, the race";
    d.scope = Scope::Device;
    d.timeout_s = 20;
    d.run = run;
    return d;
}

}  // namespace gpuconform
