// acceptance.hbm.bandwidth: BabelStream's method on the device's own memory (copy, mul, add,
// triad over three large arrays of doubles; warm-up, then many timed iterations, each kernel
// timed with device events; the best rate counts), judged against the theoretical peak of the
// memory interface the runtime reports. The arrays are checked against the values the same
// sequence gives on the host, as BabelStream's check_solution does.
#include <algorithm>
#include <bit>
#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "acceptance/common.hpp"
#include "acceptance/judges.hpp"
#include "async/toolkit.hpp"

namespace gpuconform {

namespace {

using namespace acceptance;

constexpr double k_share = 0.10;   // of --budget
constexpr double k_start_a = 0.1;  // BabelStream's startA, startB, startC and startScalar
constexpr double k_start_b = 0.2;
constexpr double k_start_c = 0.0;
constexpr double k_scalar = 0.4;
constexpr int k_warm_up_iterations = 2;
constexpr std::size_t k_checked_elements = 1 << 20;  // from the start of each array

struct Kernel {
    StreamOp op;
    const char* name;
    int arrays_moved;  // doubles read and written per element
};
constexpr Kernel k_kernels[]{
    {StreamOp::Copy, "copy", 2}, {StreamOp::Scale, "mul", 2}, {StreamOp::Add, "add", 3}, {StreamOp::Triad, "triad", 3}};

void fill(AcceptanceOps& ops, StreamHandle s, void* array, std::size_t n, double value) {
    call(ops.launch_memtest_write(s, static_cast<std::uint64_t*>(array), n, MemPattern::Solid,
                                  std::bit_cast<std::uint64_t>(value), false),
         "fill");
}

// The values every element holds after `iterations` of the four kernels.
struct Expected {
    double a = k_start_a, b = k_start_b, c = k_start_c;
    void iterate(int iterations) {
        for (int i = 0; i < iterations; ++i) {
            c = a;
            b = k_scalar * c;
            c = a + b;
            a = b + k_scalar * c;
        }
    }
};

void verify(Backend& b, StreamHandle s, const DeviceMemory& array, std::size_t n, double expected, const char* name) {
    const std::size_t count = std::min(n, k_checked_elements);
    std::vector<double> host(count);
    GC_CHECK(b.memcpy_async(host.data(), array.get(), count * sizeof(double), CopyKind::DeviceToHost, s));
    GC_CHECK(b.stream_synchronize(s));
    for (std::size_t i = 0; i < count; ++i) {
        if (std::fabs(host[i] - expected) > std::fabs(expected) * 1e-8) {
            throw WrongData(fmt::format("array {} element {} is {} after the timed kernels, expected {}", name, i,
                                        host[i], expected));
        }
    }
}

void run_hbm(CheckContext& ctx, CheckResult& r) {
    Backend& b = *ctx.backend;
    AcceptanceOps& ops = ops_of(ctx);
    Budget budget(ctx, k_share);
    const auto array_bytes = static_cast<std::size_t>(ctx.expect(r, "array_bytes"));
    const int wanted = static_cast<int>(ctx.expect(r, "iterations"));
    const double min_ratio = ctx.expect(r, "peak_min_ratio");
    const std::size_t n = array_bytes / sizeof(double);

    int clock_khz = 0;
    int bus_bits = 0;
    std::optional<double> peak;
    if (ops.memory_interface(ctx.device, &clock_khz, &bus_bits).ok() && clock_khz > 0 && bus_bits > 0) {
        peak = peak_memory_gbps(clock_khz, bus_bits);
        r.facts["memory_clock_khz"] = clock_khz;
        r.facts["memory_bus_bits"] = bus_bits;
    }

    async::Stream s(b, StreamKind::NonBlocking);
    DeviceMemory a(b, n * sizeof(double)), bb(b, n * sizeof(double)), c(b, n * sizeof(double));
    fill(ops, s, a.get(), n, k_start_a);
    fill(ops, s, bb.get(), n, k_start_b);
    fill(ops, s, c.get(), n, k_start_c);
    auto* pa = a.as<double>();
    auto* pb = bb.as<double>();
    auto* pc = c.as<double>();

    // Warm-up, timed as a whole to plan how many iterations the budget allows.
    const double warm_ms = async::event_time_ms(b, s, [&] {
        for (int i = 0; i < k_warm_up_iterations; ++i) {
            for (const auto& k : k_kernels) {
                call(ops.launch_stream(s, k.op, pa, pb, pc, n, k_scalar), k.name);
            }
        }
    });
    const double per_iteration_s = warm_ms / 1e3 / k_warm_up_iterations;
    const int affordable = static_cast<int>(budget.left_s() * 0.8 / std::max(per_iteration_s, 1e-6));
    const int iterations = std::max(1, std::min(wanted, affordable));
    if (iterations < wanted) {
        r.facts["shortened"] = fmt::format("{} of {} iterations fit the {:.1f} s share of the budget", iterations,
                                           wanted, budget.seconds());
    }

    std::vector<std::vector<double>> gbps(std::size(k_kernels));
    async::Event start(b), end(b);
    int done = 0;
    for (; done < iterations && budget.another_round(); ++done) {
        for (std::size_t k = 0; k < std::size(k_kernels); ++k) {
            GC_CHECK(b.event_record(start, s));
            call(ops.launch_stream(s, k_kernels[k].op, pa, pb, pc, n, k_scalar), k_kernels[k].name);
            GC_CHECK(b.event_record(end, s));
            GC_CHECK(b.event_synchronize(end));
            float ms = 0;
            GC_CHECK(b.event_elapsed_ms(start, end, &ms));
            const double bytes = static_cast<double>(k_kernels[k].arrays_moved) * n * sizeof(double);
            gbps[k].push_back(bytes / (ms * 1e6));
        }
    }
    if (done < iterations) {
        r.facts["shortened"] =
            fmt::format("{} of {} iterations ran in the {:.1f} s share of the budget", done, wanted, budget.seconds());
    }
    Expected expected;
    expected.iterate(k_warm_up_iterations + done);
    verify(b, s, a, n, expected.a, "a");
    verify(b, s, bb, n, expected.b, "b");
    verify(b, s, c, n, expected.c, "c");

    double triad_best = 0;
    for (std::size_t k = 0; k < std::size(k_kernels); ++k) {
        const double best = *std::max_element(gbps[k].begin(), gbps[k].end());
        r.measurements.push_back(async::single(fmt::format("{}_gbps", k_kernels[k].name), best, "GB/s"));
        r.measurements.push_back(summarize(fmt::format("{}_median_gbps", k_kernels[k].name), "GB/s", gbps[k]));
        triad_best = k_kernels[k].op == StreamOp::Triad ? best : triad_best;
    }
    if (peak) {
        r.measurements.push_back(async::single("peak_gbps", *peak, "GB/s"));
        r.measurements.push_back(async::single("triad_peak_ratio", triad_best / *peak, "ratio"));
    }
    r.facts["array_bytes"] = n * sizeof(double);
    r.facts["iterations"] = done;
    const Verdict v = judge_hbm(triad_best, peak, min_ratio);
    r.status = v.status;
    r.summary = v.summary;
    if (v.status == Status::Fail) {
        r.remediation =
            "HBM below its floor: compare with the node's siblings and BabelStream; check "
            "health.clocks for a memory clock held low, and reseat or RMA the GPU if it stays slow";
    }
}

}  // namespace

CheckDef make_acceptance_hbm_bandwidth() {
    CheckDef d;
    d.id = "acceptance.hbm.bandwidth";
    d.profile_keys = {
        keys::range("array_bytes", 1 << 20, 1ull << 36, true),
        keys::count("iterations"),
        keys::ratio("peak_min_ratio"),
        keys::ratio("sibling_max_shortfall_ratio"),
    };
    d.measurements = {
        measure::diagnostic("*_gbps", Direction::Higher, 0.10),
        measure::diagnostic("triad_peak_ratio", Direction::Higher, 0.10),
    };
    d.layer = "acceptance";
    d.description = "HBM bandwidth (BabelStream's copy, mul, add, triad) against the memory interface's peak";
    d.scope = Scope::Device;
    d.timing_sensitive = true;
    d.sibling_keys = {"triad_gbps"};
    d.parallel_devices = true;  // each GPU's own memory: every GPU at once
    d.budget_share = k_share;
    d.caught_by = {"slow_hbm"};
    d.run = run_hbm;
    return d;
}

}  // namespace gpuconform
