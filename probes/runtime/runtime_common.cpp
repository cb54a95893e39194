#include "runtime/runtime_common.hpp"

#include <unistd.h>

#include <filesystem>

#include <fmt/format.h>

namespace gpuconform {

std::string pci_vendor_of_backend(const std::string& backend) {
    if (backend == "cuda") {
        return "nvidia";
    }
    if (backend == "hip") {
        return "amd";
    }
    return "";
}

std::string display_name(const std::string& backend) {
    if (backend == "cuda") {
        return "CUDA";
    }
    if (backend == "hip") {
        return "HIP";
    }
    return backend;
}

std::string install_hint(const std::string& backend) {
    if (backend == "cuda") {
        return "install the NVIDIA driver (its libcuda.so.1, e.g. Debian's nvidia-driver or NVIDIA's "
               "cuda-drivers package) and check that the nvidia kernel module is loaded";
    }
    if (backend == "hip") {
        return "install the ROCm/HIP runtime (libamdhip64: Debian/Ubuntu libamdhip64-5 or ROCm's hip-runtime-amd) "
               "and the amdgpu kernel driver";
    }
    return "rebuild gpuconform";
}

std::vector<PciGpu> gpus_on_bus(const Environment& env, const std::string& backend) {
    std::vector<PciGpu> out;
    const auto vendor = pci_vendor_of_backend(backend);
    for (const auto& g : env.pci_gpus) {
        if (!vendor.empty() && g.vendor == vendor) {
            out.push_back(g);
        }
    }
    return out;
}

std::string visibility_filter(const Environment& env, const std::string& backend) {
    std::vector<std::string> names = backend == "cuda"
                                         ? std::vector<std::string>{"CUDA_VISIBLE_DEVICES"}
                                         : std::vector<std::string>{"HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES"};
    std::string out;
    for (const auto& n : names) {
        if (const auto it = env.gpu_env.find(n); it != env.gpu_env.end()) {
            out += fmt::format("{}{}='{}'", out.empty() ? "" : ", ", n, it->second);
        }
    }
    return out;
}

bool visibility_value_hides_all(const std::string& value) {
    const std::string first = value.substr(0, value.find(','));
    if (first.empty()) {
        return true;
    }
    if (first.starts_with("GPU-") || first.starts_with("MIG-")) {
        return false;
    }
    return first.find_first_not_of("0123456789") != std::string::npos;
}

std::string hiding_visibility_variable(const Environment& env, const std::string& backend) {
    const std::vector<std::string> names =
        backend == "cuda"
            ? std::vector<std::string>{"CUDA_VISIBLE_DEVICES"}
            : std::vector<std::string>{"HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES"};
    for (const auto& n : names) {
        if (const auto it = env.gpu_env.find(n); it != env.gpu_env.end() && visibility_value_hides_all(it->second)) {
            return fmt::format("{}=\"{}\"", n, it->second);
        }
    }
    return "";
}

std::string likely_causes(const Environment& env, const std::string& backend) {
    std::vector<std::string> causes;
    if (const auto filter = visibility_filter(env, backend); !filter.empty()) {
        causes.push_back(filter + " hides devices");
    }
    const std::vector<std::string> nodes = backend == "cuda"
                                               ? std::vector<std::string>{"/dev/nvidiactl", "/dev/nvidia0"}
                                               : std::vector<std::string>{"/dev/kfd"};
    for (const auto& node : nodes) {
        if (!std::filesystem::exists(node)) {
            causes.push_back(node + " is missing (kernel driver not loaded?)");
        } else if (access(node.c_str(), R_OK | W_OK) != 0) {
            causes.push_back(node + " is not readable and writable by this user (join the " +
                             std::string(backend == "cuda" ? "video" : "render and video") + " group)");
        }
    }
    const auto vendor = pci_vendor_of_backend(backend);
    if (!vendor.empty() && env.kernel_drivers.count(vendor == "amd" ? "amdgpu" : "nvidia") == 0) {
        causes.push_back(fmt::format("no {} kernel driver version found", vendor == "amd" ? "amdgpu" : "nvidia"));
    }
    if (causes.empty()) {
        causes.push_back("the runtime package may be missing or too old: " +
                         std::string(backend == "cuda" ? "install the NVIDIA driver that matches the kernel module"
                                                       : "install ROCm's HIP runtime"));
    }
    std::string out;
    for (const auto& c : causes) {
        out += (out.empty() ? "" : "; ") + c;
    }
    return out;
}

}  // namespace gpuconform
