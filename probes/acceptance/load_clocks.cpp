// acceptance.load.clocks: the GPU under a sustained matrix multiply for its share of the budget,
// its clocks, temperature, power and clock-event reasons sampled throughout. Thermal slowdown or a
// power brake under load fails naming the reason; so does a median clock far below the maximum.
// A GPU far below identical siblings fails by the sibling rule on its median clock. The products
// are not checked here (acceptance.compute.checked_matmul does that): this check is the load.
#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "acceptance/common.hpp"
#include "acceptance/judges.hpp"
#include "acceptance/load_sampler.hpp"
#include "async/toolkit.hpp"

namespace gpuconform {

namespace {

using namespace acceptance;

constexpr double k_share = 0.15;  // of --budget

void run_load(CheckContext& ctx, CheckResult& r) {
    Backend& b = *ctx.backend;
    AcceptanceOps& ops = ops_of(ctx);
    Budget budget(ctx, k_share);
    const int size = static_cast<int>(ctx.expect(r, "matrix_size"));
    const int inner = static_cast<int>(ctx.expect(r, "inner_size"));
    const double period_ms = ctx.expect(r, "sample_ms");
    const double clock_min_ratio = ctx.expect(r, "clock_min_ratio");
    std::string why;
    LoadReader reader = load_reader_for(ctx, &why);
    if (!reader) {
        throw SkipCheck(why);
    }

    async::Stream s(b, StreamKind::NonBlocking);
    const auto n = static_cast<std::size_t>(size);
    const auto k = static_cast<std::size_t>(inner);
    DeviceMemory a(b, n * k * 2), bm(b, k * n * 2), c(b, n * n * 4);
    call(ops.launch_gemm_inputs(s, a.get(), bm.get(), size, size, inner), "gemm inputs");
    call(ops.gemm(s, a.get(), bm.get(), c.as<float>(), size, size, inner), "gemm");  // library start-up
    GC_CHECK(b.stream_synchronize(s));

    LoadSampler sampler(reader, period_ms);
    int products = 0;
    while (budget.another_round()) {
        // A few multiplies queued at a time keep the GPU busy without the host running far ahead.
        for (int i = 0; i < 4; ++i, ++products) {
            call(ops.gemm(s, a.get(), bm.get(), c.as<float>(), size, size, inner), "gemm");
        }
        GC_CHECK(b.stream_synchronize(s));
    }
    const std::vector<LoadSample> samples = sampler.stop();
    if (samples.empty() && !sampler.first_error().empty()) {
        throw SkipCheck("no clock could be read under load: " + sampler.first_error());
    }
    std::vector<double> clocks, temps, power;
    for (const auto& x : samples) {
        if (x.sm_clock_mhz >= 0) {
            clocks.push_back(x.sm_clock_mhz);
        }
        if (x.temperature_c >= 0) {
            temps.push_back(x.temperature_c);
        }
        if (x.power_w >= 0) {
            power.push_back(x.power_w);
        }
    }
    if (!clocks.empty()) {
        r.measurements.push_back(summarize("sm_clock_mhz", "MHz", clocks));
    }
    if (!temps.empty()) {
        r.measurements.push_back(summarize("temperature_c", "C", temps));
    }
    if (!power.empty()) {
        r.measurements.push_back(summarize("power_w", "W", power));
    }
    nlohmann::json record = nlohmann::json::array();
    std::uint64_t reasons = 0;
    for (const auto& x : samples) {
        record.push_back({x.sm_clock_mhz, x.temperature_c, x.power_w, x.clock_event_reasons});
        reasons |= x.clock_event_reasons;
    }
    r.facts["samples"] = {{"columns", {"sm_clock_mhz", "temperature_c", "power_w", "clock_event_reasons"}},
                          {"period_ms", period_ms},
                          {"rows", record}};
    r.facts["clock_event_reasons_seen"] = throttle_reason_names(reasons);
    r.facts["products"] = products;
    r.facts["load_s"] = budget.elapsed_s();
    const Verdict v = judge_clocks(samples, clock_min_ratio);
    r.status = v.status;
    r.summary = fmt::format("{} under {:.1f} s of matrix multiplies", v.summary, budget.elapsed_s());
    if (v.status == Status::Fail) {
        r.remediation =
            "a GPU that slows itself under load: check its cooling (fans, airflow, inlet temperature) "
            "and power delivery; compare with its siblings";
    }
}

}  // namespace

CheckDef make_acceptance_load_clocks() {
    CheckDef d;
    d.id = "acceptance.load.clocks";
    d.profile_keys = {
        keys::range("matrix_size", 16, 65536, true), keys::range("inner_size", 35, 65520, true),
        keys::range("sample_ms", 10, 10'000, false), keys::ratio("clock_min_ratio"),
        keys::ratio("sibling_max_shortfall_ratio"),
    };
    d.measurements = {
        measure::diagnostic("sm_clock_mhz", Direction::Higher, 0.10),
        measure::diagnostic("temperature_c", Direction::Lower, 0.10),
        measure::diagnostic("*", Direction::None, 0.00),
    };
    d.layer = "acceptance";
    d.description = "Clocks, temperature, power and throttle reasons sampled under a sustained matrix multiply";
    d.scope = Scope::Device;
    d.timing_sensitive = true;
    d.parallel_devices = true;  // every GPU loaded at once, as a rack runs
    d.sibling_keys = {"sm_clock_mhz"};
    d.budget_share = k_share;
    d.caught_by = {"throttles_under_load"};
    d.run = run_load;
    return d;
}

}  // namespace gpuconform
