// The HIP facts the shared GPU backend body (backend/gpu/gpu_backend_body.hpp) is written
// against; nothing here but what differs from CUDA. Every other runtime name is the prefix
// below + the name the body spells with GC_RT (GC_RT(StreamCreateWithFlags) is
// hipStreamCreateWithFlags); the prefix is also the backend's name.
#pragma once

#include <hip/hip_fp16.h>
#include <hip/hip_runtime.h>

#include <cstdint>
#include <string>

#include "backend/backend.hpp"

#define GC_RT_PREFIX hip

namespace gpuconform::vendor {

constexpr const char* k_vendor_name = "amd";

using DeviceProp = hipDeviceProp_t;

// HIP has no cudaStreamLegacy handle: its null stream has the legacy default-stream semantics.
// hipStreamPerThread is (hipStream_t)2, our k_per_thread_stream, and passes through.
inline hipStream_t native_stream(StreamHandle h) {
    return h == k_legacy_stream ? nullptr : reinterpret_cast<hipStream_t>(h);
}

inline hipError_t host_alloc(void** ptr, std::size_t bytes) { return hipHostMalloc(ptr, bytes, hipHostMallocDefault); }
inline hipError_t host_free(void* ptr) { return hipHostFree(ptr); }
// The word releasable spins read: mapped for every device, and coherent, so the device reads the
// host's writes rather than a cached copy
// (https://rocm.docs.amd.com/projects/HIP/en/latest/doxygen/html/group___memory.html, hipHostMalloc; HIP_HOST_COHERENT
// decides only when no flag does).
inline hipError_t host_alloc_mapped(void** ptr, std::size_t bytes) {
    return hipHostMalloc(ptr, bytes, hipHostMallocMapped | hipHostMallocPortable | hipHostMallocCoherent);
}

// gcnArchName is "gfx90a:sramecc+:xnack-": the target features after the name are dropped.
inline std::string arch_name(const DeviceProp& p) {
    const std::string gcn = p.gcnArchName;
    return gcn.substr(0, gcn.find(':'));
}

// Read through the attribute, as ROCm's own tools do; ROCm answers a constant here rather than
// a count of engines, and it is recorded as reported (-1 when the query fails).
inline int copy_engines(const DeviceProp& /*p*/, int device) {
    int engines = -1;
    if (hipDeviceGetAttribute(&engines, hipDeviceAttributeAsyncEngineCount, device) != hipSuccess) {
        engines = -1;
    }
    return engines;
}

// The spin kernel's clock: wall_clock64(), a constant-rate counter (100 MHz on gfx9 and RDNA
// parts; s_memrealtime on gfx8-gfx10, the steady counter on gfx11). Some HIP releases declare
// it for the device pass only, hence the guard.
__device__ inline std::uint64_t spin_clock() {
#if defined(__HIP_DEVICE_COMPILE__)
    return static_cast<std::uint64_t>(::wall_clock64());
#else
    return 0;
#endif
}

// HIP 5.7 and later report the wall clock's rate; HIP 5.2 (Debian 12) does not: 100 MHz then.
inline std::uint64_t spin_clock_khz(int device) {
#if HIP_VERSION >= 50700000
    int khz = 0;
    if (hipDeviceGetAttribute(&khz, hipDeviceAttributeWallClockRate, device) == hipSuccess && khz > 0) {
        return static_cast<std::uint64_t>(khz);
    }
#else
    (void)device;
#endif
    return 100000;
}

// The memory interface for the HBM peak (hipDeviceAttributeMemoryClockRate, ...MemoryBusWidth:
// https://rocm.docs.amd.com/projects/HIP/en/latest/doxygen/html/group___global_defs.html).
inline hipError_t memory_interface(int device, int* clock_khz, int* bus_bits) {
    const hipError_t e = hipDeviceGetAttribute(clock_khz, hipDeviceAttributeMemoryClockRate, device);
    return e != hipSuccess ? e : hipDeviceGetAttribute(bus_bits, hipDeviceAttributeMemoryBusWidth, device);
}

// The matrix multiply would go through hipBLAS (hipblasGemmEx); it is not wired in yet, so the
// acceptance layer's multiply skips on AMD GPUs saying so.
class Blas {
public:
    std::string open() { return "the HIP module has no matrix multiply yet (hipBLAS is not wired in)"; }
    int gemm(hipStream_t, const void*, const void*, float*, int, int, int) { return -1; }
    static constexpr const char* k_name = "hipBLAS";
};

}  // namespace gpuconform::vendor
