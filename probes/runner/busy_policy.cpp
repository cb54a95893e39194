#include "runner/busy_policy.hpp"

#include <fmt/format.h>

namespace gpuconform {

namespace {
constexpr const char* k_busy_fix =
    "run again when the GPU is free (drain the node's jobs first), give it longer with --busy-wait, or "
    "measure anyway with --when-busy measure";

std::string waited_text(double waited_s) {
    return waited_s > 0 ? fmt::format("; waited {:.0f} s for it to go quiet", waited_s) : "";
}
}  // namespace

std::optional<WhenBusy> when_busy_from_string(const std::string& text) {
    if (text == "wait") {
        return WhenBusy::Wait;
    }
    if (text == "skip") {
        return WhenBusy::Skip;
    }
    if (text == "measure") {
        return WhenBusy::Measure;
    }
    return std::nullopt;
}

std::string to_string(WhenBusy w) {
    switch (w) {
        case WhenBusy::Wait:
            return "wait";
        case WhenBusy::Skip:
            return "skip";
        case WhenBusy::Measure:
            return "measure";
    }
    return "wait";
}

BeforeAction before_check(WhenBusy policy, bool busy, double wait_left_s) {
    if (!busy || policy == WhenBusy::Measure) {
        return BeforeAction::Run;
    }
    if (policy == WhenBusy::Wait && wait_left_s > 0) {
        return BeforeAction::WaitForQuiet;
    }
    return BeforeAction::NotRun;
}

CheckResult busy_not_run(const std::string& id, const std::string& layer, WhenBusy policy, const GpuOccupancy& who,
                         double waited_s) {
    CheckResult r;
    r.id = id;
    r.layer = layer;
    r.backend = who.backend;
    r.device = who.device;
    r.timing_sensitive = true;
    r.status = policy == WhenBusy::Skip ? Status::Skip : Status::Error;
    r.summary = fmt::format("not measured: {} on this GPU{}", describe_others(who), waited_text(waited_s));
    r.remediation = k_busy_fix;
    r.attribution = "host";
    r.disturbance = disturbance_json(who);
    r.facts["when_busy"] = to_string(policy);
    return r;
}

void mark_disturbed(CheckResult& r, WhenBusy policy, const GpuOccupancy& who, double waited_s) {
    r.disturbance = disturbance_json(who);
    r.facts["when_busy"] = to_string(policy);
    if (policy == WhenBusy::Measure) {
        r.summary = fmt::format("measured while {} used this GPU: {}", describe_others(who), r.summary);
        return;
    }
    r.facts["withheld"] = {{"status", to_string(r.status)}, {"summary", r.summary}};
    r.status = Status::Error;
    r.summary = fmt::format("{} during the measurement{}: not judged (measured: {})", describe_others(who),
                            waited_text(waited_s), r.facts["withheld"]["summary"].get<std::string>());
    r.remediation = k_busy_fix;
    r.attribution = "host";
}

}  // namespace gpuconform
