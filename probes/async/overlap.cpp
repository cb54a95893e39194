#include "async/overlap.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace gpuconform::async {

namespace {
// The pair cannot finish sooner than its longer half; below this share of it the events lie.
constexpr double k_min_both_share = 0.5;
}  // namespace

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

}  // namespace gpuconform::async
