// The driver against every CUDA runtime on the node: toolkits, libcudart that ldconfig knows, torch's.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "host/verdict.hpp"

namespace gpuconform {

// The highest CUDA version (13000 = 13.0) a Linux driver of this kernel-module version supports,
// from NVIDIA's "CUDA Toolkit and Corresponding Driver Versions" table (GA releases); 0 when older
// than CUDA 11.8 or unparsable.
int cuda_capability_of_driver(const std::string& kernel_module);

// "libcudart.so.12 (libc6,x86-64) => /usr/lib/x86_64-linux-gnu/libcudart.so.12" lines -> paths.
std::vector<std::string> parse_ldconfig_cudart(const std::string& ldconfig_p);

// "libcudart.so.12.4.127" -> 12040; "libcudart.so.13" -> 13000 (major only).
std::optional<int> cudart_version_from_name(const std::string& file_name);

// torch/version.py: "cuda = '12.4'" or "cuda: Optional[str] = '12.8'" -> 12040; nullopt for None (CPU build).
std::optional<int> parse_torch_cuda(const std::string& version_py);

struct CudaRuntimeSeen {
    std::string where;  // "/usr/local/cuda-12.4 (cuda_runtime_api.h)", "torch 2.11 (…/version.py)"
    int version = 0;    // 12040
};

Verdict judge_cuda_runtimes(const std::vector<CudaRuntimeSeen>& runtimes, const std::string& kernel_module,
                            int nvidia_gpus);

}  // namespace gpuconform
