// The HIP backend: one HIP runtime call per interface operation, nothing clever in between, so
// the suite measures AMD's behaviour and not ours. Built by hipcc as a module; it links
// libamdhip64 dynamically, so a node without ROCm sees the loader's own message for it.
// Kept line-for-line parallel to cuda/cuda_backend.cu (the device-check logic is shared, not here).
#include <hip/hip_runtime.h>

#include <cstdio>
#include <string>

#include "backend/backend.hpp"
#include "backend/pattern.hpp"

namespace gpuconform {
namespace {

ApiResult wrap(hipError_t e) {
    if (e == hipSuccess) {
        return {};
    }
    return {static_cast<int>(e), hipGetErrorName(e), hipGetErrorString(e)};
}

// A launch's own error is read (and cleared) right where the launch is made.
ApiResult launch_result() { return wrap(hipGetLastError()); }

// HIP's null stream has the legacy default-stream semantics; hipStreamPerThread is (hipStream_t)2.
hipStream_t to_stream(StreamHandle h) {
    return h == k_legacy_stream ? nullptr : reinterpret_cast<hipStream_t>(h);
}
hipEvent_t to_event(EventHandle h) { return reinterpret_cast<hipEvent_t>(h); }

hipMemcpyKind to_kind(CopyKind k) {
    switch (k) {
    case CopyKind::HostToDevice:
        return hipMemcpyHostToDevice;
    case CopyKind::DeviceToHost:
        return hipMemcpyDeviceToHost;
    case CopyKind::DeviceToDevice:
        return hipMemcpyDeviceToDevice;
    }
    return hipMemcpyDefault;
}

// HIP's own wall_clock64() is a constant-rate counter (100 MHz on gfx9 and RDNA parts) and picks
// the one each target has (s_memrealtime on gfx8-gfx10, the steady counter on gfx11); some HIP
// releases declare it for the device pass only. HIP 5.7 and later report its rate.
__device__ std::uint64_t wall_ticks() {
#if defined(__HIP_DEVICE_COMPILE__)
    return static_cast<std::uint64_t>(::wall_clock64());
#else
    return 0;
#endif
}

__global__ void spin_kernel(std::uint64_t ticks) {
    const std::uint64_t start = wall_ticks();
    while (wall_ticks() - start < ticks) {
    }
}

std::uint64_t wall_clock_khz(int device) {
#if HIP_VERSION >= 50700000  // seen in HIP 5.7 (Debian 13); absent from HIP 5.2 (Debian 12)
    int khz = 0;
    if (hipDeviceGetAttribute(&khz, hipDeviceAttributeWallClockRate, device) == hipSuccess && khz > 0) {
        return static_cast<std::uint64_t>(khz);
    }
#else
    (void)device;
#endif
    return 100000;
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

class HipBackend final : public Backend {
public:
    std::string name() const override { return "hip"; }
    std::string vendor() const override { return "amd"; }

    VersionInfo versions() override {
        VersionInfo v;
        v.driver_status = wrap(hipDriverGetVersion(&v.driver_version));
        v.runtime_status = wrap(hipRuntimeGetVersion(&v.runtime_version));
        return v;
    }

    ApiResult device_count(int* count) override { return wrap(hipGetDeviceCount(count)); }

    ApiResult device_props(int device, DeviceProps* p) override {
        hipDeviceProp_t prop{};
        if (auto r = wrap(hipGetDeviceProperties(&prop, device)); !r.ok()) {
            return r;
        }
        p->name = prop.name;
        const std::string gcn = prop.gcnArchName;  // "gfx90a:sramecc+:xnack-"
        p->arch = gcn.substr(0, gcn.find(':'));
        p->total_memory = prop.totalGlobalMem;
        char bus[32] = {};
        std::snprintf(bus, sizeof bus, "%04x:%02x:%02x.0", prop.pciDomainID, prop.pciBusID, prop.pciDeviceID);
        p->pci_bus_id = bus;
        // ROCm answers a constant here, not a count of engines (REFERENCE.md): recorded as reported.
        int engines = -1;
        if (hipDeviceGetAttribute(&engines, hipDeviceAttributeAsyncEngineCount, device) != hipSuccess) {
            engines = -1;
        }
        p->async_engine_count = engines;
        p->concurrent_kernels = prop.concurrentKernels != 0;
        p->can_map_host_memory = prop.canMapHostMemory != 0;
        p->multiprocessors = prop.multiProcessorCount;
        return {};
    }

    ApiResult set_device(int device) override { return wrap(hipSetDevice(device)); }
    ApiResult device_synchronize() override { return wrap(hipDeviceSynchronize()); }
    ApiResult last_error() override { return wrap(hipGetLastError()); }

    ApiResult stream_create(StreamKind kind, StreamHandle* stream) override {
        hipStream_t s = nullptr;
        const unsigned flags = kind == StreamKind::NonBlocking ? hipStreamNonBlocking : hipStreamDefault;
        auto r = wrap(hipStreamCreateWithFlags(&s, flags));
        *stream = reinterpret_cast<StreamHandle>(s);
        return r;
    }
    ApiResult stream_destroy(StreamHandle stream) override { return wrap(hipStreamDestroy(to_stream(stream))); }
    ApiResult stream_query(StreamHandle stream, bool* done) override {
        const hipError_t e = hipStreamQuery(to_stream(stream));
        *done = e == hipSuccess;
        return e == hipErrorNotReady ? ApiResult{} : wrap(e);
    }
    ApiResult stream_synchronize(StreamHandle stream) override {
        return wrap(hipStreamSynchronize(to_stream(stream)));
    }
    ApiResult stream_wait_event(StreamHandle stream, EventHandle event) override {
        return wrap(hipStreamWaitEvent(to_stream(stream), to_event(event), 0));
    }

    ApiResult event_create(bool timing, EventHandle* event) override {
        hipEvent_t e = nullptr;
        auto r = wrap(hipEventCreateWithFlags(&e, timing ? hipEventDefault : hipEventDisableTiming));
        *event = reinterpret_cast<EventHandle>(e);
        return r;
    }
    ApiResult event_destroy(EventHandle event) override { return wrap(hipEventDestroy(to_event(event))); }
    ApiResult event_record(EventHandle event, StreamHandle stream) override {
        return wrap(hipEventRecord(to_event(event), to_stream(stream)));
    }
    ApiResult event_synchronize(EventHandle event) override { return wrap(hipEventSynchronize(to_event(event))); }
    ApiResult event_elapsed_ms(EventHandle start, EventHandle end, float* ms) override {
        return wrap(hipEventElapsedTime(ms, to_event(start), to_event(end)));
    }

    ApiResult host_alloc_pinned(std::size_t bytes, void** ptr) override {
        return wrap(hipHostMalloc(ptr, bytes, hipHostMallocDefault));
    }
    ApiResult host_free_pinned(void* ptr) override { return wrap(hipHostFree(ptr)); }
    ApiResult host_register(void* ptr, std::size_t bytes) override {
        return wrap(hipHostRegister(ptr, bytes, hipHostRegisterDefault));
    }
    ApiResult host_unregister(void* ptr) override { return wrap(hipHostUnregister(ptr)); }
    ApiResult device_alloc(std::size_t bytes, void** ptr) override { return wrap(hipMalloc(ptr, bytes)); }
    ApiResult device_free(void* ptr) override { return wrap(hipFree(ptr)); }
    ApiResult memcpy_async(void* dst, const void* src, std::size_t bytes, CopyKind kind,
                           StreamHandle stream) override {
        return wrap(hipMemcpyAsync(dst, src, bytes, to_kind(kind), to_stream(stream)));
    }

    ApiResult peer_can_access(int device, int peer, bool* can_access) override {
        int v = 0;
        auto r = wrap(hipDeviceCanAccessPeer(&v, device, peer));
        *can_access = v != 0;
        return r;
    }
    ApiResult peer_enable(int peer) override {
        const hipError_t e = hipDeviceEnablePeerAccess(peer, 0);
        if (e == hipErrorPeerAccessAlreadyEnabled) {
            (void)hipGetLastError();  // not an error for us; clear it so it does not surface later
            return {};
        }
        return wrap(e);
    }
    ApiResult peer_rank(int device, int peer, int* rank) override {
        return wrap(hipDeviceGetP2PAttribute(rank, hipDevP2PAttrPerformanceRank, device, peer));
    }
    ApiResult memcpy_peer_async(void* dst, int dst_device, const void* src, int src_device, std::size_t bytes,
                                StreamHandle stream) override {
        return wrap(hipMemcpyPeerAsync(dst, dst_device, src, src_device, bytes, to_stream(stream)));
    }

    ApiResult launch_spin(StreamHandle stream, std::uint64_t ns) override {
        const std::uint64_t ticks = ns * wall_clock_khz(current_device()) / 1000000ull;
        spin_kernel<<<1, 1, 0, to_stream(stream)>>>(ticks);
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
        if (hipDeviceGetAttribute(&sms, hipDeviceAttributeMultiprocessorCount, current_device()) != hipSuccess) {
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
        return hipGetDevice(&d) == hipSuccess ? d : 0;
    }
};

}  // namespace
}  // namespace gpuconform

extern "C" __attribute__((visibility("default"))) gpuconform::Backend* gpuconform_create_backend(const char*) {
    return new gpuconform::HipBackend();
}

extern "C" __attribute__((visibility("default"))) int gpuconform_backend_abi_version() {
    return gpuconform::k_backend_abi_version;
}
