// async.device.occupancy: who else is on this GPU before the device checks run (README "Busy
// GPUs"). Read in the parent through the occupancy providers, never from our own worker.
#include <fmt/format.h>

#include "async/async_checks.hpp"
#include "occupancy/occupancy.hpp"

namespace gpuconform {

CheckDef make_async_device_occupancy() {
    CheckDef d;
    d.id = "async.device.occupancy";
    d.informational = true;  // a reading: info, never pass
    d.measurements = {
        measure::diagnostic("utilization", Direction::None, 0.00),
        measure::diagnostic("memory_used", Direction::None, 0.00),
    };
    d.timing_sensitive = false;  // it is the reading the timing checks are guarded by
    d.in_parent = true;
    d.layer = "async";
    d.description = "other processes, utilisation and memory in use on each GPU before the device checks";
    d.scope = Scope::Device;
    d.timeout_s = 10.0;
    d.run = [](CheckContext& ctx, CheckResult& r) {
        if (ctx.occupancy == nullptr || ctx.backend_info == nullptr) {
            throw SkipCheck("no occupancy reader in this process");
        }
        // Our side is idle here, so a busy reading that lists only us is settled and judged.
        const GpuOccupancy o =
            ctx.occupancy->sample(ctx.backend_info->name, ctx.device, ctx.props.pci_bus_id, 1.0, true);
        r.facts["occupancy"] = o;
        if (o.sources.empty()) {
            r.status = Status::Skip;
            r.summary =
                fmt::format("who else uses this GPU could not be read: {}", o.error.empty() ? "no source" : o.error);
            return;
        }
        if (o.utilization_pct) {
            r.measurements.push_back(
                Measurement{"utilization", *o.utilization_pct, "%", 1, std::nullopt, std::nullopt});
        }
        if (o.memory_used_bytes) {
            r.measurements.push_back(
                Measurement{"memory_used", *o.memory_used_bytes, "bytes", 1, std::nullopt, std::nullopt});
        }
        if (disturbs_timing(o)) {
            r.status = Status::Warn;
            r.summary = describe_others(o) + ": timing checks on this GPU wait for it (--when-busy)";
            r.remediation = "run when the GPU is free, or drain the node's jobs first";
            r.disturbance = disturbance_json(o);
            return;
        }
        r.status = Status::Info;
        std::string held;
        for (const auto& p : o.others) {
            held += fmt::format("{}pid {} {}", held.empty() ? "" : ", ", p.pid, p.name);
        }
        r.summary = fmt::format(
            "no other user computing{}{}{}",
            o.utilization_pct ? fmt::format(" ({:.0f}% utilisation", *o.utilization_pct) : " (",
            o.memory_used_bytes ? fmt::format(", {:.0f} MiB in use)", *o.memory_used_bytes / 1048576.0) : ")",
            held.empty() ? "" : "; idle holders: " + held);
    };
    return d;
}

}  // namespace gpuconform
