// runtime.<backend>.pci_agreement: the runtime's devices against the GPUs on the PCI bus.
// Fewer devices than GPUs is a fail unless a visible-devices variable explains it.
#include <set>

#include <fmt/format.h>

#include "runtime/runtime_common.hpp"

namespace gpuconform {

namespace {

void judge(const CheckContext& ctx, CheckResult& r, const std::string& backend) {
    const BackendInfo& info = *ctx.backend_info;
    if (backend == "sim") {
        throw SkipCheck("simulated devices have no PCI address");
    }
    if (!info.loaded) {
        throw SkipCheck("backend not loaded (see runtime." + backend + ".load)");
    }
    const auto on_bus = gpus_on_bus(ctx.env, backend);
    if (on_bus.empty() && info.device_count == 0) {
        throw SkipCheck(
            fmt::format("no {} GPU on the PCI bus and none seen by the runtime", pci_vendor_of_backend(backend)));
    }
    std::set<std::string> bus;
    for (const auto& g : on_bus) {
        bus.insert(g.bdf);
    }
    std::set<std::string> seen;
    for (const auto& d : info.devices) {
        if (!d.pci_bus_id.empty()) {
            seen.insert(d.pci_bus_id);
        }
    }
    std::string missing;
    for (const auto& b : bus) {
        if (seen.count(b) == 0) {
            missing += (missing.empty() ? "" : ", ") + b;
        }
    }
    std::string unknown;
    for (const auto& s : seen) {
        if (bus.count(s) == 0) {
            unknown += (unknown.empty() ? "" : ", ") + s;
        }
    }
    r.measurements.push_back({"pci_gpus", static_cast<double>(on_bus.size()), "count", 1, {}, {}});
    r.measurements.push_back({"runtime_devices", static_cast<double>(info.device_count), "count", 1, {}, {}});
    r.facts["missing_from_runtime"] = missing;
    r.facts["not_on_pci_bus"] = unknown;
    const auto filter = visibility_filter(ctx.env, backend);
    if (missing.empty() && unknown.empty()) {
        r.status = Status::Pass;
        r.summary = fmt::format("the runtime sees all {} GPU(s) on the PCI bus, at the same addresses", on_bus.size());
    } else if (!missing.empty() && !filter.empty()) {
        r.status = Status::Info;
        r.summary = fmt::format("runtime sees {} of {} GPUs on the bus; {} selects them (not seen: {})",
                                info.device_count, on_bus.size(), filter, missing);
    } else if (!missing.empty()) {
        r.status = Status::Fail;
        r.summary = fmt::format("runtime sees {} of {} GPUs on the bus; not seen: {}", info.device_count, on_bus.size(),
                                missing);
        r.remediation = likely_causes(ctx.env, backend) + "; check dmesg for Xid / amdgpu errors on the missing GPU";
    } else {
        r.status = Status::Warn;
        r.summary = fmt::format(
            "runtime reports PCI addresses not found in sysfs ({}); sysfs may be hidden (container?)", unknown);
    }
}

}  // namespace

CheckDef make_runtime_pci_agreement(const std::string& backend) {
    CheckDef d;
    d.id = "runtime." + backend + ".pci_agreement";
    d.measurements = {
        measure::diagnostic("pci_gpus", Direction::None, 0.00),
        measure::diagnostic("runtime_devices", Direction::None, 0.00),
    };
    d.layer = "runtime";
    d.description = "The " + display_name(backend) + " runtime's devices agree with the GPUs on the PCI bus";
    d.scope = Scope::Backend;
    d.backend = backend;
    d.run = [backend](CheckContext& ctx, CheckResult& r) { judge(ctx, r, backend); };
    return d;
}

}  // namespace gpuconform
