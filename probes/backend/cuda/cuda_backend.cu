// The CUDA backend: one CUDA runtime call per interface operation, nothing clever in between,
// so the suite measures NVIDIA's behaviour and not ours. Built as a module with the static
// CUDA runtime: it loads on a node without a driver and reports cudaErrorInsufficientDriver.
#include <cuda_runtime.h>

#include <cstdio>
#include <string>

#include "backend/backend.hpp"
#include "backend/pattern.hpp"

namespace gpuconform {
namespace {

ApiResult wrap(cudaError_t e) {
    if (e == cudaSuccess) {
        return {};
    }
    return {static_cast<int>(e), cudaGetErrorName(e), cudaGetErrorString(e)};
}

// A launch's own error is read (and cleared) right where the launch is made.
ApiResult launch_result() { return wrap(cudaGetLastError()); }

cudaStream_t to_stream(StreamHandle h) { return reinterpret_cast<cudaStream_t>(h); }
cudaEvent_t to_event(EventHandle h) { return reinterpret_cast<cudaEvent_t>(h); }

cudaMemcpyKind to_kind(CopyKind k) {
    switch (k) {
    case CopyKind::HostToDevice:
        return cudaMemcpyHostToDevice;
    case CopyKind::DeviceToHost:
        return cudaMemcpyDeviceToHost;
    case CopyKind::DeviceToDevice:
        return cudaMemcpyDeviceToDevice;
    }
    return cudaMemcpyDefault;
}

__device__ std::uint64_t global_ns() {
    std::uint64_t t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

__global__ void spin_kernel(std::uint64_t ns) {
    const std::uint64_t start = global_ns();
    while (global_ns() - start < ns) {
    }
}

__global__ void fill_kernel(std::uint32_t* words, std::size_t count, std::uint32_t seed) {
    for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += gridDim.x * blockDim.x) {
        words[i] = pattern_word(seed, i);
    }
}

__global__ void verify_kernel(const std::uint32_t* words, std::size_t count, std::uint32_t seed,
                              unsigned long long* mismatches) {
    unsigned long long bad = 0;
    for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += gridDim.x * blockDim.x) {
        bad += words[i] != pattern_word(seed, i) ? 1 : 0;
    }
    if (bad != 0) {
        atomicAdd(mismatches, bad);
    }
}

__global__ void compute_kernel(std::uint64_t iterations, float* sink) {
    float a = threadIdx.x * 1e-3f;
    float b = 1.0001f;
    for (std::uint64_t i = 0; i < iterations; ++i) {
        a = fmaf(a, b, 1e-7f);
    }
    if (a == -1.0f) {  // never true; keeps the loop from being removed
        sink[threadIdx.x] = a;
    }
}

__global__ void fault_kernel(int* bad) { *bad = 1; }

constexpr int k_threads = 256;

int blocks_for(std::size_t count) {
    const std::size_t blocks = (count + k_threads - 1) / k_threads;
    return static_cast<int>(blocks > 4096 ? 4096 : (blocks == 0 ? 1 : blocks));
}

class CudaBackend final : public Backend {
public:
    std::string name() const override { return "cuda"; }
    std::string vendor() const override { return "nvidia"; }

    VersionInfo versions() override {
        VersionInfo v;
        v.driver_status = wrap(cudaDriverGetVersion(&v.driver_version));
        v.runtime_status = wrap(cudaRuntimeGetVersion(&v.runtime_version));
        return v;
    }

    ApiResult device_count(int* count) override { return wrap(cudaGetDeviceCount(count)); }

    ApiResult device_props(int device, DeviceProps* p) override {
        cudaDeviceProp prop{};
        if (auto r = wrap(cudaGetDeviceProperties(&prop, device)); !r.ok()) {
            return r;
        }
        p->name = prop.name;
        p->arch = "sm_" + std::to_string(prop.major) + std::to_string(prop.minor);
        p->total_memory = prop.totalGlobalMem;
        char bus[32] = {};
        std::snprintf(bus, sizeof bus, "%04x:%02x:%02x.0", prop.pciDomainID, prop.pciBusID, prop.pciDeviceID);
        p->pci_bus_id = bus;
        p->async_engine_count = prop.asyncEngineCount;
        p->concurrent_kernels = prop.concurrentKernels != 0;
        p->can_map_host_memory = prop.canMapHostMemory != 0;
        p->multiprocessors = prop.multiProcessorCount;
        return {};
    }

    ApiResult set_device(int device) override { return wrap(cudaSetDevice(device)); }
    ApiResult device_synchronize() override { return wrap(cudaDeviceSynchronize()); }
    ApiResult last_error() override { return wrap(cudaGetLastError()); }

    ApiResult stream_create(StreamKind kind, StreamHandle* stream) override {
        cudaStream_t s = nullptr;
        const unsigned flags = kind == StreamKind::NonBlocking ? cudaStreamNonBlocking : cudaStreamDefault;
        auto r = wrap(cudaStreamCreateWithFlags(&s, flags));
        *stream = reinterpret_cast<StreamHandle>(s);
        return r;
    }
    ApiResult stream_destroy(StreamHandle stream) override { return wrap(cudaStreamDestroy(to_stream(stream))); }
    ApiResult stream_query(StreamHandle stream, bool* done) override {
        const cudaError_t e = cudaStreamQuery(to_stream(stream));
        *done = e == cudaSuccess;
        return e == cudaErrorNotReady ? ApiResult{} : wrap(e);
    }
    ApiResult stream_synchronize(StreamHandle stream) override {
        return wrap(cudaStreamSynchronize(to_stream(stream)));
    }
    ApiResult stream_wait_event(StreamHandle stream, EventHandle event) override {
        return wrap(cudaStreamWaitEvent(to_stream(stream), to_event(event), 0));
    }

