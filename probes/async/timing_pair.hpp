// Shared by the stream, event, overlap, queue, error and source-reuse checks: a mismatch counter
// that allocates nothing while work is in flight, the "tiny kernel behind a long one" measurement,
// and the pure verdicts those checks reach (unit-tested with tables of cases).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "async/toolkit.hpp"

namespace gpuconform::async {

// Counts device words != pattern(seed). Its buffers are allocated once, up front: cudaMalloc and
// cudaHostAlloc may synchronize the device, which would hide the very races being measured.
class MismatchCounter {
public:
    MismatchCounter(Backend& b, StreamHandle stream);
    // Queues a verify of words[0..count) on `stream`, reads the counter back, synchronizes `stream`.
    std::uint64_t count(StreamHandle stream, const std::uint32_t* words, std::size_t count, std::uint32_t seed);

private:
    Backend& m_backend;
    DeviceBuffer m_counter;
    HostBuffer m_readback;
    std::uint64_t m_seen = 0;  // the counter only grows; each call reports its own increase
};

// One measured value (n = 1), for figures that are not a series of samples.
Measurement single(const std::string& name, double value, const std::string& unit);

// --- a tiny kernel behind a long one (stream_*.cpp) ---
struct BehindLong {
    double long_ms = 0;         // the long spin asked for
    double long_launch_ms = 0;  // how long the long spin's launch call took (host clock)
    double tiny_ms = 0;         // host time from the tiny launch until its stream synchronized
    double done_ms = 0;         // host time from the long launch until the tiny kernel was done
    bool long_busy = false;     // the long spin's stream still had work once the tiny kernel was done
};

// Long spin on `long_stream`, a pause so it is surely running, then a tiny kernel on `tiny_stream`.
// Completion is read with stream synchronize and query, not events, so these checks do not
// depend on events working.
BehindLong measure_behind_long(Backend& b, StreamHandle long_stream, StreamHandle tiny_stream, double long_ms);

enum class WaitOutcome {
    Waited,       // the tiny kernel finished only once the long one had
    Independent,  // the tiny kernel finished while the long one still ran
    Undecided,    // neither: slow yet the long one still ran, or quick yet the long one had ended
};
std::string to_string(WaitOutcome o);
WaitOutcome classify_wait(const BehindLong& m, double wait_min_ratio);

// Any trial contradicting the documented behaviour fails; all trials showing it pass;
// otherwise error (could not judge).
Status judge_ordering(bool expect_wait, const std::vector<WaitOutcome>& outcomes);

// Warms up, runs the trials (profile: long_ms, wait_min_ratio; fewer with --quick), records the
// measurements and facts in `r` and returns the verdict of judge_ordering.
struct OrderingTrials {
    Status status = Status::Error;
    double long_ms = 0;
    double tiny_median_ms = 0;
    int trials = 0;
    int waited = 0;
    int independent = 0;
    bool long_launch_blocked = false;  // a long spin's launch returned only once it had finished
};
OrderingTrials run_ordering_trials(const CheckContext& ctx, CheckResult& r, StreamHandle long_stream,
                                   StreamHandle tiny_stream, bool expect_wait);
// Summary and remediation for an ordering check that could not judge (status error).
void explain_undecided(const OrderingTrials& t, CheckResult& r);

// --- concurrency and overlap (stream_many_streams.cpp, overlap_*.cpp) ---
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

// A derived figure outside its physical range: `error` naming the figure, the raw timings stay in
// the measurements, and facts.out_of_range tells the runner to measure once more.
void mark_out_of_range(CheckResult& r, const std::string& figure);

// The largest stream count, scanning upward, before concurrency first drops below ratio x n.
int scaling_limit(const std::vector<std::pair<int, double>>& concurrency_by_streams, double min_ratio);

// --- event timing (event_timing_accuracy.cpp) ---
struct TimingVerdict {
    Status status = Status::Error;
    std::string why;  // empty when pass
};
// A spin of spin_ms timed by events (event_ms) and by the host around launch + event_synchronize.
TimingVerdict judge_event_timing(double event_ms, double host_ms, double spin_ms, double max_relative_error);

// --- launch queue depth (queue_launch_depth.cpp) ---
enum class LaunchClass {
    Queued,     // returned quickly
    QueueFull,  // blocked until the gate ended: no slot was free
    Noise,      // slow, but returned while the gate still ran: the host was busy, not the queue
    GateEnded,  // started after the gate could have ended: no evidence past this point
};
// Times are ms since the gate was launched; a gate of gate_ms cannot end before gate_ms.
LaunchClass classify_launch(double start_ms, double end_ms, double gate_ms, double blocked_ms);

// --- deferred errors (error_deferred.cpp) ---
// Where an error first showed: "launch call", "last_error", "synchronize" or "never".
std::string where_surfaced(const ApiResult& at_launch, const ApiResult& at_last_error, const ApiResult& at_sync);

}  // namespace gpuconform::async
