// health.error_growth: the PCIe replay counter, the AER totals and the NVLink error counters read
// again after the device layer; what grew under our own copies is a finding on this GPU
// (docs/gpu-health.md, "health.error_growth").
#include <fmt/format.h>

#include <algorithm>

#include "health/health_check_common.hpp"

namespace gpuconform {

namespace {

// The same GPU in the reading before the device layer: by UUID, else by PCI bus id.
const GpuHealth* before_of(const NodeHealth* before, const GpuHealth& g) {
    if (before == nullptr) {
        return nullptr;
    }
    const auto it = std::find_if(before->gpus.begin(), before->gpus.end(), [&](const GpuHealth& b) {
        return !g.uuid.empty() ? b.uuid == g.uuid : (!g.pci_bus_id.empty() && b.pci_bus_id == g.pci_bus_id);
    });
    return it == before->gpus.end() ? nullptr : &*it;
}

}  // namespace

CheckDef make_health_error_growth() {
    CheckDef d = health_check("health.error_growth",
                              "PCIe replays, AER and NVLink error counters that grew during the run (read before and "
                              "after the device layer)");
    d.profile_keys = {
        keys::range("pcie_replays_per_15min", 0, 1'000'000, false),
        keys::range("aer_correctable_per_15min", 0, 1'000'000, false),
        keys::range("max_nvlink_errors", 0, 1'000'000, true),
    };
    d.measurements = {
        measure::diagnostic("*", Direction::Lower, 0.00),
    };
    d.caught_by = {"pcie_replays_growing"};
    d.run = [](CheckContext& ctx, CheckResult& r) {
        const GpuHealth& after = gpu_of(ctx);
        add_identity(r, after);
        const GpuHealth* before = before_of(ctx.health->before, after);
        if (before == nullptr) {
            throw SkipCheck(fmt::format("{} was not in the reading before the device layer", gpu_label(after)));
        }
        GrowthLimits limits;
        limits.pcie_replays_per_15min = ctx.expect(r, "pcie_replays_per_15min");
        limits.aer_correctable_per_15min = ctx.expect(r, "aer_correctable_per_15min");
        limits.nvlink_errors = ctx.expect(r, "max_nvlink_errors");
        const HealthVerdict v = judge_error_growth(*before, after, limits);
        r.facts["elapsed_s"] = std::max(0.0, after.read_at_unix_s - before->read_at_unix_s);
        if (before->pcie_replays.ok() && after.pcie_replays.ok()) {
            r.measurements.push_back(
                measured("pcie_replays_growth",
                         static_cast<double>(*after.pcie_replays.value) - *before->pcie_replays.value, "replays"));
        }
        if (before->aer.ok() && after.aer.ok()) {
            r.measurements.push_back(measured(
                "aer_correctable_growth",
                static_cast<double>(after.aer.value->correctable) - static_cast<double>(before->aer.value->correctable),
                "errors"));
        }
        apply(r, v);
    };
    return d;
}

}  // namespace gpuconform
