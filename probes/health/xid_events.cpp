// health.xid: GPU error events in the kernel log since boot (NVIDIA Xid, NVSwitch SXid, amdgpu RAS,
// resets and ring time-outs), each judged by the vendor's catalog (docs/gpu-health-kernel-log.md).
#include <algorithm>

#include <fmt/format.h>

#include "health/gpu_events_judge.hpp"
#include "health/health_check_common.hpp"

namespace gpuconform {

namespace {
constexpr std::size_t k_events_kept = 20;  // the report keeps the first events; the count is whole

std::string remedy(GpuAction a) {
    switch (a) {
        case GpuAction::ContactVendor:
            return "drain the node and report the GPU to the vendor (it may need replacing); see NVIDIA's Xid catalog";
        case GpuAction::RebootNode:
            return "drain the node and reboot it before it takes work again; see NVIDIA's Xid catalog";
        case GpuAction::ResetGpu:
            return "drain the GPU and reset it (nvidia-smi -r, or a reboot) before it takes work again";
        case GpuAction::Unknown:
            return "look the event up in the vendor's catalog (docs/gpu-health-kernel-log.md)";
        case GpuAction::RestartApp:
            return "application-level errors: find the job that caused them; the GPU itself needs nothing";
        case GpuAction::None:
            break;
    }
    return "";
}
}  // namespace

CheckDef make_health_xid() {
    CheckDef d = health_check(
        "health.xid", "GPU error events in the kernel log since boot (Xid, SXid, amdgpu), by the vendor's catalog");
    d.profile_keys = {
        keys::range("max_application_events", 0, 1'000'000, true),
    };
    d.measurements = {
        measure::diagnostic("events", Direction::Lower, 0.00),
    };
    d.caught_by = {"xid_79"};
    d.run = [](CheckContext& ctx, CheckResult& r) {
        const GpuHealth& g = gpu_of(ctx);
        add_identity(r, g);
        if (!ctx.health->kernel_log_read) {
            throw SkipCheck("the kernel log could not be read, so no Xid can be ruled out: " +
                            ctx.health->kernel_log_unreadable);
        }
        GpuEventThresholds limits;
        limits.application_events_warn_above = static_cast<int>(ctx.expect(r, "max_application_events"));
        const GpuEventJudgement j = judge_gpu_events(ctx.health->gpu_events, g.pci_bus_id, limits);
        const auto judged = j.events.size() - static_cast<std::size_t>(j.own_application_events);
        r.measurements.push_back(measured("events", static_cast<double>(judged), "events"));
        r.facts["kernel_log_records"] = ctx.health->kernel_log_records;
        nlohmann::json kept = nlohmann::json::array();
        for (std::size_t i = 0; i < std::min(j.events.size(), k_events_kept); ++i) {
            kept.push_back(describe(j.events[i]));
        }
        r.facts["events"] = kept;
        r.facts["worst_action"] = to_string(j.worst);
        HealthVerdict v;
        v.status = j.status;
        r.facts["own_application_events"] = j.own_application_events;
        if (j.events.empty()) {
            v.summary = fmt::format("no GPU error event in the kernel log since boot ({} records read)",
                                    ctx.health->kernel_log_records);
        } else if (j.worst == GpuAction::None) {  // only what our own error check raised
            v.summary = fmt::format("{} ({} records read)", j.reason, ctx.health->kernel_log_records);
        } else {
            v.summary = fmt::format("{} event(s) since boot; {}", j.events.size(), j.reason);
            v.remediation = remedy(j.worst);
        }
        if (j.status == Status::Fail) {
            v.finding = j.reason;
        }
        apply(r, v);
    };
    return d;
}

}  // namespace gpuconform
