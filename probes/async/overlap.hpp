// How far two works overlap, and how many streams run at once: the figures and verdicts of
// overlap_copy_compute.cpp, overlap_kernel_kernel.cpp and stream_many_streams.cpp.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "async/toolkit.hpp"

namespace gpuconform::async {

// (t_a + t_b - t_both) / min(t_a, t_b): 1 is full overlap, 0 none. nullopt when the figures
// cannot be right (a time <= 0, or the pair finishing much sooner than its longer half).
std::optional<double> overlap_ratio(double t_a_ms, double t_b_ms, double t_both_ms);

// The runs of an overlap check: each work alone (a, b), then both at once.
struct OverlapRuns {
    std::vector<double> a_ms, b_ms, both_ms, ratios;
    bool consistent = true;  // every run's figures were possible (see overlap_ratio)
    bool together = true;    // every run queued both works before either had finished

    // plausible: false when the caller knows the figures cannot be right (a known spin timed short).
    void add(double a, double b, double both, bool queued_together, bool plausible = true);
    void record(CheckResult& r, const std::string& a_name, const std::string& b_name) const;
};

// Error when the runs are no evidence (not together, inconsistent), else pass or fail against
// min_ratio. `what` names the pair ("a 64 MiB pinned copy and a kernel"); `serial_hint` says
// which check covers calls that block; `remediation` what to change when they do not overlap.
void judge_overlap(CheckResult& r, const OverlapRuns& o, double min_ratio, const std::string& what,
                   const std::string& serial_hint, const std::string& remediation);

// Largest overlap a measurement can show, with room for timer noise; outside [-margin, 1 + margin]
// the figure is impossible (a number outside its physical range: re-measure or error, never a verdict).
constexpr double k_overlap_noise_margin = 0.05;

// The largest stream count, scanning upward, before concurrency first drops below ratio x n.
int scaling_limit(const std::vector<std::pair<int, double>>& concurrency_by_streams, double min_ratio);

}  // namespace gpuconform::async