    ApiResult event_create(bool timing, EventHandle* event) override {
        cudaEvent_t e = nullptr;
        auto r = wrap(cudaEventCreateWithFlags(&e, timing ? cudaEventDefault : cudaEventDisableTiming));
        *event = reinterpret_cast<EventHandle>(e);
        return r;
    }
    ApiResult event_destroy(EventHandle event) override { return wrap(cudaEventDestroy(to_event(event))); }
    ApiResult event_record(EventHandle event, StreamHandle stream) override {
        return wrap(cudaEventRecord(to_event(event), to_stream(stream)));
    }
    ApiResult event_synchronize(EventHandle event) override { return wrap(cudaEventSynchronize(to_event(event))); }
    ApiResult event_elapsed_ms(EventHandle start, EventHandle end, float* ms) override {
        return wrap(cudaEventElapsedTime(ms, to_event(start), to_event(end)));
    }

    ApiResult host_alloc_pinned(std::size_t bytes, void** ptr) override {
        return wrap(cudaHostAlloc(ptr, bytes, cudaHostAllocDefault));
    }
    ApiResult host_free_pinned(void* ptr) override { return wrap(cudaFreeHost(ptr)); }
    ApiResult host_register(void* ptr, std::size_t bytes) override {
        return wrap(cudaHostRegister(ptr, bytes, cudaHostRegisterDefault));
    }
    ApiResult host_unregister(void* ptr) override { return wrap(cudaHostUnregister(ptr)); }
    ApiResult device_alloc(std::size_t bytes, void** ptr) override { return wrap(cudaMalloc(ptr, bytes)); }
    ApiResult device_free(void* ptr) override { return wrap(cudaFree(ptr)); }
    ApiResult memcpy_async(void* dst, const void* src, std::size_t bytes, CopyKind kind,
                           StreamHandle stream) override {
        return wrap(cudaMemcpyAsync(dst, src, bytes, to_kind(kind), to_stream(stream)));
    }

    ApiResult peer_can_access(int device, int peer, bool* can_access) override {
        int v = 0;
        auto r = wrap(cudaDeviceCanAccessPeer(&v, device, peer));
        *can_access = v != 0;
        return r;
    }
    ApiResult peer_enable(int peer) override {
        const cudaError_t e = cudaDeviceEnablePeerAccess(peer, 0);
        if (e == cudaErrorPeerAccessAlreadyEnabled) {
            cudaGetLastError();  // not an error for us; clear it so it does not surface later
            return {};
        }
        return wrap(e);
    }
    ApiResult peer_rank(int device, int peer, int* rank) override {
        return wrap(cudaDeviceGetP2PAttribute(rank, cudaDevP2PAttrPerformanceRank, device, peer));
    }
    ApiResult memcpy_peer_async(void* dst, int dst_device, const void* src, int src_device, std::size_t bytes,
                                StreamHandle stream) override {
        return wrap(cudaMemcpyPeerAsync(dst, dst_device, src, src_device, bytes, to_stream(stream)));
    }

    ApiResult launch_spin(StreamHandle stream, std::uint64_t ns) override {
        spin_kernel<<<1, 1, 0, to_stream(stream)>>>(ns);
        return launch_result();
    }
    ApiResult launch_fill(StreamHandle stream, std::uint32_t* words, std::size_t count, std::uint32_t seed) override {
        fill_kernel<<<blocks_for(count), k_threads, 0, to_stream(stream)>>>(words, count, seed);
        return launch_result();
    }
    ApiResult launch_verify(StreamHandle stream, const std::uint32_t* words, std::size_t count, std::uint32_t seed,
                            unsigned long long* device_mismatches) override {
        verify_kernel<<<blocks_for(count), k_threads, 0, to_stream(stream)>>>(words, count, seed, device_mismatches);
        return launch_result();
    }
    ApiResult launch_compute(StreamHandle stream, std::uint64_t iterations, float* sink) override {
        int sms = 1;
        if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, current_device()) != cudaSuccess) {
            sms = 1;
        }
        compute_kernel<<<sms, k_threads, 0, to_stream(stream)>>>(iterations, sink);
        return launch_result();
    }
    ApiResult launch_invalid(StreamHandle stream) override {
        spin_kernel<<<1, 1 << 16, 0, to_stream(stream)>>>(0);  // 65536 threads per block: no device allows it
        return launch_result();
    }
    ApiResult launch_fault(StreamHandle stream) override {
        fault_kernel<<<1, 1, 0, to_stream(stream)>>>(reinterpret_cast<int*>(0x10));
        return launch_result();
    }

private:
    static int current_device() {
        int d = 0;
        return cudaGetDevice(&d) == cudaSuccess ? d : 0;
    }
};

}  // namespace
}  // namespace gpuconform

extern "C" __attribute__((visibility("default"))) gpuconform::Backend* gpuconform_create_backend(const char*) {
    return new gpuconform::CudaBackend();
}

extern "C" __attribute__((visibility("default"))) int gpuconform_backend_abi_version() {
    return gpuconform::k_backend_abi_version;
}
