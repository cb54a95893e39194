#include "async/timing_pair.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <thread>

#include <fmt/format.h>

namespace gpuconform::async {

namespace {
constexpr std::uint64_t k_tiny_ns = 1000;
// The tiny kernel is launched this share of the long spin after it, so the long one is surely
// running: a tiny kernel that ran first would show nothing about ordering.
constexpr double k_settle_share = 0.1;
constexpr std::uint64_t k_no_readback = ~0ull;
// The pair cannot finish sooner than its longer half; below this share of it the events lie.
constexpr double k_min_both_share = 0.5;
}  // namespace

MismatchCounter::MismatchCounter(Backend& b, StreamHandle stream)
    : m_backend(b), m_counter(b, sizeof(std::uint64_t)), m_readback(b, sizeof(std::uint64_t), HostKind::Pinned) {
    auto* host = reinterpret_cast<std::uint64_t*>(m_readback.data());
    *host = 0;
    GC_CHECK(b.memcpy_async(m_counter.data(), host, sizeof(std::uint64_t), CopyKind::HostToDevice, stream));
    GC_CHECK(b.stream_synchronize(stream));
}

std::uint64_t MismatchCounter::count(StreamHandle stream, const std::uint32_t* words, std::size_t count,
                                     std::uint32_t seed) {
    auto* host = reinterpret_cast<std::uint64_t*>(m_readback.data());
    auto* counter = reinterpret_cast<unsigned long long*>(m_counter.data());
    GC_CHECK(m_backend.launch_verify(stream, words, count, seed, counter));
    *host = k_no_readback;  // a read-back that did not happen must not look like "no mismatches"
    GC_CHECK(m_backend.memcpy_async(host, counter, sizeof(std::uint64_t), CopyKind::DeviceToHost, stream));
    GC_CHECK(m_backend.stream_synchronize(stream));
    if (*host == k_no_readback || *host < m_seen) {
        throw std::runtime_error("the mismatch counter could not be read back from the device");
    }
    const std::uint64_t added = *host - m_seen;
    m_seen = *host;
    return added;
}

Measurement single(const std::string& name, double value, const std::string& unit) {
    return Measurement{name, value, unit, 1, std::nullopt, std::nullopt};
}

BehindLong measure_behind_long(Backend& b, StreamHandle long_stream, StreamHandle tiny_stream, double long_ms) {
    GC_CHECK(b.device_synchronize());  // start from an idle device, legacy stream included
    BehindLong m;
    m.long_ms = long_ms;
    const auto launched = Clock::now();
    GC_CHECK(b.launch_spin(long_stream, static_cast<std::uint64_t>(long_ms * 1e6)));
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
    t.trials = ctx.options.quick ? 1 : 3;
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

std::optional<double> overlap_ratio(double t_a_ms, double t_b_ms, double t_both_ms) {
    const double shorter = std::min(t_a_ms, t_b_ms);
    if (shorter <= 0 || t_both_ms < k_min_both_share * std::max(t_a_ms, t_b_ms)) {
        return std::nullopt;
    }
    return (t_a_ms + t_b_ms - t_both_ms) / shorter;
}

void OverlapRuns::add(double a, double b, double both, bool queued_together, bool plausible) {
    a_ms.push_back(a);
    b_ms.push_back(b);
    both_ms.push_back(both);
    const auto ratio = overlap_ratio(a, b, both);
    ratios.push_back(ratio.value_or(0));
    consistent = consistent && plausible && ratio.has_value();
    together = together && queued_together;
}

void OverlapRuns::record(CheckResult& r, const std::string& a_name, const std::string& b_name) const {
    r.measurements.push_back(summarize(a_name + "_alone_ms", "ms", a_ms));
    r.measurements.push_back(summarize(b_name + "_alone_ms", "ms", b_ms));
    r.measurements.push_back(summarize("both_ms", "ms", both_ms));
    r.measurements.push_back(summarize("overlap_ratio", "ratio", ratios));
    r.facts["queued_together"] = together;
}

void judge_overlap(CheckResult& r, const OverlapRuns& o, double min_ratio, const std::string& what,
                   const std::string& serial_hint, const std::string& remediation) {
    const double ratio = median(o.ratios);
    const std::string figures = fmt::format("alone {:.2f} and {:.2f} ms, together {:.2f} ms", median(o.a_ms),
                                            median(o.b_ms), median(o.both_ms));
    if (!o.together) {
        r.status = Status::Error;
        r.summary =
            "could not judge: a call returned only after its own work had finished, so nothing could "
            "overlap; see " +
            serial_hint;
    } else if (!o.consistent) {
        r.status = Status::Error;
        r.summary = fmt::format(
            "could not judge: event timings are inconsistent ({}); see "
            "async.event.timing_accuracy",
            figures);
    } else if (ratio < -k_overlap_noise_margin || ratio > 1 + k_overlap_noise_margin) {
        mark_out_of_range(r, fmt::format("{} overlapped {:.0f}%, outside 0-100% ({})", what, ratio * 100, figures));
    } else if (ratio >= min_ratio) {
        r.status = Status::Pass;
        r.summary = fmt::format("{} overlapped {:.0f}% ({})", what, ratio * 100, figures);
    } else {
        r.status = Status::Fail;
        r.summary =
            fmt::format("{} overlapped only {:.0f}% (need {:.0f}%): {}", what, ratio * 100, min_ratio * 100, figures);
        r.remediation = remediation;
    }
}

void mark_out_of_range(CheckResult& r, const std::string& figure) {
    r.status = Status::Error;
    r.summary = "impossible figure, not judged: " + figure +
                "; the measurement was disturbed (another GPU user?) or wrong; raw timings are in the measurements";
    r.remediation = "run again on an otherwise idle GPU (see async.device.occupancy)";
    r.facts["out_of_range"] = figure;
}

int scaling_limit(const std::vector<std::pair<int, double>>& concurrency_by_streams, double min_ratio) {
    int limit = 0;
    for (const auto& [streams, concurrency] : concurrency_by_streams) {
        if (concurrency < min_ratio * streams) {
            break;
        }
        limit = streams;
    }
    return limit;
}

TimingVerdict judge_event_timing(double event_ms, double host_ms, double spin_ms, double max_relative_error) {
    if (spin_ms <= 0) {
        return {Status::Error, "no spin length to compare with"};
    }
    if (host_ms < spin_ms * (1 - max_relative_error)) {
        return {Status::Fail, "event_synchronize returned before the timed kernel could have finished"};
    }
    if (std::abs(event_ms - spin_ms) / spin_ms > max_relative_error) {
        return {Status::Fail, "the event-timed duration is off the kernel's known length"};
    }
    if (event_ms > host_ms * (1 + max_relative_error)) {
        return {Status::Fail, "events report longer than the host waited in all"};
    }
    return {Status::Pass, ""};
}

LaunchClass classify_launch(double start_ms, double end_ms, double gate_ms, double blocked_ms) {
    if (start_ms >= gate_ms) {
        return LaunchClass::GateEnded;
    }
    if (end_ms - start_ms <= blocked_ms) {
        return LaunchClass::Queued;
    }
    return end_ms >= gate_ms ? LaunchClass::QueueFull : LaunchClass::Noise;
}

std::string where_surfaced(const ApiResult& at_launch, const ApiResult& at_last_error, const ApiResult& at_sync) {
    if (!at_launch.ok()) {
        return "launch call";
    }
    if (!at_last_error.ok()) {
        return "last_error";
    }
    if (!at_sync.ok()) {
        return "synchronize";
    }
    return "never";
}

}  // namespace gpuconform::async
