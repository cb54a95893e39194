// Copy/compute overlap: a pinned 64 MiB H2D copy on stream A and a compute kernel of about the
// same length on stream B, each alone, then together. overlap = (t_a + t_b - t_both) / min(t_a, t_b).
#include <optional>

#include <fmt/format.h>

#include "async/async_checks.hpp"
#include "async/overlap.hpp"

namespace gpuconform {

namespace {

constexpr std::size_t k_bytes = std::size_t{64} << 20;
constexpr std::uint64_t k_max_iterations = std::uint64_t{1} << 36;
// Events must see at least this share of what the host saw for the same copy; far below it they
// are not timing the copy at all (generous: a busy host stretches its own timings).
constexpr double k_min_event_share = 0.1;
constexpr double k_calibration_ms = 0.5;  // long enough that launch overhead does not skew the scale

struct Rig {
    Backend& b;
    async::Stream& a;
    async::Stream& k;
    async::DeviceBuffer& dev;
    async::HostBuffer& host;
    float* sink;
    std::uint32_t seed;  // the host data's pattern
};

void enqueue_copy(Rig& g) {
    GC_CHECK(g.b.memcpy_async(g.dev.data(), g.host.data(), k_bytes, CopyKind::HostToDevice, g.a));
}

// Iterations that make the compute kernel take about target_ms by events; bounded, so events
// that time nothing cannot make it loop forever.
std::uint64_t calibrate(Rig& g, double target_ms) {
    std::uint64_t iterations = 1u << 12;
    for (;;) {
        const double ms =
            async::event_time_ms(g.b, g.k, [&] { GC_CHECK(g.b.launch_compute(g.k, iterations, g.sink)); });
        if (ms >= k_calibration_ms || iterations >= k_max_iterations) {
            return std::max<std::uint64_t>(1, static_cast<std::uint64_t>(iterations * target_ms / std::max(ms, 1e-3)));
        }
        iterations *= 4;
    }
}

// The copy timed by events, after a check against the host clock that events time anything at
// all (the first copy also maps the destination's pages, outside any timing).
std::optional<double> copy_event_ms(Rig& g, double* host_ms) {
    *host_ms = 1e9;
    for (int i = 0; i < 3; ++i) {
        const auto t0 = async::Clock::now();
        enqueue_copy(g);
        GC_CHECK(g.b.stream_synchronize(g.a));
        *host_ms = std::min(*host_ms, async::ms_since(t0));
    }
    const double ms = async::event_time_ms(g.b, g.a, [&] { enqueue_copy(g); });
    return ms >= k_min_event_share * *host_ms ? std::optional<double>(ms) : std::nullopt;
}

// Both at once behind one start gate; t_both is the later end. The destination is first
// overwritten on the device, so the check after proves this copy ran. *together is false when
// the gate had ended before both calls returned (a call that waited for its own work, or a host
// too slow to queue both): then the two did not start together and the figures are no evidence.
nlohmann::json concurrent(Rig& g, std::uint64_t iterations, double* t_both, bool* together) {
    async::Event b_begin(g.b), end_a(g.b), end_b(g.b);
    GC_CHECK(g.b.launch_fill(g.a, g.dev.data(), g.dev.words(), g.seed + 2));
    GC_CHECK(g.b.stream_synchronize(g.a));
    async::StartGate gate(g.b);
    gate.hold(g.a);
    gate.hold(g.k);
    const EventHandle start = gate.start();
    GC_CHECK(g.b.event_record(b_begin, g.k));
    enqueue_copy(g);
    GC_CHECK(g.b.launch_compute(g.k, iterations, g.sink));
    GC_CHECK(g.b.event_record(end_a, g.a));
    GC_CHECK(g.b.event_record(end_b, g.k));
    *together = gate.lift();  // the end events queued while the gate held: they stamp the work's end
    GC_CHECK(g.b.stream_synchronize(g.a));
    GC_CHECK(g.b.stream_synchronize(g.k));
    float copy_end = 0, kernel_begin = 0, kernel_end = 0;
    GC_CHECK(g.b.event_elapsed_ms(start, end_a, &copy_end));
    GC_CHECK(g.b.event_elapsed_ms(start, b_begin, &kernel_begin));
    GC_CHECK(g.b.event_elapsed_ms(start, end_b, &kernel_end));
    *t_both = std::max(copy_end, kernel_end);
    return nlohmann::json::array({{{"label", "copy"}, {"start_ms", 0.0}, {"end_ms", copy_end}},
                                  {{"label", "kernel"}, {"start_ms", kernel_begin}, {"end_ms", kernel_end}}});
}

void run(CheckContext& ctx, CheckResult& r) {
    Backend& b = *ctx.backend;
    const double min_ratio = ctx.expect(r, "overlap_min_ratio");
    async::Stream a(b, StreamKind::NonBlocking);
    async::Stream k(b, StreamKind::NonBlocking);
    async::warm_up(b, a);
    async::DeviceBuffer dev(b, k_bytes);
    async::DeviceBuffer sink(b, 4096);
    async::HostBuffer host(b, k_bytes, async::HostKind::Pinned);
    const std::uint32_t seed = async::fresh_seed();
    host.fill(seed);
    Rig g{b, a, k, dev, host, reinterpret_cast<float*>(sink.data()), seed};
    double copy_host_ms = 0;
    const auto copy_ms = copy_event_ms(g, &copy_host_ms);
    r.measurements.push_back(async::single("copy_host_timed_ms", copy_host_ms, "ms"));
    if (!copy_ms) {
        r.status = Status::Error;
        r.summary = fmt::format(
            "could not judge: events timed a 64 MiB copy as far shorter than the {:.2f} ms the "
            "host waited for it; see async.event.timing_accuracy",
            copy_host_ms);
        return;
    }
    const std::uint64_t iterations = calibrate(g, *copy_ms);
    async::OverlapRuns o;
    nlohmann::json timeline;
    for (int i = 0, reps = static_cast<int>(ctx.expect(r, "repetitions")); i < reps; ++i) {
        const double ta = async::event_time_ms(b, a, [&] { enqueue_copy(g); });
        const double tb = async::event_time_ms(b, k, [&] { GC_CHECK(b.launch_compute(k, iterations, g.sink)); });
        double both = 0;
        bool together = false;
        async::with_held_gate([&] {
            timeline = concurrent(g, iterations, &both, &together);
            return together;
        });
        o.add(ta, tb, both, together);
    }
    o.record(r, "copy", "kernel");
    r.facts["timeline"] = timeline;
    r.facts["compute_iterations"] = iterations;
    if (const std::uint64_t wrong = async::device_mismatches(b, a, dev, seed); wrong != 0) {
        r.status = Status::Fail;
        r.summary = fmt::format("the 64 MiB copy delivered {} wrong words while overlapping a kernel", wrong);
        r.remediation = "data corruption under concurrency: report the driver version; check for faulty hardware";
        return;
    }
    async::judge_overlap(r, o, min_ratio, "a 64 MiB pinned copy and a kernel",
                         "async.copy.pinned_returns_early and async.launch.returns_early",
                         "copies and kernels serialize: check CUDA_LAUNCH_BLOCKING, AMD_SERIALIZE_COPY/"
                         "AMD_SERIALIZE_KERNEL, HSA_ENABLE_SDMA=0, and that the host buffer is pinned");
}

}  // namespace

CheckDef make_async_overlap_copy_compute() {
    CheckDef d;
    d.id = "async.overlap.copy_compute";
    d.profile_keys = {
        keys::ratio("overlap_min_ratio"),
        keys::count("repetitions"),
    };
    d.measurements = {
        measure::key("overlap_ratio", Direction::Higher, 0.10),
        measure::diagnostic("*_ms", Direction::None, 0.20),
    };
    d.caught_by = {"pinned_copy_blocks", "launch_blocks", "events_ignored", "no_overlap", "copies_corrupt"};
    d.timing_sensitive = true;  // overlap is a ratio of durations
    d.rests_on_asynchrony = true;
    d.layer = "async";
    d.description = "A pinned H2D copy and a compute kernel on two streams overlap";
    d.scope = Scope::Device;
    d.timeout_s = 20;
    d.run = run;
    return d;
}

}  // namespace gpuconform
