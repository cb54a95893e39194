// The pure judges of checks that share nothing else (event_timing_accuracy.cpp,
// queue_launch_depth.cpp, error_deferred.cpp, copy_bidirectional.cpp): here so their tables of
// cases can reach them.
#pragma once

#include <string>
#include <vector>

#include "async/toolkit.hpp"

namespace gpuconform::async {

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

// --- both copy directions at once (copy_bidirectional.cpp) ---
// The best round's gain: both directions at once over the faster direction alone in that round
// (rounds are index-aligned; 0 when there are none). Where the median fails and this reaches the
// floor, the engines overlapped in this check and the link's rate moved between rounds.
double best_round_gain(const std::vector<double>& h2d, const std::vector<double>& d2h, const std::vector<double>& both);

}  // namespace gpuconform::async
