// The CUDA facts the shared GPU backend body (backend/gpu/gpu_backend_body.hpp) is written
// against; nothing here but what differs from HIP. Every other runtime name is the prefix
// below + the name the body spells with GC_RT (GC_RT(StreamCreateWithFlags) is
// cudaStreamCreateWithFlags); the prefix is also the backend's name.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "backend/backend.hpp"

#define GC_RT_PREFIX cuda

namespace gpuconform::vendor {

constexpr const char* k_vendor_name = "nvidia";

using DeviceProp = cudaDeviceProp;

// k_legacy_stream and k_per_thread_stream are CUDA's own cudaStreamLegacy (0x1) and
// cudaStreamPerThread (0x2), so every handle is the runtime's as it is.
inline cudaStream_t native_stream(StreamHandle h) { return reinterpret_cast<cudaStream_t>(h); }

inline cudaError_t host_alloc(void** ptr, std::size_t bytes) { return cudaHostAlloc(ptr, bytes, cudaHostAllocDefault); }
inline cudaError_t host_free(void* ptr) { return cudaFreeHost(ptr); }

inline std::string arch_name(const DeviceProp& p) { return "sm_" + std::to_string(p.major) + std::to_string(p.minor); }

inline int copy_engines(const DeviceProp& p, int /*device*/) { return p.asyncEngineCount; }

// The spin kernel's clock: PTX %globaltimer, nanoseconds on every architecture
// (https://docs.nvidia.com/cuda/parallel-thread-execution/#special-registers-globaltimer).
__device__ inline std::uint64_t spin_clock() {
    std::uint64_t t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

// 1 GHz: a tick is a nanosecond; no runtime call.
inline std::uint64_t spin_clock_khz(int /*device*/) { return 1000000; }

}  // namespace gpuconform::vendor
