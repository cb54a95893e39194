// Copy/compute overlap: a pinned 64 MiB H2D copy on stream A and a compute kernel of about the
// same length on stream B, each alone, then together. overlap = (t_a + t_b - t_both) / min(t_a, t_b).
#include <fmt/format.h>

#include "async/async_checks.hpp"
#include "async/timing_pair.hpp"

namespace gpuconform {

namespace {

constexpr std::size_t k_bytes = std::size_t{64} << 20;
constexpr std::uint64_t k_max_iterations = std::uint64_t{1} << 36;
// Events must see at least this share of what the host saw for the same copy (launch overhead
// is microseconds against a millisecond copy); below it the events are not timing the copy.
constexpr double k_min_event_share = 0.5;

struct Rig {
    Backend& b;
    async::Stream& a;
    async::Stream& k;
    async::DeviceBuffer& dev;
    async::HostBuffer& host;
    float* sink;
};

void enqueue_copy(Rig& g) {
    GC_CHECK(g.b.memcpy_async(g.dev.data(), g.host.data(), k_bytes, CopyKind::HostToDevice, g.a));
}

// Iterations that make the compute kernel take about target_ms; host-timed, so a broken event
// cannot make it loop forever.
std::uint64_t calibrate(Rig& g, double target_ms) {
    std::uint64_t iterations = 1u << 12;
    for (;;) {
        const auto t0 = async::Clock::now();
        GC_CHECK(g.b.launch_compute(g.k, iterations, g.sink));
        GC_CHECK(g.b.stream_synchronize(g.k));
        const double ms = async::ms_since(t0);
        if (ms >= 0.5 || iterations >= k_max_iterations) {
            return std::max<std::uint64_t>(1, static_cast<std::uint64_t>(iterations * target_ms / ms));
        }
        iterations *= 4;
    }
}

// Both at once: B starts with A (it waits a start event recorded on A); t_both is the later end.
nlohmann::json concurrent(Rig& g, std::uint64_t iterations, double* t_both) {
    async::Event start(g.b), b_begin(g.b), end_a(g.b), end_b(g.b);
    GC_CHECK(g.b.event_record(start, g.a));
    GC_CHECK(g.b.stream_wait_event(g.k, start));
    GC_CHECK(g.b.event_record(b_begin, g.k));
    enqueue_copy(g);
    GC_CHECK(g.b.launch_compute(g.k, iterations, g.sink));
    GC_CHECK(g.b.event_record(end_a, g.a));
    GC_CHECK(g.b.event_record(end_b, g.k));
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
    Rig g{b, a, k, dev, host, reinterpret_cast<float*>(sink.data())};
    // Host-timed, so the kernel is sized (and the events checked) without trusting events.
    const auto t0 = async::Clock::now();
    enqueue_copy(g);
    GC_CHECK(b.stream_synchronize(a));
    const double copy_host_ms = async::ms_since(t0);
    const std::uint64_t iterations = calibrate(g, copy_host_ms);
    std::vector<double> ta, tb, tboth, ratios;
    nlohmann::json timeline;
    bool consistent = true;
    for (int i = 0; i < (ctx.options.quick ? 2 : 3); ++i) {
        ta.push_back(async::event_time_ms(b, a, [&] { enqueue_copy(g); }));
        tb.push_back(async::event_time_ms(b, k, [&] { GC_CHECK(b.launch_compute(k, iterations, g.sink)); }));
        double both = 0;
        timeline = concurrent(g, iterations, &both);
        tboth.push_back(both);
        const auto ratio = async::overlap_ratio(ta.back(), tb.back(), both);
        consistent = consistent && ratio.has_value();
        ratios.push_back(ratio.value_or(0));
    }
    r.measurements.push_back(summarize("copy_alone_ms", "ms", ta));
    r.measurements.push_back(summarize("kernel_alone_ms", "ms", tb));
    r.measurements.push_back(summarize("both_ms", "ms", tboth));
    r.measurements.push_back(summarize("overlap_ratio", "ratio", ratios));
    r.facts["timeline"] = timeline;
    r.facts["compute_iterations"] = iterations;
    const std::uint64_t wrong = async::device_mismatches(b, a, dev, seed);
    const double ratio = median(ratios);
    consistent = consistent && median(ta) >= k_min_event_share * copy_host_ms;
    const std::string figures = fmt::format("copy {:.2f} ms, kernel {:.2f} ms, both {:.2f} ms", median(ta),
                                            median(tb), median(tboth));
    if (wrong != 0) {
        r.status = Status::Fail;
        r.summary = fmt::format("the 64 MiB copy delivered {} wrong words while overlapping a kernel", wrong);
        r.remediation = "data corruption under concurrency: report the driver version; check for faulty hardware";
    } else if (!consistent) {
        r.status = Status::Error;
        r.summary = fmt::format("could not judge: event timings are inconsistent ({}); see async.event.timing_accuracy",
                                figures);
    } else if (ratio >= min_ratio) {
        r.status = Status::Pass;
        r.summary = fmt::format("a 64 MiB pinned copy and a kernel overlapped {:.0f}% ({})", ratio * 100, figures);
    } else {
        r.status = Status::Fail;
        r.summary = fmt::format("a 64 MiB pinned copy and a kernel overlapped only {:.0f}% (need {:.0f}%): {}",
                                ratio * 100, min_ratio * 100, figures);
        r.remediation = "copies and kernels serialize: check CUDA_LAUNCH_BLOCKING, AMD_SERIALIZE_COPY/"
                        "AMD_SERIALIZE_KERNEL, HSA_ENABLE_SDMA=0, and that the host buffer is pinned";
    }
}

}  // namespace

CheckDef make_async_overlap_copy_compute() {
    CheckDef d;
    d.id = "async.overlap.copy_compute";
    d.layer = "async";
    d.description = "A pinned H2D copy and a compute kernel on two streams overlap";
    d.scope = Scope::Device;
    d.timeout_s = 20;
    d.run = run;
    return d;
}

}  // namespace gpuconform
