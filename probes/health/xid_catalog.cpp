#include "health/xid_catalog.hpp"

#include <algorithm>
#include <array>

namespace gpuconform {
namespace {

struct XidEntry {
    int code;
    const char* mnemonic;
    const char* meaning;  // the catalog's Description column
    const char* bucket;   // the catalog's Resolution Bucket (Immediate Action)
    bool application_level;
};

// NVIDIA's Xid catalog for Ampere and newer,
// https://docs.nvidia.com/deploy/xid-errors/analyzing-xid-catalog.html: the codes fleets act on.
// A code not here is classified Unknown ("see the catalog"), never ignored.
constexpr std::array k_xids{
    XidEntry{8, "ROBUST_CHANNEL_FIFO_ERROR_IDLE_TIMEOUT", "GPU stopped processing", "RESTART_APP", true},
    XidEntry{13, "ROBUST_CHANNEL_GR_EXCEPTION", "Graphics Engine Exception", "RESTART_APP", true},
    XidEntry{31, "ROBUST_CHANNEL_FIFO_ERROR_MMU_ERR_FLT", "GPU memory page fault", "RESTART_APP", true},
    XidEntry{32, "ROBUST_CHANNEL_PBDMA_ERROR", "Invalid or corrupted push buffer stream", "RESTART_APP", true},
    XidEntry{38, "ROBUST_CHANNEL_FECS_ERR_WATCHDOG_TIMEOUT", "Driver firmware error", "IGNORE", false},
    XidEntry{43, "ROBUST_CHANNEL_RESETCHANNEL_VERIF_ERROR", "GPU stopped processing", "IGNORE", true},
    XidEntry{45, "ROBUST_CHANNEL_PREEMPTIVE_REMOVAL", "Preemptive cleanup, due to previous errors", "WORKFLOW_XID_45",
             true},
    XidEntry{46, "ROBUST_CHANNEL_GPU_TIMEOUT_ERROR", "GPU stopped processing", "RESET_GPU", false},
    XidEntry{48, "ROBUST_CHANNEL_GPU_ECC_DBE", "Double Bit ECC Error", "WORKFLOW_XID_48", false},
    XidEntry{61, "PMU_BREAKPOINT", "Internal micro-controller breakpoint/warning", "UNEXPECTED_ERR_REPORT_ISSUE",
             false},
    XidEntry{62, "PMU_HALT_ERROR", "Internal micro-controller halt", "RESET_GPU", false},
    XidEntry{63, "INFOROM_DRAM_RETIREMENT_EVENT", "ECC page retirement or row remapping recording event", "IGNORE",
             false},
    XidEntry{64, "INFOROM_DRAM_RETIREMENT_FAILURE", "ECC page retirement or row remapper recording failure",
             "RESET_GPU", false},
    XidEntry{68, "ROBUST_CHANNEL_NVDEC0_ERROR", "NVDEC0 Exception", "RESTART_APP", true},
    XidEntry{69, "ROBUST_CHANNEL_GR_CLASS_ERROR", "Graphics Engine class error", "RESTART_APP", true},
    XidEntry{74, "NVLINK_ERROR", "NVLINK Error", "WORKFLOW_NVLINK_ERR", false},
    XidEntry{79, "ROBUST_CHANNEL_GPU_HAS_FALLEN_OFF_THE_BUS", "GPU has fallen off the bus", "RESTART_BM", false},
    XidEntry{92, "EXCESSIVE_SBE_INTERRUPTS", "High single-bit ECC error rate", "IGNORE", false},
    XidEntry{94, "ROBUST_CHANNEL_CONTAINED_ERROR", "Contained ECC error", "RESTART_APP", true},
    XidEntry{95, "ROBUST_CHANNEL_UNCONTAINED_ERROR", "Uncontained ECC error", "RESET_GPU", false},
    XidEntry{109, "ROBUST_CHANNEL_CTXSW_TIMEOUT_ERROR", "Context Switch Timeout Error", "RESET_GPU", false},
    XidEntry{110, "SEC_FAULT_ERROR", "Security Fault Error", "RESET_GPU", false},
    XidEntry{119, "GSP_RPC_TIMEOUT", "GSP RPC Timeout", "RESET_GPU", false},
    XidEntry{120, "GSP_ERROR", "GSP Error", "RESET_GPU", false},
    XidEntry{121, "C2C_ERROR", "C2C Link corrected error", "IGNORE", false},
    XidEntry{136, "ALI_TRAINING_FAIL", "NVLink link training failure", "RESET_GPU", false},
    XidEntry{140, "UNRECOVERABLE_ECC_ERROR_ESCAPE", "Unrecovered ECC Error", "RESET_GPU", false},
    XidEntry{143, "GPU_INIT_ERROR", "GPU Initialization Failure", "RESET_GPU", false},
    XidEntry{144, "NVLINK_SAW_ERROR", "NVLink: SAW Error", "WORKFLOW_NVLINK5_ERR", false},
    XidEntry{145, "NVLINK_RLW_ERROR", "NVLink: RLW Error", "WORKFLOW_NVLINK5_ERR", false},
    XidEntry{146, "NVLINK_TLW_ERROR", "NVLink: TLW Error", "WORKFLOW_NVLINK5_ERR", false},
    XidEntry{147, "NVLINK_TREX_ERROR", "NVLink: TREX Error", "WORKFLOW_NVLINK5_ERR", false},
    XidEntry{148, "NVLINK_NVLPW_CTRL_ERROR", "NVLink: NVLPW_CTRL Error", "WORKFLOW_NVLINK5_ERR", false},
    XidEntry{149, "NVLINK_NETIR_ERROR", "NVLink: NETIR Error", "WORKFLOW_NVLINK5_ERR", false},
    XidEntry{150, "NVLINK_MSE_ERROR", "NVLink: MSE Error", "WORKFLOW_NVLINK5_ERR", false},
    XidEntry{154, "GPU_RECOVERY_ACTION_CHANGED", "GPU Recovery Action Changed", "FOLLOW_RECOVERY_ACTION", false},
    XidEntry{155, "NVLINK_SW_DEFINED_ERROR", "NVLink software-defined error", "RESET_GPU", false},
    XidEntry{156, "RESOURCE_RETIREMENT_EVENT", "Resource retirement event", "RESET_GPU", false},
    XidEntry{157, "RESOURCE_RETIREMENT_FAILURE", "Resource retirement failure", "IGNORE", false},
    XidEntry{158, "GPU_FATAL_TIMEOUT", "GPU fatal timeout", "RESET_GPU", false},
};

GpuAction bucket_action(std::string_view bucket) {
    if (bucket == "IGNORE" || bucket == "WORKFLOW_XID_45") {
        return GpuAction::None;  // 45 only follows another error, which is judged on its own
    }
    if (bucket == "RESTART_APP") {
        return GpuAction::RestartApp;
    }
    // The DBE and NVLink workflows start with a GPU reset (and escalate from there).
    if (bucket == "RESET_GPU" || bucket == "WORKFLOW_XID_48" || bucket == "WORKFLOW_NVLINK_ERR" ||
        bucket == "WORKFLOW_NVLINK5_ERR") {
        return GpuAction::ResetGpu;
    }
    if (bucket == "RESTART_BM") {
        return GpuAction::RebootNode;
    }
    if (bucket == "CONTACT_SUPPORT" || bucket == "UNEXPECTED_ERR_REPORT_ISSUE") {
        return GpuAction::ContactVendor;
    }
    return GpuAction::Unknown;
}

bool contains(std::string_view text, std::string_view what) { return text.find(what) != std::string_view::npos; }

// Xid 154 carries the driver's own recovery action: "... changed from 0x0 (None) to 0x2 (Node Reboot Required)".
GpuAction recovery_action(std::string_view message) {
    const auto to = message.rfind(" to ");
    const auto tail = to == std::string_view::npos ? message : message.substr(to);
    if (contains(tail, "Reboot")) {
        return GpuAction::RebootNode;
    }
    if (contains(tail, "Reset") || contains(tail, "Drain")) {
        return GpuAction::ResetGpu;
    }
    if (contains(tail, "None")) {
        return GpuAction::None;
    }
    return GpuAction::Unknown;
}

}  // namespace

std::string to_string(GpuAction a) {
    switch (a) {
        case GpuAction::None:
            return "none";
        case GpuAction::RestartApp:
            return "restart the application";
        case GpuAction::Unknown:
            return "unknown: see the vendor's catalog";
        case GpuAction::ResetGpu:
            return "reset the GPU";
        case GpuAction::RebootNode:
            return "reboot the node";
        case GpuAction::ContactVendor:
            return "report to the vendor: the GPU may need replacing";
    }
    return "unknown";
}

std::string to_string(GpuEventSource s) {
    switch (s) {
        case GpuEventSource::NvidiaXid:
            return "Xid";
        case GpuEventSource::NvswitchSxid:
            return "SXid";
        case GpuEventSource::Amdgpu:
            return "amdgpu";
    }
    return "unknown";
}

GpuEventClass classify_xid(int code, std::string_view message) {
    const auto* e = std::find_if(k_xids.begin(), k_xids.end(), [code](const XidEntry& x) { return x.code == code; });
    if (e == k_xids.end()) {
        return {GpuAction::Unknown, "unknown Xid " + std::to_string(code) + ": see the catalog", "", false};
    }
    GpuEventClass c{bucket_action(e->bucket), e->meaning, e->bucket, e->application_level};
    if (code == 154) {
        c.action = recovery_action(message);
    }
    return c;
}

// The Fabric Manager user guide sorts SXids into fatal (the GPUs and NVSwitches need a reset) and
// non-fatal (corrected; watch for repeats); the kernel line says which right after the code.
GpuEventClass classify_sxid(int code, std::string_view message) {
    const std::string name = "SXid " + std::to_string(code);
    if (contains(message, "Non-fatal")) {
        return {GpuAction::None, name + ": non-fatal NVSwitch error", "Non-fatal", false};
    }
    if (contains(message, "Fatal")) {
        return {GpuAction::ResetGpu, name + ": fatal NVSwitch error: reset the GPUs and NVSwitches", "Fatal", false};
    }
    return {GpuAction::Unknown, "unknown SXid " + std::to_string(code) + ": see the Fabric Manager guide", "", false};
}

std::optional<GpuEventClass> classify_amdgpu(std::string_view m) {
    if (contains(m, "uncorrectable hardware errors detected") || contains(m, "ncorrectable error")) {
        return GpuEventClass{GpuAction::ResetGpu, "RAS uncorrectable error", "GPU reset (RAS)", false};
    }
    if (contains(m, "exceed") && contains(m, "threshold") && !contains(m, "90%")) {
        return GpuEventClass{GpuAction::ContactVendor, "RAS bad pages over the threshold", "RMA", false};
    }
    if (contains(m, "GPU reset") && (contains(m, "failed") || contains(m, "Failed"))) {
        return GpuEventClass{GpuAction::RebootNode, "GPU reset failed", "reboot", false};
    }
    if (contains(m, "GPU reset begin")) {
        return GpuEventClass{GpuAction::ResetGpu, "the driver reset the GPU (a hang or a RAS error)", "GPU reset",
                             false};
    }
    if (contains(m, "ring ") && contains(m, " timeout")) {
        return GpuEventClass{GpuAction::RestartApp, "a job on a GPU ring timed out", "job timeout", true};
    }
    if (contains(m, "GPU fault detected")) {
        return GpuEventClass{GpuAction::RestartApp, "GPU memory fault (a process touched memory it does not own)",
                             "VM fault", true};
    }
    return std::nullopt;
}

}  // namespace gpuconform
