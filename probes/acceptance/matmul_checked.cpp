// acceptance.compute.checked_matmul: a sustained matrix multiply on the matrix units (the vendor
// BLAS, FP16 inputs, FP32 accumulation) whose exact answer is known (backend/acceptance_ops.hpp:
// small integers, periodic, so C has a closed form). Every element of every product is compared
// with it on the device; one wrong element fails naming the GPU, the iteration and the element,
// which is how silent data corruption in a multiprocessor shows. The output is poisoned (NaN)
// before each multiply, so a product that was never written cannot pass on the last one's data.
#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "acceptance/common.hpp"
#include "acceptance/judges.hpp"
#include "async/toolkit.hpp"

namespace gpuconform {

namespace {

using namespace acceptance;

constexpr double k_share = 0.30;           // of --budget
constexpr std::uint64_t k_poison = ~0ull;  // two FP32 NaNs: never equal to anything

struct Shape {
    int m = 0, n = 0, k = 0;
    double flops() const { return 2.0 * m * n * k; }
};

Shape shape_of(const CheckContext& ctx, CheckResult& r) {
    Shape s;
    s.m = s.n = static_cast<int>(ctx.expect(r, "matrix_size"));
    s.k = static_cast<int>(ctx.expect(r, "inner_size"));
    if (s.k % k_gemm_inner_period != 0) {
        throw std::invalid_argument(fmt::format(
            "inner_size {} is not a multiple of {}: the product would have no known answer", s.k, k_gemm_inner_period));
    }
    return s;
}

void run_matmul(CheckContext& ctx, CheckResult& r) {
    Backend& b = *ctx.backend;
    AcceptanceOps& ops = ops_of(ctx);
    Budget budget(ctx, k_share);
    const Shape shape = shape_of(ctx, r);
    const auto peak = ctx.expect_optional(r, "peak_tflops");
    const double min_ratio = ctx.expect(r, "peak_min_ratio");

    async::Stream s(b, StreamKind::NonBlocking);
    const auto m = static_cast<std::size_t>(shape.m);
    const auto n = static_cast<std::size_t>(shape.n);
    const auto k = static_cast<std::size_t>(shape.k);
    DeviceMemory a(b, m * k * 2), bm(b, k * n * 2), c(b, m * n * 4);
    BadWordsOnDevice bad(b);
    call(ops.launch_gemm_inputs(s, a.get(), bm.get(), shape.m, shape.n, shape.k), "gemm inputs");

    async::Event start(b), end(b);
    std::vector<double> tflops;
    double gemm_s = 0;
    int iteration = 0;
    const auto loop_start = async::Clock::now();
    // The first multiply is the warm-up (library start, kernel choice): checked, not timed.
    for (; budget.another_round(); ++iteration) {
        call(ops.launch_memtest_write(s, c.as<std::uint64_t>(), m * n / 2, MemPattern::Solid, k_poison, false),
             "poison");
        bad.reset(s);
        GC_CHECK(b.event_record(start, s));
        call(ops.gemm(s, a.get(), bm.get(), c.as<float>(), shape.m, shape.n, shape.k), "gemm");
        GC_CHECK(b.event_record(end, s));
        call(ops.launch_gemm_check(s, c.as<float>(), shape.m, shape.n, shape.k, bad.get()), "gemm check");
        const BadWords seen = bad.read(s);  // synchronizes: the multiply and its check are done
        if (seen.count != 0) {
            const std::size_t x = seen.first_index;
            const std::size_t row = x % m;
            const std::size_t col = x / m;
            float value = 0;
            GC_CHECK(b.memcpy_async(&value, c.as<float>() + x, sizeof value, CopyKind::DeviceToHost, s));
            GC_CHECK(b.stream_synchronize(s));
            const float want = gemm_expected(row, col, shape.k);
            r.facts["wrong"] = {{"iteration", iteration}, {"row", row},       {"column", col},
                                {"value", value},         {"expected", want}, {"wrong_elements", seen.count}};
            r.status = Status::Fail;
            r.summary = fmt::format(
                "{}: iteration {}, element (row {}, column {}) of the {}x{} product is {} where "
                "{} is exact ({} wrong element{} in that product)",
                gpu_name(ctx), iteration, row, col, m, n, value, want, seen.count, seen.count == 1 ? "" : "s");
            r.remediation =
                "a GPU that computes wrong answers without an error (silent data corruption): take it "
                "out of service and RMA it; run the layer again to see whether it repeats";
            return;
        }
        if (iteration > 0) {
            float ms = 0;
            GC_CHECK(b.event_elapsed_ms(start, end, &ms));
            gemm_s += ms / 1e3;
            tflops.push_back(shape.flops() / (ms * 1e9));
        }
    }
    const double wall_s = async::ms_since(loop_start) / 1e3;
    const int timed = iteration - 1;
    if (timed < 1) {
        throw SkipCheck(
            fmt::format("the budget's {:.1f} s allowed only the warm-up multiply (checked, right)", budget.seconds()));
    }
    const double sustained = shape.flops() * timed / gemm_s / 1e12;
    r.measurements.push_back(async::single("sustained_tflops", sustained, "TFLOP/s"));
    r.measurements.push_back(summarize("multiply_tflops", "TFLOP/s", tflops));
    r.measurements.push_back(async::single("products_checked", iteration, "count"));
    r.measurements.push_back(async::single("loop_s", wall_s, "s"));
    if (peak && *peak > 0) {
        r.measurements.push_back(async::single("peak_ratio", sustained / *peak, "ratio"));
    }
    r.facts["shape"] = {{"m", shape.m}, {"n", shape.n}, {"k", shape.k}};
    r.facts["elements_checked"] = static_cast<double>(m * n) * iteration;
    const Verdict v = judge_matmul_rate(sustained, peak, min_ratio, ctx.props.arch);
    r.status = v.status;
    r.summary = fmt::format("{} products of {}x{}x{}, every element right; {}", iteration, shape.m, shape.n, shape.k,
                            v.summary);
    if (v.status == Status::Fail) {
        r.remediation =
            "matrix rate below its floor: look at acceptance.load.clocks (throttling, power cap) and "
            "the siblings; a GPU alone in being slow is suspect";
    }
}

}  // namespace

CheckDef make_acceptance_compute_checked_matmul() {
    CheckDef d;
    d.id = "acceptance.compute.checked_matmul";
    d.profile_keys = {
        keys::range("matrix_size", 16, 65536, true),
        keys::range("inner_size", 35, 65520, true),  // a multiple of 35 (the check says)
        keys::range("peak_tflops", 0.001, 100'000, false),
        keys::ratio("peak_min_ratio"),
        keys::ratio("sibling_max_shortfall_ratio"),
    };
    d.measurements = {
        measure::diagnostic("*_tflops", Direction::Higher, 0.10),
        measure::diagnostic("peak_ratio", Direction::Higher, 0.10),
        measure::diagnostic("*", Direction::None, 0.00),
    };
    d.layer = "acceptance";
    d.description =
        "Sustained FP16 matrix multiply on the matrix units, every element checked against the exact answer";
    d.scope = Scope::Device;
    d.timing_sensitive = true;
    d.parallel_devices = true;
    d.sibling_keys = {"sustained_tflops"};
    d.budget_share = k_share;
    d.caught_by = {"gemm_wrong_element"};
    d.run = run_matmul;
    return d;
}

}  // namespace gpuconform
