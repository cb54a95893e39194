// Does a tiny kernel wait behind a long one? The measurement, its classification and the verdict
// of the stream-ordering checks (stream_legacy_default_sync.cpp, stream_independence.cpp).
#pragma once

#include <string>
#include <vector>

#include "async/toolkit.hpp"

namespace gpuconform::async {

struct BehindLong {
    double long_ms = 0;         // the long spin asked for
    double long_launch_ms = 0;  // how long the long spin's launch call took (host clock)
    double tiny_ms = 0;         // host time from the tiny launch until its stream synchronized
    double done_ms = 0;         // host time from the long launch until the tiny kernel was done
    bool long_busy = false;     // the long spin's stream still had work once the tiny kernel was done
};

// Long spin on `long_stream`, a pause so it is surely running, then a tiny kernel on `tiny_stream`;
// once both streams have been read, the long spin is released.
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

// What every check built on run_ordering_trials owns: the keys it reads (long_ms, wait_min_ratio,
// trials) and the figures it records (long_kernel, tiny_kernel_completion).
void declare_ordering_trials(CheckDef& d);

}  // namespace gpuconform::async
