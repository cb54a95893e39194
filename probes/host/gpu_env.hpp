// host.env: the environment variables that change GPU runtime behaviour (docs/environment-variables.md).
#pragma once

#include <map>
#include <string>

#include "host/verdict.hpp"

namespace gpuconform {

struct GpuEnvInput {
    std::map<std::string, std::string> vars;  // the recorded ones that are set
    int nvidia_gpus = 0;
    int amd_gpus = 0;
};

Verdict judge_gpu_env(const GpuEnvInput& in);

}  // namespace gpuconform
