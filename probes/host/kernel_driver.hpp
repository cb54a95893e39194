// host.kernel_driver: the nvidia / amdgpu kernel module a GPU on the bus needs.
#pragma once

#include <map>
#include <string>

#include "host/verdict.hpp"

namespace gpuconform {

struct KernelDriverInput {
    std::map<std::string, std::string> drivers;  // Environment::kernel_drivers
    int nvidia_gpus = 0;
    int amd_gpus = 0;
};

Verdict judge_kernel_driver(const KernelDriverInput& in);

}  // namespace gpuconform
