// The pieces collect_environment() is assembled from, exposed for tests and for checks that
// need to look again (device nodes, vm settings).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/environment.hpp"
#include "host/environment_reader.hpp"

namespace gpuconform {

// GPUs (display class, NVIDIA or AMD) under <root>/sys/bus/pci/devices, sorted by address.
std::vector<PciGpu> scan_pci_gpus(const std::string& root);

// "nvidia" -> version from /proc/driver/nvidia/version (else /sys/module/nvidia/version);
// "amdgpu" -> /sys/module/amdgpu/version, or "in-tree" when the module is loaded without one
// (the distro kernel's own amdgpu has no version file; the DKMS one from ROCm does).
std::map<std::string, std::string> read_kernel_drivers(const std::string& root);

// NUMA memory nodes under <root>/sys/devices/system/node (at least 1).
int count_numa_nodes(const std::string& root);

// Facts of the running process, not of `root`: host name, glibc, RLIMIT_MEMLOCK, uid, user,
// groups, CAP_IPC_LOCK and the GPU variables that are set.
void collect_process_facts(Environment& env);
// The variables of gpu_env_vars() (the one table, host/gpu_env_vars.cpp) set in `environment` (an environ-style
// list) into env.gpu_env, made valid UTF-8; invalid values keep their raw bytes in gpu_env_raw.
void collect_gpu_env(char** environment, Environment& env);

}  // namespace gpuconform
