// runtime.<backend>.devices: the devices the runtime sees, with their properties.
#include <fmt/format.h>

#include "runtime/runtime_common.hpp"

namespace gpuconform {

namespace {

std::string describe(const DeviceProps& p) {
    return fmt::format("{} ({}, {}, {:.0f} GiB, {} copy engines{}{})", p.name, p.arch,
                       p.pci_bus_id.empty() ? "no PCI address" : p.pci_bus_id,
                       static_cast<double>(p.total_memory) / (1ull << 30), p.async_engine_count,
                       p.concurrent_kernels ? ", concurrent kernels" : "",
                       p.can_map_host_memory ? ", maps host memory" : "");
}

void judge(const CheckContext& ctx, CheckResult& r, const std::string& backend) {
    const BackendInfo& info = *ctx.backend_info;
    if (!info.loaded) {
        throw SkipCheck("backend not loaded (see runtime." + backend + ".load)");
    }
    const auto on_bus = gpus_on_bus(ctx.env, backend);
    r.measurements.push_back({"device_count", static_cast<double>(info.device_count), "count", 1, {}, {}});
    if (!info.count_status.ok() || info.device_count == 0) {
        const std::string seen = info.count_status.ok()
                                     ? "0 devices"
                                     : fmt::format("{} ({})", info.count_status.name, info.count_status.message);
        if (on_bus.empty()) {
            throw SkipCheck(fmt::format("{} runtime sees no device: {}; no {} GPU on the PCI bus",
                                        display_name(backend), seen,
                                        backend == "sim" ? "simulated" : pci_vendor_of_backend(backend)));
        }
        if (const auto hider = hiding_visibility_variable(ctx.env, backend); !hider.empty()) {
            // The operator's variable, not the install: nothing here can be judged.
            r.status = Status::Skip;
            r.attribution = "host";
            r.summary = fmt::format("{} hides all {} GPU(s) on the PCI bus from the {} runtime ({}): not judged", hider,
                                    on_bus.size(), display_name(backend), seen);
            r.remediation = "unset it, or list the GPUs to test, to judge the install";
            return;
        }
        r.status = Status::Fail;
        r.summary = fmt::format("{} GPU(s) on the PCI bus, but the {} runtime sees none: {}", on_bus.size(),
                                display_name(backend), seen);
        r.remediation = likely_causes(ctx.env, backend);
        return;
    }
    std::string list;
    int unreadable = 0;
    for (std::size_t i = 0; i < info.devices.size(); ++i) {
        const bool ok = i >= info.device_errors.size() || info.device_errors[i].ok();
        if (!ok) {
            ++unreadable;
            list += fmt::format("{}#{}: properties unreadable ({})", list.empty() ? "" : "; ", i,
                                info.device_errors[i].name);
            continue;
        }
        r.facts["devices"].push_back(info.devices[i]);
        list += fmt::format("{}#{}: {}", list.empty() ? "" : "; ", i, describe(info.devices[i]));
    }
    r.status = unreadable > 0 ? Status::Fail : Status::Pass;
    r.summary = fmt::format("{} device(s): {}", info.device_count, list);
    if (unreadable > 0) {
        r.remediation = "a device whose properties cannot be read is unusable; check dmesg for Xid/amdgpu errors";
    }
}

}  // namespace

CheckDef make_runtime_devices(const std::string& backend) {
    CheckDef d;
    d.id = "runtime." + backend + ".devices";
    d.measurements = {
        measure::diagnostic("device_count", Direction::None, 0.00),
    };
    d.layer = "runtime";
    d.description =
        "Devices the " + display_name(backend) + " runtime sees, with name, arch, PCI address, memory, engines";
    d.scope = Scope::Backend;
    d.backend = backend;
    d.run = [backend](CheckContext& ctx, CheckResult& r) { judge(ctx, r, backend); };
    return d;
}

}  // namespace gpuconform
