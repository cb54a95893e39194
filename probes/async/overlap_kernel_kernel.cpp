// Kernel/kernel overlap: two spins of ~10 ms on two non-blocking streams, each alone, then
// together. overlap = (t_a + t_b - t_both) / min(t_a, t_b); judged only where the device says it
// runs kernels concurrently.
#include <fmt/format.h>

#include "async/async_checks.hpp"
#include "async/overlap.hpp"

namespace gpuconform {

namespace {

// A spin timed by events as less than this share of its known length: the events are not timing it.
constexpr double k_min_event_share = 0.5;

// Both spins at once behind one start gate. *together is false when the gate had ended before
// both launches returned (a launch that waited for its kernel, or a host too slow to queue
// both): then the two did not start together and the figures are no evidence.
double both_ms(Backend& b, StreamHandle a, StreamHandle k, std::uint64_t spin_ns, bool* together) {
    async::Event end_a(b), end_b(b);
    async::StartGate gate(b);
    gate.hold(a);
    gate.hold(k);
    const EventHandle start = gate.start();
    GC_CHECK(b.launch_spin(a, spin_ns));
    GC_CHECK(b.launch_spin(k, spin_ns));
    GC_CHECK(b.event_record(end_a, a));
    GC_CHECK(b.event_record(end_b, k));
    *together = gate.lift();  // the end events queued while the gate held: they stamp the work's end
    GC_CHECK(b.stream_synchronize(a));
    GC_CHECK(b.stream_synchronize(k));
    float ms_a = 0, ms_b = 0;
    GC_CHECK(b.event_elapsed_ms(start, end_a, &ms_a));
    GC_CHECK(b.event_elapsed_ms(start, end_b, &ms_b));
    return std::max(ms_a, ms_b);
}

void run(CheckContext& ctx, CheckResult& r) {
    if (!ctx.props.concurrent_kernels) {
        throw SkipCheck("the device reports no concurrent kernel execution (concurrentKernels = 0)");
    }
    Backend& b = *ctx.backend;
    const double spin_ms = ctx.expect(r, "spin_ms");
    const double min_ratio = ctx.expect(r, "overlap_min_ratio");
    const auto spin_ns = static_cast<std::uint64_t>(spin_ms * 1e6);
    async::Stream a(b, StreamKind::NonBlocking);
    async::Stream k(b, StreamKind::NonBlocking);
    async::warm_up(b, a);
    async::OverlapRuns o;
    for (int i = 0, reps = static_cast<int>(ctx.expect(r, "repetitions")); i < reps; ++i) {
        const double ta = async::event_time_ms(b, a, [&] { GC_CHECK(b.launch_spin(a, spin_ns)); });
        const double tb = async::event_time_ms(b, k, [&] { GC_CHECK(b.launch_spin(k, spin_ns)); });
        bool together = false;
        double both = 0;
        async::with_held_gate([&] {
            both = both_ms(b, a, k, spin_ns, &together);
            return together;
        });
        o.add(ta, tb, both, together, std::min(ta, tb) >= k_min_event_share * spin_ms);
    }
    o.record(r, "kernel_a", "kernel_b");
    async::judge_overlap(r, o, min_ratio, fmt::format("two {:.0f} ms kernels on two streams", spin_ms),
                         "async.launch.returns_early",
                         "kernels on separate streams serialize: check CUDA_LAUNCH_BLOCKING, AMD_SERIALIZE_KERNEL, "
                         "CUDA_DEVICE_MAX_CONNECTIONS=1, MPS or a profiler forcing serialization");
}

}  // namespace

CheckDef make_async_overlap_kernel_kernel() {
    CheckDef d;
    d.id = "async.overlap.kernel_kernel";
    d.profile_keys = {
        keys::ms("spin_ms"),
        keys::ratio("overlap_min_ratio"),
        keys::count("repetitions"),
    };
    d.measurements = {
        measure::key("overlap_ratio", Direction::Higher, 0.10),
        measure::diagnostic("*_ms", Direction::None, 0.20),
    };
    d.caught_by = {"launch_blocks", "events_ignored", "no_overlap"};
    d.timing_sensitive = true;  // overlap is a ratio of durations
    d.rests_on_asynchrony = true;
    d.layer = "async";
    d.description = "Two kernels on two non-blocking streams run concurrently";
    d.scope = Scope::Device;
    d.timeout_s = 15;
    d.run = run;
    return d;
}

}  // namespace gpuconform
