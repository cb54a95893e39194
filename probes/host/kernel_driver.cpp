#include "host/kernel_driver.hpp"

#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "host/host_checks.hpp"

namespace gpuconform {

namespace {

std::string loaded(const std::map<std::string, std::string>& drivers) {
    std::vector<std::string> parts;
    for (const auto& [name, version] : drivers) {
        parts.push_back(version == "in-tree" ? name + " (the kernel's own)" : name + " " + version);
    }
    return parts.empty() ? "none" : fmt::format("{}", fmt::join(parts, ", "));
}

}  // namespace

Verdict judge_kernel_driver(const KernelDriverInput& in) {
    if (in.nvidia_gpus == 0 && in.amd_gpus == 0) {
        return {Status::Skip,
                fmt::format("no NVIDIA or AMD GPU on the PCI bus; kernel GPU drivers loaded: {}", loaded(in.drivers)),
                ""};
    }
    std::vector<std::string> missing;
    std::vector<std::string> fixes;
    if (in.nvidia_gpus > 0 && in.drivers.count("nvidia") == 0) {
        missing.push_back(
            fmt::format("{} NVIDIA GPU(s) on the bus but no nvidia kernel module "
                        "(/proc/driver/nvidia/version and /sys/module/nvidia/version absent)",
                        in.nvidia_gpus));
        fixes.push_back(
            "install the NVIDIA driver (nvidia-open or cuda-drivers from NVIDIA's repository, "
            "nvidia-driver on Debian) and `modprobe nvidia`; check dmesg for a nouveau conflict "
            "or an unsigned module under Secure Boot");
    }
    if (in.amd_gpus > 0 && in.drivers.count("amdgpu") == 0) {
        missing.push_back(
            fmt::format("{} AMD GPU(s) on the bus but the amdgpu kernel module is not loaded "
                        "(/sys/module/amdgpu absent)",
                        in.amd_gpus));
        fixes.push_back(
            "`modprobe amdgpu` (the kernel's own) or install amdgpu-dkms from AMD's ROCm repository; "
            "check it is not blacklisted and `nomodeset` is not on the kernel command line");
    }
    if (!missing.empty()) {
        return {Status::Fail, fmt::format("{}", fmt::join(missing, "; ")), fmt::format("{}", fmt::join(fixes, "; "))};
    }
    return {Status::Pass, fmt::format("kernel driver loaded for every GPU on the bus: {}", loaded(in.drivers)), ""};
}

CheckDef make_host_kernel_driver() {
    return host_check("host.kernel_driver", "kernel driver (nvidia / amdgpu) loaded for the GPUs on the bus",
                      [](CheckContext& ctx, CheckResult& r) {
                          KernelDriverInput in{ctx.env.kernel_drivers, count_pci_gpus(ctx.env, "nvidia"),
                                               count_pci_gpus(ctx.env, "amd")};
                          r.facts = {{"drivers", in.drivers}};
                          apply(judge_kernel_driver(in), r);
                      });
}

}  // namespace gpuconform
