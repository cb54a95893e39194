#include "async/stream_ordering.hpp"

#include <algorithm>
#include <thread>

#include <fmt/format.h>

namespace gpuconform::async {

namespace {
constexpr std::uint64_t k_tiny_ns = 1000;
// The tiny kernel is launched this share of the long spin after it, so the long one is surely
// running: a tiny kernel that ran first would show nothing about ordering.
constexpr double k_settle_share = 0.1;
}  // namespace

BehindLong measure_behind_long(Backend& b, StreamHandle long_stream, StreamHandle tiny_stream, double long_ms) {
    GC_CHECK(b.device_synchronize());  // start from an idle device, legacy stream included
    BehindLong m;
    m.long_ms = long_ms;
    const auto launched = Clock::now();
    GC_CHECK(b.launch_releasable_spin(long_stream, static_cast<std::uint64_t>(long_ms * 1e6)));
    m.long_launch_ms = ms_since(launched);
    std::this_thread::sleep_until(launched + std::chrono::duration<double, std::milli>(k_settle_share * long_ms));
    const auto t0 = Clock::now();
    GC_CHECK(b.launch_spin(tiny_stream, k_tiny_ns));
    GC_CHECK(b.stream_synchronize(tiny_stream));
    m.tiny_ms = ms_since(t0);
    m.done_ms = ms_since(launched);
    bool done = false;
    GC_CHECK(b.stream_query(long_stream, &done));
    m.long_busy = !done;
    GC_CHECK(b.release_spins());  // the evidence is in: a long spin still running need not finish
    GC_CHECK(b.stream_synchronize(long_stream));
    return m;
}

std::string to_string(WaitOutcome o) {
    switch (o) {
        case WaitOutcome::Waited:
            return "waited";
        case WaitOutcome::Independent:
            return "independent";
        case WaitOutcome::Undecided:
            return "undecided";
    }
    return "?";
}

WaitOutcome classify_wait(const BehindLong& m, double wait_min_ratio) {
    if (m.long_launch_ms >= wait_min_ratio * m.long_ms) {
        return WaitOutcome::Undecided;  // the long launch itself blocked: nothing ran behind it
    }
    const bool slow = m.done_ms >= wait_min_ratio * m.long_ms;
    if (slow && !m.long_busy) {
        return WaitOutcome::Waited;
    }
    if (!slow && m.long_busy) {
        return WaitOutcome::Independent;
    }
    return WaitOutcome::Undecided;
}

Status judge_ordering(bool expect_wait, const std::vector<WaitOutcome>& outcomes) {
    const WaitOutcome expected = expect_wait ? WaitOutcome::Waited : WaitOutcome::Independent;
    const WaitOutcome contrary = expect_wait ? WaitOutcome::Independent : WaitOutcome::Waited;
    if (std::find(outcomes.begin(), outcomes.end(), contrary) != outcomes.end()) {
        return Status::Fail;
    }
    const bool all_expected = !outcomes.empty() && std::all_of(outcomes.begin(), outcomes.end(),
                                                               [&](WaitOutcome o) { return o == expected; });
    return all_expected ? Status::Pass : Status::Error;
}

OrderingTrials run_ordering_trials(const CheckContext& ctx, CheckResult& r, StreamHandle long_stream,
                                   StreamHandle tiny_stream, bool expect_wait) {
    OrderingTrials t;
    t.long_ms = ctx.expect(r, "long_ms");
    const double ratio = ctx.expect(r, "wait_min_ratio");
    t.trials = static_cast<int>(ctx.expect(r, "trials"));
    warm_up(*ctx.backend, long_stream);
    warm_up(*ctx.backend, tiny_stream);
    std::vector<WaitOutcome> outcomes;
    std::vector<double> tiny;
    nlohmann::json seen = nlohmann::json::array();
    for (int i = 0; i < t.trials; ++i) {
        const BehindLong m = measure_behind_long(*ctx.backend, long_stream, tiny_stream, t.long_ms);
        outcomes.push_back(classify_wait(m, ratio));
        tiny.push_back(m.tiny_ms);
        seen.push_back({{"tiny_ms", m.tiny_ms},
                        {"done_after_long_launch_ms", m.done_ms},
                        {"long_launch_ms", m.long_launch_ms},
                        {"long_busy", m.long_busy},
                        {"outcome", to_string(outcomes.back())}});
        t.long_launch_blocked = t.long_launch_blocked || m.long_launch_ms >= ratio * t.long_ms;
        t.waited += outcomes.back() == WaitOutcome::Waited ? 1 : 0;
        t.independent += outcomes.back() == WaitOutcome::Independent ? 1 : 0;
    }
    const Measurement tiny_ms = summarize("tiny_kernel_completion", "ms", tiny);
    t.tiny_median_ms = tiny_ms.value.value_or(0);
    r.measurements.push_back(tiny_ms);
    r.measurements.push_back(single("long_kernel", t.long_ms, "ms"));
    r.facts["trials"] = seen;
    t.status = judge_ordering(expect_wait, outcomes);
    return t;
}

void explain_undecided(const OrderingTrials& t, CheckResult& r) {
    if (t.long_launch_blocked) {
        r.summary = fmt::format(
            "could not judge: launching the {:.0f} ms kernel blocked until it had finished, so "
            "nothing ran behind it; see async.launch.returns_early",
            t.long_ms);
        r.remediation =
            "kernel launches are synchronous here: unset CUDA_LAUNCH_BLOCKING / HIP_LAUNCH_BLOCKING / "
            "AMD_SERIALIZE_KERNEL";
        return;
    }
    r.summary = fmt::format(
        "could not judge: the tiny kernel took {:.1f} ms beside a {:.0f} ms kernel, yet the long "
        "kernel's stream was not in the expected state (see facts.trials)",
        t.tiny_median_ms, t.long_ms);
    r.remediation = "rerun on an otherwise idle device; raise long_ms in a --profile file if the host is slow";
}

void declare_ordering_trials(CheckDef& d) {
    d.profile_keys = {keys::ms("long_ms"), keys::ratio("wait_min_ratio"), keys::count("trials")};
    d.measurements = {
        measure::diagnostic("long_kernel", Direction::None, 0.20),
        measure::diagnostic("tiny_kernel_completion", Direction::Lower, 2.00),
    };
}

}  // namespace gpuconform::async
