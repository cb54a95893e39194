#include "health/gpu_events_judge.hpp"

#include <cstdio>

namespace gpuconform {

std::string describe(const GpuEvent& e) {
    char at[32];
    std::snprintf(at, sizeof at, "%.1f", e.seconds_since_boot);
    std::string s = to_string(e.source);
    if (e.code >= 0) {
        s.append(" ").append(std::to_string(e.code));
    }
    s.append(" at ").append(at).append(" s: ").append(e.what.meaning).append(": ").append(to_string(e.what.action));
    if (!e.what.vendor_action.empty()) {
        s.append(" (").append(e.what.vendor_action).append(")");
    }
    return s;
}

bool raised_by_gpuconform(const GpuEvent& e) {
    return e.what.application_level && e.message.find(", name=gpuconform,") != std::string::npos;
}

GpuEventJudgement judge_gpu_events(const std::vector<GpuEvent>& events, std::string_view bdf,
                                   const GpuEventThresholds& thresholds) {
    GpuEventJudgement j;
    const std::string mine = normalize_bdf(bdf);
    const GpuEvent* worst = nullptr;
    for (const auto& e : events) {
        const bool ours = e.source == GpuEventSource::NvswitchSxid || (!mine.empty() && e.bdf == mine);
        if (!ours) {
            continue;
        }
        j.events.push_back(e);
        if (raised_by_gpuconform(e)) {
            ++j.own_application_events;
            continue;
        }
        j.application_events += e.what.application_level ? 1 : 0;
        if (worst == nullptr || e.what.action > worst->what.action) {
            worst = &e;
        }
    }
    const std::string own =
        j.own_application_events == 0
            ? ""
            : "; " + std::to_string(j.own_application_events) +
                  " application fault(s) raised on purpose by gpuconform's own error check, not counted";
    if (worst == nullptr) {
        j.reason = "no GPU error event in the kernel log since boot" + own;
        return j;
    }
    j.worst = worst->what.action;
    j.reason = std::to_string(j.events.size()) + (j.events.size() == 1 ? " event" : " events") +
               " since boot; the worst: " + describe(*worst);
    if (j.worst >= thresholds.fail_at) {
        j.status = Status::Fail;
    } else if (j.worst == GpuAction::Unknown && thresholds.unknown_warns) {
        j.status = Status::Warn;
    } else if (j.application_events > thresholds.application_events_warn_above) {
        j.status = Status::Warn;
        j.reason = std::to_string(j.application_events) + " application-level events since boot (more than " +
                   std::to_string(thresholds.application_events_warn_above) + "); the worst: " + describe(*worst);
    } else {
        j.status = Status::Pass;
    }
    j.reason += own;
    return j;
}

}  // namespace gpuconform
