// async.peer.event_order: an event recorded on one device's stream, waited on by another
// device's stream, orders a peer copy after the producer's kernel: never stale.
#include <fmt/format.h>

#include "async/async_checks.hpp"
#include "async/peer_common.hpp"
#include "async/toolkit.hpp"

namespace gpuconform {

namespace {

using namespace async;

// Pairs to try: both directions for two devices; a ring (i → i+1) beyond, to bound the time.
// Each pair is judged on its own, so with --device only the pairs that include a chosen GPU run.
std::vector<std::pair<int, int>> pairs_for(int n, const RunOptions& options) {
    std::vector<std::pair<int, int>> out;
    for (int i = 0; i < n; ++i) {
        if (pair_chosen(options, i, (i + 1) % n)) {
            out.emplace_back(i, (i + 1) % n);  // for two devices this is 0→1 and 1→0
        }
    }
    return out;
}

int stale_trials(Backend& b, int i, int j, int trials, std::size_t bytes, std::uint64_t gate) {
    GC_CHECK(b.set_device(i));
    Stream producer(b, StreamKind::NonBlocking);
    DeviceBuffer src(b, bytes);
    Event ready(b, false);
    GC_CHECK(b.set_device(j));
    Stream consumer(b, StreamKind::NonBlocking);
    DeviceBuffer dst(b, bytes);
    int stale = 0;
    for (int t = 0; t < trials; ++t) {
        const std::uint32_t seed = fresh_seed();
        GC_CHECK(b.set_device(i));
        GC_CHECK(b.launch_spin(producer, gate));  // the producer is still busy when the consumer queues
        GC_CHECK(b.launch_fill(producer, src.data(), src.words(), seed));
        GC_CHECK(b.event_record(ready, producer));
        GC_CHECK(b.set_device(j));
        GC_CHECK(b.stream_wait_event(consumer, ready));
        GC_CHECK(b.memcpy_peer_async(dst.data(), j, src.data(), i, bytes, consumer));
        stale += device_mismatches(b, consumer, dst, seed) != 0 ? 1 : 0;
    }
    GC_CHECK(b.set_device(i));
    GC_CHECK(b.stream_synchronize(producer));
    return stale;
}

void run(CheckContext& ctx, CheckResult& r) {
    Backend& b = *ctx.backend;
    const int n = ctx.backend_info->device_count;
    require_two_devices(n);
    const int trials = static_cast<int>(ctx.expect(r, "trials"));
    const auto gate = static_cast<std::uint64_t>(ctx.expect(r, "gate_ms") * 1e6);
    std::string bad;
    int total = 0;
    for (const auto& [i, j] : pairs_for(n, ctx.options)) {
        const int stale = stale_trials(b, i, j, trials, 16u << 20, gate);
        total += trials;
        r.measurements.push_back(
            {fmt::format("stale_{}to{}", i, j), static_cast<double>(stale), "trials", trials, {}, {}});
        if (stale > 0) {
            bad += fmt::format("{}{}→{} ({}/{})", bad.empty() ? "" : ", ", i, j, stale, trials);
        }
    }
    if (!bad.empty()) {
        r.status = Status::Fail;
        r.summary = "a stream waiting on another device's event read stale data: " + bad;
        r.remediation = "cross-device event waits do not order work here: check the driver version and peer support";
        return;
    }
    r.status = Status::Pass;
    r.summary =
        fmt::format("cross-device event waits ordered every peer copy after its producer ({} trials over {} pairs{})",
                    total, pairs_for(n, ctx.options).size(),
                    some_devices_chosen(ctx.options, n) ? ", those with a GPU --device chose" : "");
}

}  // namespace

CheckDef make_async_peer_event_order() {
    CheckDef d;
    d.id = "async.peer.event_order";
    d.profile_keys = {
        keys::ms("gate_ms"),
        keys::count("trials"),
    };
    d.measurements = {
        measure::diagnostic("stale_*", Direction::Lower, 0.00),
    };
    d.caught_by = {"events_ignored+peer"};
    d.timing_sensitive = false;  // event order
    d.layer = "async";
    d.description = "An event on one GPU's stream, waited on by another GPU's stream, orders a peer copy";
    d.scope = Scope::Node;
    d.timeout_s = 60;
    d.run = run;
    return d;
}

}  // namespace gpuconform
