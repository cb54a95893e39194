// The CUDA facts the shared GPU backend body (backend/gpu/gpu_backend_body.hpp) is written
// against; nothing here but what differs from HIP. Every other runtime name is the prefix
// below + the name the body spells with GC_RT (GC_RT(StreamCreateWithFlags) is
// cudaStreamCreateWithFlags); the prefix is also the backend's name.
#pragma once

#include <cublas_api.h>  // types and constants only: cuBLAS itself is opened with dlopen
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <dlfcn.h>

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
// The word releasable spins read: pinned for every device and mapped into their address space
// (https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__MEMORY.html, cudaHostAlloc).
inline cudaError_t host_alloc_mapped(void** ptr, std::size_t bytes) {
    return cudaHostAlloc(ptr, bytes, cudaHostAllocMapped | cudaHostAllocPortable);
}

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

// The memory interface for the HBM peak (device attributes 36 and 37:
// https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__TYPES.html, cudaDeviceAttr).
inline cudaError_t memory_interface(int device, int* clock_khz, int* bus_bits) {
    const cudaError_t e = cudaDeviceGetAttribute(clock_khz, cudaDevAttrMemoryClockRate, device);
    return e != cudaSuccess ? e : cudaDeviceGetAttribute(bus_bits, cudaDevAttrGlobalMemoryBusWidth, device);
}

// cuBLAS, opened on the acceptance layer's first matrix multiply and never linked, so the module
// loads where cuBLAS is not installed (the multiply then skips saying so). The soname follows the
// toolkit's major version, as NVIDIA's packages install it.
class Blas {
public:
    // "" when ready, else why not.
    std::string open() {
        if (m_handle != nullptr || !m_error.empty()) {
            return m_error;
        }
        const std::string soname = "libcublas.so." + std::to_string(CUDART_VERSION / 1000);
        void* lib = dlopen(soname.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (lib == nullptr) {
            m_error = "cuBLAS could not be opened (" + soname + ": " + dlerror() + ")";
            return m_error;
        }
        m_create = reinterpret_cast<decltype(m_create)>(dlsym(lib, "cublasCreate_v2"));
        m_set_stream = reinterpret_cast<decltype(m_set_stream)>(dlsym(lib, "cublasSetStream_v2"));
        m_gemm = reinterpret_cast<decltype(m_gemm)>(dlsym(lib, "cublasGemmEx"));
        if (m_create == nullptr || m_set_stream == nullptr || m_gemm == nullptr) {
            m_error = soname + " lacks cublasCreate_v2, cublasSetStream_v2 or cublasGemmEx";
            return m_error;
        }
        if (const cublasStatus_t st = m_create(&m_handle); st != CUBLAS_STATUS_SUCCESS) {
            m_handle = nullptr;
            m_error = "cublasCreate failed with status " + std::to_string(static_cast<int>(st));
        }
        return m_error;
    }
    // c = a * b: FP16 inputs, FP32 accumulation and output, column-major, tensor cores allowed
    // (https://docs.nvidia.com/cuda/cublas/#cublasgemmex). Returns the cuBLAS status.
    int gemm(cudaStream_t stream, const void* a, const void* b, float* c, int m, int n, int k) {
        const float one = 1.0f;
        const float zero = 0.0f;
        if (const cublasStatus_t st = m_set_stream(m_handle, stream); st != CUBLAS_STATUS_SUCCESS) {
            return static_cast<int>(st);
        }
        return static_cast<int>(m_gemm(m_handle, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one, a, CUDA_R_16F, m, b,
                                       CUDA_R_16F, k, &zero, c, CUDA_R_32F, m, CUBLAS_COMPUTE_32F,
                                       CUBLAS_GEMM_DEFAULT));
    }
    static constexpr const char* k_name = "cuBLAS";

private:
    cublasHandle_t m_handle = nullptr;
    std::string m_error;
    cublasStatus_t (*m_create)(cublasHandle_t*) = nullptr;
    cublasStatus_t (*m_set_stream)(cublasHandle_t, cudaStream_t) = nullptr;
    cublasStatus_t (*m_gemm)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int, const void*,
                             const void*, cudaDataType, int, const void*, cudaDataType, int, const void*, void*,
                             cudaDataType, int, cublasComputeType_t, cublasGemmAlgo_t) = nullptr;
};

}  // namespace gpuconform::vendor
