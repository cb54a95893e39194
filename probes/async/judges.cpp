#include "async/judges.hpp"

#include <algorithm>
#include <cmath>

namespace gpuconform::async {

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

double best_round_gain(const std::vector<double>& h2d, const std::vector<double>& d2h,
                       const std::vector<double>& both) {
    double best = 0;
    for (std::size_t i = 0; i < both.size() && i < h2d.size() && i < d2h.size(); ++i) {
        const double single = std::max(h2d[i], d2h[i]);
        if (single > 0) {
            best = std::max(best, both[i] / single);
        }
    }
    return best;
}

}  // namespace gpuconform::async
