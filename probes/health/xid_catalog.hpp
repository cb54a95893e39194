// GPU error events in the kernel log and what the vendor says to do about each: NVIDIA Xid
// (https://docs.nvidia.com/deploy/xid-errors/analyzing-xid-catalog.html, "Resolution Bucket
// (Immediate Action)"), NVSwitch SXid (Fabric Manager user guide, fatal or non-fatal) and amdgpu's
// RAS, reset, ring time-out and fault messages (https://docs.kernel.org/gpu/amdgpu/ras.html).
// The table and its sources: docs/gpu-health-kernel-log.md.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "health/kernel_log.hpp"

namespace gpuconform {

// Ordered from harmless to worst, so the worst of several events is the largest.
enum class GpuAction {
    None,           // informational, or the driver already handled it (catalog IGNORE)
    RestartApp,     // an application-level error: the application restarts (catalog RESTART_APP)
    Unknown,        // a code the table does not hold: see the vendor's catalog
    ResetGpu,       // the GPU needs a reset before it is trusted again (catalog RESET_GPU)
    RebootNode,     // the node needs a reboot (catalog RESTART_BM)
    ContactVendor,  // report to the vendor; the GPU may need replacing (catalog CONTACT_SUPPORT, RMA)
};
std::string to_string(GpuAction a);

enum class GpuEventSource { NvidiaXid, NvswitchSxid, Amdgpu };
std::string to_string(GpuEventSource s);

struct GpuEventClass {
    GpuAction action = GpuAction::Unknown;
    std::string meaning;             // the vendor's description, e.g. "GPU has fallen off the bus"
    std::string vendor_action;       // the vendor's own word for the action, e.g. "RESTART_BM"
    bool application_level = false;  // counts toward the application-error warning, not a failure
};

struct GpuEvent {
    GpuEventSource source = GpuEventSource::NvidiaXid;
    std::string bdf;      // normalize_bdf form, "0000:3b:00"; empty when the line names no device
    int code = -1;        // the Xid or SXid; -1 for amdgpu messages
    std::string message;  // the whole log message, valid UTF-8
    double seconds_since_boot = 0;
    GpuEventClass what;
};

// "PCI:0000:3B:00", "00000000:3b:00.0", "0000:3b:00.1" -> "0000:3b:00": the kernel's Xid lines name
// no function and NVML pads the domain to 8 digits, so both sides compare in this form.
std::string normalize_bdf(std::string_view bdf);

GpuEventClass classify_xid(int code, std::string_view message);
GpuEventClass classify_sxid(int code, std::string_view message);
// Empty when the amdgpu message is not one that means hardware trouble.
std::optional<GpuEventClass> classify_amdgpu(std::string_view message);

// The GPU event a log record holds, if any; records not of the kernel's facility hold none.
std::optional<GpuEvent> parse_gpu_event(const KernelLogRecord& record);
std::vector<GpuEvent> find_gpu_events(const std::vector<KernelLogRecord>& records);

}  // namespace gpuconform
