// The pieces collect_environment() is assembled from, exposed for tests and for checks that
// need to look again (device nodes, vm settings).
#pragma once

#include <array>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/environment.hpp"
#include "host/environment_reader.hpp"

namespace gpuconform {

// Environment variables that change GPU runtime behaviour (docs/environment-variables.md), recorded when set.
inline constexpr std::array<std::string_view, 17> k_gpu_env_vars{
    "HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "HSA_ENABLE_SDMA", "GPU_MAX_HW_QUEUES",
    "HIP_LAUNCH_BLOCKING", "AMD_SERIALIZE_KERNEL", "AMD_SERIALIZE_COPY", "GPU_STAGING_BUFFER_SIZE",
    "AMD_DIRECT_DISPATCH", "CUDA_VISIBLE_DEVICES", "CUDA_LAUNCH_BLOCKING", "CUDA_DEVICE_MAX_CONNECTIONS",
    "CUDA_MODULE_LOADING", "CUDA_DEVICE_ORDER", "CUDA_MPS_PIPE_DIRECTORY", "NVIDIA_VISIBLE_DEVICES",
    "GPU_DEVICE_ORDINAL",
};

// GPUs (display class, NVIDIA or AMD) under <root>/sys/bus/pci/devices, sorted by address.
std::vector<PciGpu> scan_pci_gpus(const std::string& root);

// "nvidia" -> version from /proc/driver/nvidia/version (else /sys/module/nvidia/version);
// "amdgpu" -> /sys/module/amdgpu/version, or "in-tree" when the module is loaded without one
// (the distro kernel's own amdgpu has no version file; the DKMS one from ROCm does).
std::map<std::string, std::string> read_kernel_drivers(const std::string& root);

// NUMA memory nodes under <root>/sys/devices/system/node (at least 1).
int count_numa_nodes(const std::string& root);

// Facts of the running process, not of `root`: host name, glibc, RLIMIT_MEMLOCK, uid, user,
// groups, CAP_IPC_LOCK and the variables of k_gpu_env_vars.
void collect_process_facts(Environment& env);
// The variables of gpu_env_vars() (and k_gpu_env_vars) set in `environment` (an environ-style
// list) into env.gpu_env, made valid UTF-8; invalid values keep their raw bytes in gpu_env_raw.
void collect_gpu_env(char** environment, Environment& env);

}  // namespace gpuconform
