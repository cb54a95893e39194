// async.copy.bidirectional: H2D and D2H at once on two streams against one direction alone.
// Judged where the device reports two or more copy engines; ROCm reports a constant there, so
// on AMD the figure is recorded, not judged (docs/vendor-behaviour.md).
#include <algorithm>
#include <memory>

#include <fmt/format.h>

#include "async/async_checks.hpp"
#include "async/copy_common.hpp"
#include "async/judges.hpp"

namespace gpuconform {

namespace {

using namespace async;

struct Pair {
    HostBuffer h2d_src, d2h_dst;
    DeviceBuffer h2d_dst, d2h_src;
    Pair(Backend& b, std::size_t bytes, BufferSource from)
        : h2d_src(b, bytes, HostKind::Pinned, from, 0),
          d2h_dst(b, bytes, HostKind::Pinned, from, 1),
          h2d_dst(b, bytes, from, 0),
          d2h_src(b, bytes, from, 1) {}
};

// nvbandwidth's method (testcases_ce.cpp, memcpy.cpp): both directions held behind one spin,
// a train of copies queued on each, released together; each direction's rate is timed from the
// common start to its own events, and counts only copies that ended while the other direction
// was still copying, so neither figure includes a stretch where it ran alone.
struct Train {
    std::vector<float> ends_ms;  // from the common start to the end of copy i
};

// Rate over the copies of `t` that ended by `window_ms`; 0 when none did (no overlap at all).
double rate_within(const Train& t, double window_ms, std::size_t bytes) {
    std::size_t done = 0;
    while (done < t.ends_ms.size() && t.ends_ms[done] <= window_ms) {
        ++done;
    }
    return done == 0 ? 0.0 : static_cast<double>(bytes) * done / (t.ends_ms[done - 1] * 1e6);
}

// Queues `count` copies of one direction on `s` with an event after each.
void queue_train(Backend& b, StreamHandle s, CopyKind kind, void* dst, const void* src, std::size_t bytes, int count,
                 std::vector<std::unique_ptr<Event>>& ends) {
    for (int i = 0; i < count; ++i) {
        GC_CHECK(b.memcpy_async(dst, src, bytes, kind, s));
        ends.push_back(std::make_unique<Event>(b));
        GC_CHECK(b.event_record(*ends.back(), s));
    }
}

Train times_of(Backend& b, EventHandle start, const std::vector<std::unique_ptr<Event>>& ends) {
    Train t;
    for (const auto& e : ends) {
        float ms = 0;
        GC_CHECK(b.event_elapsed_ms(start, *e, &ms));
        t.ends_ms.push_back(ms);
    }
    return t;
}

// One direction's train alone, between two events on its own stream, held until it is queued.
double alone_gbps(Backend& b, Stream& s, CopyKind kind, void* dst, const void* src, std::size_t bytes, int count) {
    const double ms = held_event_time_ms(b, s, [&] {
        for (int i = 0; i < count; ++i) {
            GC_CHECK(b.memcpy_async(dst, src, bytes, kind, s));
        }
    });
    return static_cast<double>(bytes) * count / (ms * 1e6);
}

// Both directions at once; *held is false when the host queued them too slowly for the gate to
// line them up, and the figure is then no evidence.
double both_gbps(Backend& b, Stream& a, Stream& c, Pair& p, std::size_t bytes, int count, bool* held,
                 bool* launch_blocked) {
    StartGate gate(b);
    *launch_blocked = gate.launch_blocked();
    gate.hold(a);
    gate.hold(c);
    std::vector<std::unique_ptr<Event>> ends_a, ends_c;
    queue_train(b, a, CopyKind::HostToDevice, p.h2d_dst.data(), p.h2d_src.data(), bytes, count, ends_a);
    queue_train(b, c, CopyKind::DeviceToHost, p.d2h_dst.data(), p.d2h_src.data(), bytes, count, ends_c);
    *held = gate.lift();
    GC_CHECK(b.event_synchronize(*ends_a.back()));
    GC_CHECK(b.event_synchronize(*ends_c.back()));
    const Train ta = times_of(b, gate.start(), ends_a);
    const Train tc = times_of(b, gate.start(), ends_c);
    const double window = std::min(ta.ends_ms.back(), tc.ends_ms.back());
    return rate_within(ta, window, bytes) + rate_within(tc, window, bytes);
}

void run(CheckContext& ctx, CheckResult& r) {
    Backend& b = *ctx.backend;
    Stream a(b, StreamKind::NonBlocking);
    Stream c(b, StreamKind::NonBlocking);
    warm_up(b, a);
    // Trains of 768 MiB (--quick) or 1 GiB a direction (the profile's train_copies x copy_bytes):
    // 15-20 ms on PCIe Gen5, long enough that the start gate's own skew (microseconds) is far
    // below the 2 % the figure is read to.
    const auto bytes = static_cast<std::size_t>(ctx.expect(r, "copy_bytes"));
    const int count = static_cast<int>(ctx.expect(r, "train_copies"));
    Pair p(b, bytes, buffers_of(ctx));
    const std::uint32_t seed_h = fresh_seed(), seed_d = fresh_seed();
    p.h2d_src.fill(seed_h);
    GC_CHECK(b.launch_fill(c, p.d2h_src.data(), p.d2h_src.words(), seed_d));
    GC_CHECK(b.stream_synchronize(c));
    std::vector<double> h2d, d2h, both;
    for (int i = 0; i < 4; ++i) {  // the first round is a warm-up, not kept
        const double th = alone_gbps(b, a, CopyKind::HostToDevice, p.h2d_dst.data(), p.h2d_src.data(), bytes, count);
        const double td = alone_gbps(b, c, CopyKind::DeviceToHost, p.d2h_dst.data(), p.d2h_src.data(), bytes, count);
        double tb = 0;
        bool launch_blocked = false;
        if (!with_held_gate([&] {
                bool held = false;
                tb = both_gbps(b, a, c, p, bytes, count, &held, &launch_blocked);
                return held;
            })) {
            throw std::runtime_error(launch_blocked
                                         ? "could not line up the two copies: the start gate's launch returned only "
                                           "after its spin had ended (synchronous launches; see "
                                           "async.launch.returns_early)"
                                         : "could not line up the two copies: the host took longer than the start "
                                           "gate to queue them, three times (an overloaded host?)");
        }
        if (i > 0) {
            h2d.push_back(th);
            d2h.push_back(td);
            both.push_back(tb);
        }
    }
    if (device_mismatches(b, a, p.h2d_dst, seed_h) != 0 || p.d2h_dst.mismatches(seed_d) != 0) {
        throw WrongData("bidirectional copies delivered wrong data");
    }
    r.measurements.push_back(summarize("bw_pinned_H2D_alone", "GB/s", h2d));
    r.measurements.push_back(summarize("bw_pinned_D2H_alone", "GB/s", d2h));
    r.measurements.push_back(summarize("bw_bidirectional_aggregate", "GB/s", both));
    const double single = std::max(median(h2d), median(d2h));
    const double gain = median(both) / single;
    r.measurements.push_back({"aggregate_over_single_ratio", gain, "ratio", 1, {}, {}});
    r.facts["async_engine_count"] = ctx.props.async_engine_count;
    const auto line = fmt::format(
        "both directions {:.1f} GB/s vs one direction {:.1f} GB/s ({:.2f}×); device reports {} copy engines",
        median(both), single, gain, ctx.props.async_engine_count);
    if (ctx.backend->vendor() == "amd") {
        r.status = Status::Info;
        r.summary = line + " (ROCm reports a constant, not a count: not judged)";
        return;
    }
    if (ctx.props.async_engine_count < 2) {
        r.status = Status::Info;
        r.summary = line + " (fewer than two engines: no overlap expected)";
        return;
    }
    const double need = ctx.expect(r, "aggregate_gain_min_ratio");
    r.status = gain >= need ? Status::Pass : Status::Fail;
    r.summary = line + (gain >= need ? "" : fmt::format("; at least {:.2f}× expected with two engines", need));
    if (r.status == Status::Fail) {
        r.remediation =
            "H2D and D2H serialize although the device reports separate copy engines: check the PCIe link "
            "and switch, IOMMU settings, and whether another process uses the engines";
        const double best_round = best_round_gain(h2d, d2h, both);
        if (best_round >= need) {
            mark_link_unsteady(r, fmt::format("both directions at once reached {:.2f}× one direction", best_round),
                               fmt::format("the median round read {:.2f}×", gain));
        }
    }
}

}  // namespace

CheckDef make_async_copy_bidirectional() {
    CheckDef d;
    d.id = "async.copy.bidirectional";
    d.profile_keys = {
        keys::ratio("aggregate_gain_min_ratio", 2),  // two directions at most double
        keys::ratio("sibling_max_shortfall_ratio"),
        keys::copy_bytes(),
        keys::count("train_copies"),
    };
    d.measurements = {
        // Both directions at once dip on healthy H200s now and then, all rounds of a run together
        // (92.9 to 102.4 GB/s over 20 runs; 87.6 on another machine, 14.7% below a run's min,
        // reports/samples/ubuntu24.04-h200-2026-12-01-reader/), while each direction alone stays
        // within 4%. A lost copy engine halves the figure (and fails the check).
        measure::key("bw_bidirectional_aggregate", Direction::Higher, 0.18),
        measure::key("aggregate_over_single_ratio", Direction::Higher, 0.16),
        measure::key("bw_*", Direction::Higher, 0.10),
    };
    // launch_blocks: the start gate's spin has ended before its launch returns, so the two
    // directions cannot be lined up: error, never a figure.
    d.caught_by = {"pinned_copy_blocks", "launch_blocks",   "events_ignored", "one_copy_engine",
                   "no_overlap",         "degraded_link@3", "pinned_limit",   "copies_corrupt"};
    d.timing_sensitive = true;  // a rate ratio: another user shares the engines
    d.rests_on_asynchrony = true;
    d.layer = "async";
    d.description = "H2D and D2H at once on two streams: aggregate against one direction";
    d.scope = Scope::Device;
    d.timeout_s = 30;
    d.sibling_keys = {"bw_bidirectional_aggregate"};
    d.run = run;
    return d;
}

}  // namespace gpuconform
