// Kernel/kernel overlap: two spins of ~10 ms on two non-blocking streams, each alone, then
// together. overlap = (t_a + t_b - t_both) / min(t_a, t_b); judged only where the device says it
// runs kernels concurrently.
#include <fmt/format.h>

#include "async/async_checks.hpp"
#include "async/timing_pair.hpp"

namespace gpuconform {

namespace {

// A spin timed by events as less than this share of its known length: the events are not timing it.
constexpr double k_min_event_share = 0.5;

// Both spins at once; B waits a start event recorded on A, so both begin together.
double both_ms(Backend& b, StreamHandle a, StreamHandle k, std::uint64_t spin_ns) {
    async::Event start(b), end_a(b), end_b(b);
    GC_CHECK(b.event_record(start, a));
    GC_CHECK(b.stream_wait_event(k, start));
    GC_CHECK(b.launch_spin(a, spin_ns));
    GC_CHECK(b.launch_spin(k, spin_ns));
    GC_CHECK(b.event_record(end_a, a));
    GC_CHECK(b.event_record(end_b, k));
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
    std::vector<double> ta, tb, tboth, ratios;
    bool consistent = true;
    for (int i = 0; i < (ctx.options.quick ? 2 : 3); ++i) {
        ta.push_back(async::event_time_ms(b, a, [&] { GC_CHECK(b.launch_spin(a, spin_ns)); }));
        tb.push_back(async::event_time_ms(b, k, [&] { GC_CHECK(b.launch_spin(k, spin_ns)); }));
        tboth.push_back(both_ms(b, a, k, spin_ns));
        const auto ratio = async::overlap_ratio(ta.back(), tb.back(), tboth.back());
        consistent = consistent && ratio.has_value() && std::min(ta.back(), tb.back()) >= k_min_event_share * spin_ms;
        ratios.push_back(ratio.value_or(0));
    }
    r.measurements.push_back(summarize("kernel_a_alone_ms", "ms", ta));
    r.measurements.push_back(summarize("kernel_b_alone_ms", "ms", tb));
    r.measurements.push_back(summarize("both_ms", "ms", tboth));
    r.measurements.push_back(summarize("overlap_ratio", "ratio", ratios));
    const double ratio = median(ratios);
    const std::string figures =
        fmt::format("alone {:.2f} and {:.2f} ms, together {:.2f} ms", median(ta), median(tb), median(tboth));
    if (!consistent) {
        r.status = Status::Error;
        r.summary = fmt::format("could not judge: event timings of {:.0f} ms spins are inconsistent ({}); see "
                                "async.event.timing_accuracy",
                                spin_ms, figures);
    } else if (ratio >= min_ratio) {
        r.status = Status::Pass;
        r.summary = fmt::format("two {:.0f} ms kernels on two streams overlapped {:.0f}% ({})", spin_ms, ratio * 100,
                                figures);
    } else {
        r.status = Status::Fail;
        r.summary = fmt::format("two {:.0f} ms kernels on two streams overlapped only {:.0f}% (need {:.0f}%): {}",
                                spin_ms, ratio * 100, min_ratio * 100, figures);
        r.remediation = "kernels on separate streams serialize: check CUDA_LAUNCH_BLOCKING, AMD_SERIALIZE_KERNEL, "
                        "CUDA_DEVICE_MAX_CONNECTIONS=1, MPS or a profiler forcing serialization";
    }
}

}  // namespace

CheckDef make_async_overlap_kernel_kernel() {
    CheckDef d;
    d.id = "async.overlap.kernel_kernel";
    d.layer = "async";
    d.description = "Two kernels on two non-blocking streams run concurrently";
    d.scope = Scope::Device;
    d.timeout_s = 15;
    d.run = run;
    return d;
}

}  // namespace gpuconform
