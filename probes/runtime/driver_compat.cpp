// runtime.<backend>.driver_compat: driver and runtime versions, as separate fields, and whether they fit.
#include "runtime/driver_compat.hpp"

#include <sstream>
#include <vector>

#include <fmt/format.h>

#include "runtime/runtime_common.hpp"

namespace gpuconform {

std::string cuda_minor_compat_minimum(int major) {
    // From NVIDIA's CUDA Toolkit release notes, "CUDA Toolkit and Minimum Required Driver Version
    // for CUDA Minor Version Compatibility" (Linux x86_64).
    switch (major) {
        case 11:
            return "450.80.02";
        case 12:
            return "525.60.13";
        case 13:
            return "580.65.06";
        default:
            return "";
    }
}

int compare_dotted(const std::string& a, const std::string& b) {
    auto parts = [](const std::string& s) {
        std::vector<long> out;
        std::stringstream ss(s);
        std::string item;
        while (std::getline(ss, item, '.')) {
            out.push_back(std::strtol(item.c_str(), nullptr, 10));
        }
        return out;
    };
    const auto pa = parts(a);
    const auto pb = parts(b);
    for (std::size_t i = 0; i < std::max(pa.size(), pb.size()); ++i) {
        const long x = i < pa.size() ? pa[i] : 0;
        const long y = i < pb.size() ? pb[i] : 0;
        if (x != y) {
            return x < y ? -1 : 1;
        }
    }
    return 0;
}

CompatVerdict judge_cuda_compat(int driver_api, int runtime, const std::string& kernel_module) {
    const auto drv = format_version("cuda", driver_api);
    const auto rt = format_version("cuda", runtime);
    if (driver_api <= 0) {
        return {Status::Fail, fmt::format("no CUDA driver: cudaDriverGetVersion reports 0 (runtime {})", rt),
                install_hint("cuda")};
    }
    if (driver_api >= runtime) {
        return {Status::Pass, fmt::format("driver supports CUDA {} ≥ runtime {} (rule: driver ≥ runtime)", drv, rt),
                ""};
    }
    const std::string minimum = cuda_minor_compat_minimum(runtime / 1000);
    if (driver_api / 1000 == runtime / 1000 && !minimum.empty() && !kernel_module.empty() &&
        compare_dotted(kernel_module, minimum) >= 0) {
        return {Status::Pass,
                fmt::format("runtime {} on driver CUDA {} (kernel module {}): minor-version compatibility applies "
                            "(needs ≥ {}); features newer than {} are unavailable",
                            rt, drv, kernel_module, minimum, drv),
                ""};
    }
    return {
        Status::Fail,
        fmt::format("runtime {} needs a driver for CUDA ≥ {}{}; found CUDA {} (kernel module {})", rt, rt,
                    minimum.empty() ? "" : fmt::format(" or, within {}.x, kernel module ≥ {}", runtime / 1000, minimum),
                    drv, kernel_module.empty() ? "unknown" : kernel_module),
        "upgrade the NVIDIA driver, or use a build of the application for an older CUDA"};
}

namespace {

std::string kernel_module_of(const Environment& env, const std::string& backend) {
    const auto it = env.kernel_drivers.find(backend == "hip" ? "amdgpu" : "nvidia");
    return it == env.kernel_drivers.end() ? "" : it->second;
}

void judge(const CheckContext& ctx, CheckResult& r, const std::string& backend) {
    const BackendInfo& info = *ctx.backend_info;
    if (!info.loaded) {
        throw SkipCheck("backend not loaded (see runtime." + backend + ".load)");
    }
    const auto& v = info.versions;
    const auto module = kernel_module_of(ctx.env, backend);
    r.facts["driver_version"] = format_version(backend, v.driver_version);
    r.facts["runtime_version"] = format_version(backend, v.runtime_version);
    r.facts["kernel_module_version"] = module;
    if (!v.driver_status.ok() || !v.runtime_status.ok()) {
        const auto& bad = v.driver_status.ok() ? v.runtime_status : v.driver_status;
        const bool needed = !gpus_on_bus(ctx.env, backend).empty();
        r.status = needed ? Status::Fail : Status::Skip;
        r.summary = fmt::format("version query failed: {} ({}){}", bad.name, bad.message,
                                needed ? "" : "; no GPU of this vendor on the bus");
        r.remediation = needed ? install_hint(backend) : "";
        return;
    }
    if (backend == "cuda") {
        if (v.driver_version <= 0 && gpus_on_bus(ctx.env, backend).empty()) {
            throw SkipCheck(fmt::format("no CUDA driver (runtime {}) and no NVIDIA GPU on the PCI bus",
                                        format_version(backend, v.runtime_version)));
        }
        const auto verdict = judge_cuda_compat(v.driver_version, v.runtime_version, module);
        r.status = verdict.status;
        r.summary = verdict.summary;
        r.remediation = verdict.remediation;
        r.expectation["rule"] = "driver >= runtime, or same major with kernel module >= the major's minimum";
        r.expectation["minor_compat_minimum"] = cuda_minor_compat_minimum(v.runtime_version / 1000);
        return;
    }
    // HIP: hipDriverGetVersion returns the HIP version, not the kernel driver's; no documented
    // rule to assert between them, so this is recorded (docs/vendor-behaviour.md, "HIP and ROCm differences").
    r.status = Status::Info;
    r.summary = fmt::format("{} runtime {}, driver query {}; kernel module {}", display_name(backend),
                            format_version(backend, v.runtime_version), format_version(backend, v.driver_version),
                            module.empty() ? (backend == "hip" ? "amdgpu: no version (not loaded)" : "n/a") : module);
}

}  // namespace

CheckDef make_runtime_driver_compat(const std::string& backend) {
    CheckDef d;
    d.id = "runtime." + backend + ".driver_compat";
    d.layer = "runtime";
    d.description = "Driver and " + display_name(backend) + " runtime versions, and whether they fit";
    d.scope = Scope::Backend;
    d.backend = backend;
    d.run = [backend](CheckContext& ctx, CheckResult& r) { judge(ctx, r, backend); };
    return d;
}

}  // namespace gpuconform
