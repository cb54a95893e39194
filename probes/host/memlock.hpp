// host.memlock: what RLIMIT_MEMLOCK means on this node (docs/vendor-behaviour.md, "Pinned memory"):
// NVIDIA's pinned memory (cudaHostAlloc/cudaHostRegister) is not bound by it; mlock,
// RDMA/ibverbs (GPUDirect, NCCL over InfiniBand) and ROCm's pinned-memory accounting are;
// CAP_IPC_LOCK ignores it, so "it works as root" proves nothing for other users.
#pragma once

#include <cstdint>
#include <optional>

#include "host/verdict.hpp"

namespace gpuconform {

struct MemlockInput {
    std::optional<std::uint64_t> soft;  // empty = unlimited
    std::optional<std::uint64_t> hard;
    bool cap_ipc_lock = false;
    bool amd_gpu = false;
    bool nvidia_gpu = false;
    std::optional<double> min_soft_bytes;      // profile: below this, mlock/RDMA users are warned
    std::optional<double> amd_min_soft_bytes;  // profile: below this, ROCm users are warned
};

Verdict judge_memlock(const MemlockInput& in);

}  // namespace gpuconform
