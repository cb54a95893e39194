// One GPU's verdict on the kernel-log events since boot: pure, so the health layer reads the log
// once and judges every GPU from it, and tests need no device. docs/gpu-health-kernel-log.md.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/result.hpp"
#include "health/xid_catalog.hpp"

namespace gpuconform {

struct GpuEventThresholds {
    // Any event whose action is at least this fails the GPU (the catalog's reset, reboot, report).
    GpuAction fail_at = GpuAction::ResetGpu;
    // Application-level events (Xid 13, 31, 43, ...) warn once there are more than this many.
    int application_events_warn_above = 0;
    // A code the catalog table does not hold warns: it is never passed over in silence.
    bool unknown_warns = true;
};

struct GpuEventJudgement {
    Status status = Status::Pass;
    GpuAction worst = GpuAction::None;
    std::vector<GpuEvent> events;  // this GPU's, and every NVSwitch's (SXids name the switch)
    int application_events = 0;
    // Application-level events our own process raised on purpose (raised_by_gpuconform): kept in
    // `events`, never counted or judged.
    int own_application_events = 0;
    std::string reason;  // one line: the worst event and what it asks for
};

// gpuconform's error check faults a kernel on purpose (async.error.deferred: a kernel that reads
// out of bounds must surface as an error). The driver logs that as an application-level Xid (31,
// 13, 43) naming the faulting process, "pid=N, name=gpuconform,": evidence of our own test, not of
// the GPU, and it stays in the log until the next boot, so every later run would warn on it.
// Events that are not application-level count whoever raised them.
bool raised_by_gpuconform(const GpuEvent& e);

// `bdf` in any form normalize_bdf reads. SXid events count for every GPU: an NVSwitch serves all
// GPUs of its baseboard, and the Fabric Manager guide resets them together after a fatal one.
GpuEventJudgement judge_gpu_events(const std::vector<GpuEvent>& events, std::string_view bdf,
                                   const GpuEventThresholds& thresholds);

// "Xid 79 at 1234.5 s: GPU has fallen off the bus: reboot the node (RESTART_BM)".
std::string describe(const GpuEvent& e);

}  // namespace gpuconform
