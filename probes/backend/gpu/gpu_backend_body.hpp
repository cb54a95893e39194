// The GPU backend, written once for CUDA and HIP: one runtime call per interface operation,
// nothing clever in between, so the suite measures the vendor's behaviour and not ours.
// Included by exactly one translation unit per module, after its vendor header
// (cuda/cuda_vendor.hpp or hip/hip_vendor.hpp), which supplies GC_RT_PREFIX (the runtime's
// prefix, `cuda` or `hip`, also the backend's name) and gpuconform::vendor (the facts that
// differ). It defines the module's kernels, its Backend and the two exported entry points.
#pragma once

#ifndef GC_RT_PREFIX
#error "include the vendor header (cuda/cuda_vendor.hpp or hip/hip_vendor.hpp) first"
#endif

// GC_RT(StreamQuery) is cudaStreamQuery or hipStreamQuery; the runtime's own macros (such as
// HIP 6's hipGetDeviceProperties) still apply to the pasted name.
#define GC_PASTE_(a, b) a##b
#define GC_PASTE(a, b) GC_PASTE_(a, b)
#define GC_STRING_(a) #a
#define GC_STRING(a) GC_STRING_(a)
#define GC_RT(name) GC_PASTE(GC_RT_PREFIX, name)

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "backend/acceptance_ops.hpp"
#include "backend/backend.hpp"
#include "backend/pattern.hpp"

namespace gpuconform {
namespace {

using RuntimeError = GC_RT(Error_t);
using RuntimeStream = GC_RT(Stream_t);
using RuntimeEvent = GC_RT(Event_t);

ApiResult wrap(RuntimeError e) {
    if (e == GC_RT(Success)) {
        return {};
    }
    return {static_cast<int>(e), GC_RT(GetErrorName)(e), GC_RT(GetErrorString)(e)};
}

// A launch's own error is read (and cleared) right where the launch is made.
ApiResult launch_result() { return wrap(GC_RT(GetLastError)()); }

RuntimeStream to_stream(StreamHandle h) { return vendor::native_stream(h); }
RuntimeEvent to_event(EventHandle h) { return reinterpret_cast<RuntimeEvent>(h); }

GC_RT(MemcpyKind) to_kind(CopyKind k) {
    switch (k) {
        case CopyKind::HostToDevice:
            return GC_RT(MemcpyHostToDevice);
        case CopyKind::DeviceToHost:
            return GC_RT(MemcpyDeviceToHost);
        case CopyKind::DeviceToDevice:
            return GC_RT(MemcpyDeviceToDevice);
    }
    return GC_RT(MemcpyDefault);
}

// Spins for `ticks` of the vendor's spin clock (vendor::spin_clock).
__global__ void spin_kernel(std::uint64_t ticks) {
    const std::uint64_t start = vendor::spin_clock();
    while (vendor::spin_clock() - start < ticks) {
    }
}

// Spins like spin_kernel, and also ends once the host word at `release` no longer reads
// `generation`, its value at the launch: the host lifts the gate by changing it. volatile, so
// every iteration reads the host's word anew, as nvbench's blocking kernel reads its flag
// (https://github.com/NVIDIA/nvbench, nvbench/blocking_kernel.cu).
__global__ void releasable_spin_kernel(std::uint64_t ticks, const volatile std::uint32_t* release,
                                       std::uint32_t generation) {
    const std::uint64_t start = vendor::spin_clock();
    while (vendor::spin_clock() - start < ticks && *release == generation) {
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
    float a = static_cast<float>(threadIdx.x) * 1e-3f;
    const float b = 1.0001f;
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

// `ns` in ticks of a clock of `khz`, exact and without overflow for any realistic rate.
std::uint64_t ticks_for(std::uint64_t ns, std::uint64_t khz) {
    constexpr std::uint64_t k_ns_per_ms = 1000000;
    return ns / k_ns_per_ms * khz + ns % k_ns_per_ms * khz / k_ns_per_ms;
}

// The acceptance layer's kernels and GpuAcceptance (included here: it uses wrap and to_stream).
#include "backend/gpu/gpu_acceptance_body.hpp"

// What a launch needs to know of its device, read with the device's properties (device_props,
// or the first launch on a device nobody described), so that a launch makes no runtime call but
// itself and the read of its own error: a gate's timed region holds the launch only.
struct LaunchFacts {
    int multiprocessors = 0;  // 0: not read yet
    std::uint64_t spin_clock_khz = 0;
};

class GpuBackend final : public Backend {
public:
    std::string name() const override { return GC_STRING(GC_RT_PREFIX); }
    std::string vendor() const override { return vendor::k_vendor_name; }

    VersionInfo versions() override {
        VersionInfo v;
        v.driver_status = wrap(GC_RT(DriverGetVersion)(&v.driver_version));
        v.runtime_status = wrap(GC_RT(RuntimeGetVersion)(&v.runtime_version));
        return v;
    }

    ApiResult device_count(int* count) override { return wrap(GC_RT(GetDeviceCount)(count)); }

    ApiResult device_props(int device, DeviceProps* p) override {
        vendor::DeviceProp prop{};
        if (auto r = wrap(GC_RT(GetDeviceProperties)(&prop, device)); !r.ok()) {
            return r;
        }
        p->name = prop.name;
        p->arch = vendor::arch_name(prop);
        p->total_memory = prop.totalGlobalMem;
        char bus[32] = {};
        std::snprintf(bus, sizeof bus, "%04x:%02x:%02x.0", prop.pciDomainID, prop.pciBusID, prop.pciDeviceID);
        p->pci_bus_id = bus;
        p->async_engine_count = vendor::copy_engines(prop, device);
        p->concurrent_kernels = prop.concurrentKernels != 0;
        p->can_map_host_memory = prop.canMapHostMemory != 0;
        p->multiprocessors = prop.multiProcessorCount;
        remember(device, prop);
        return {};
    }

    ApiResult set_device(int device) override {
        auto r = wrap(GC_RT(SetDevice)(device));
        if (r.ok()) {
            m_device = device;
        }
        return r;
    }
    ApiResult device_synchronize() override { return wrap(GC_RT(DeviceSynchronize)()); }
    ApiResult last_error() override { return wrap(GC_RT(GetLastError)()); }

    ApiResult stream_create(StreamKind kind, StreamHandle* stream) override {
        RuntimeStream s = nullptr;
        const unsigned flags = kind == StreamKind::NonBlocking ? GC_RT(StreamNonBlocking) : GC_RT(StreamDefault);
        auto r = wrap(GC_RT(StreamCreateWithFlags)(&s, flags));
        *stream = reinterpret_cast<StreamHandle>(s);
        return r;
    }
    ApiResult stream_destroy(StreamHandle stream) override { return wrap(GC_RT(StreamDestroy)(to_stream(stream))); }
    ApiResult stream_query(StreamHandle stream, bool* done) override {
        const RuntimeError e = GC_RT(StreamQuery)(to_stream(stream));
        *done = e == GC_RT(Success);
        return e == GC_RT(ErrorNotReady) ? ApiResult{} : wrap(e);
    }
    ApiResult stream_synchronize(StreamHandle stream) override {
        return wrap(GC_RT(StreamSynchronize)(to_stream(stream)));
    }
    ApiResult stream_wait_event(StreamHandle stream, EventHandle event) override {
        return wrap(GC_RT(StreamWaitEvent)(to_stream(stream), to_event(event), 0));
    }

    ApiResult event_create(bool timing, EventHandle* event) override {
        RuntimeEvent e = nullptr;
        auto r = wrap(GC_RT(EventCreateWithFlags)(&e, timing ? GC_RT(EventDefault) : GC_RT(EventDisableTiming)));
        *event = reinterpret_cast<EventHandle>(e);
        return r;
    }
    ApiResult event_destroy(EventHandle event) override { return wrap(GC_RT(EventDestroy)(to_event(event))); }
    ApiResult event_record(EventHandle event, StreamHandle stream) override {
        return wrap(GC_RT(EventRecord)(to_event(event), to_stream(stream)));
    }
    ApiResult event_synchronize(EventHandle event) override { return wrap(GC_RT(EventSynchronize)(to_event(event))); }
    ApiResult event_elapsed_ms(EventHandle start, EventHandle end, float* ms) override {
        return wrap(GC_RT(EventElapsedTime)(ms, to_event(start), to_event(end)));
    }

    ApiResult host_alloc_pinned(std::size_t bytes, void** ptr) override { return wrap(vendor::host_alloc(ptr, bytes)); }
    ApiResult host_free_pinned(void* ptr) override { return wrap(vendor::host_free(ptr)); }
    ApiResult host_register(void* ptr, std::size_t bytes) override {
        return wrap(GC_RT(HostRegister)(ptr, bytes, GC_RT(HostRegisterDefault)));
    }
    ApiResult host_unregister(void* ptr) override { return wrap(GC_RT(HostUnregister)(ptr)); }
    ApiResult device_alloc(std::size_t bytes, void** ptr) override { return wrap(GC_RT(Malloc)(ptr, bytes)); }
    ApiResult device_free(void* ptr) override { return wrap(GC_RT(Free)(ptr)); }
    ApiResult memcpy_async(void* dst, const void* src, std::size_t bytes, CopyKind kind, StreamHandle stream) override {
        return wrap(GC_RT(MemcpyAsync)(dst, src, bytes, to_kind(kind), to_stream(stream)));
    }

    ApiResult peer_can_access(int device, int peer, bool* can_access) override {
        int v = 0;
        auto r = wrap(GC_RT(DeviceCanAccessPeer)(&v, device, peer));
        *can_access = v != 0;
        return r;
    }
    ApiResult peer_enable(int peer) override {
        const RuntimeError e = GC_RT(DeviceEnablePeerAccess)(peer, 0);
        if (e == GC_RT(ErrorPeerAccessAlreadyEnabled)) {
            (void)GC_RT(GetLastError)();  // not an error for us; clear it so it does not surface later
            return {};
        }
        return wrap(e);
    }
    ApiResult peer_rank(int device, int peer, int* rank) override {
        return wrap(GC_RT(DeviceGetP2PAttribute)(rank, GC_RT(DevP2PAttrPerformanceRank), device, peer));
    }
    ApiResult memcpy_peer_async(void* dst, int dst_device, const void* src, int src_device, std::size_t bytes,
                                StreamHandle stream) override {
        return wrap(GC_RT(MemcpyPeerAsync)(dst, dst_device, src, src_device, bytes, to_stream(stream)));
    }

    ApiResult launch_spin(StreamHandle stream, std::uint64_t ns) override {
        const std::uint64_t ticks = ticks_for(ns, facts().spin_clock_khz);
        spin_kernel<<<1, 1, 0, to_stream(stream)>>>(ticks);
        return launch_result();
    }
    ApiResult launch_releasable_spin(StreamHandle stream, std::uint64_t ns) override {
        const std::uint64_t ticks = ticks_for(ns, facts().spin_clock_khz);
        const std::uint32_t* word = release_word();
        if (word == nullptr) {
            spin_kernel<<<1, 1, 0, to_stream(stream)>>>(ticks);  // no mapped word: an ordinary spin
        } else {
            releasable_spin_kernel<<<1, 1, 0, to_stream(stream)>>>(ticks, word, m_generation);
        }
        return launch_result();
    }
    ApiResult release_spins() override {
        if (m_release_host != nullptr) {
            __atomic_store_n(m_release_host, ++m_generation, __ATOMIC_RELEASE);  // C++17 here: no atomic_ref
        }
        return {};
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
        compute_kernel<<<facts().multiprocessors, k_threads, 0, to_stream(stream)>>>(iterations, sink);
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

    AcceptanceOps* acceptance() override { return &m_acceptance; }

private:
    // The device's view of the release word, allocated on the first releasable spin (a check's
    // warm-up launches one, so no timed gate pays for it); nullptr where the runtime cannot map
    // host memory, and releasable spins are then ordinary ones. The word outlives the backend's
    // use: it is freed with the process, after the runtime may already be torn down.
    const std::uint32_t* release_word() {
        if (!m_release_tried) {
            m_release_tried = true;
            void* host = nullptr;
            void* device = nullptr;
            if (vendor::host_alloc_mapped(&host, sizeof(std::uint32_t)) == GC_RT(Success)) {
                if (GC_RT(HostGetDevicePointer)(&device, host, 0) == GC_RT(Success)) {
                    m_release_host = static_cast<std::uint32_t*>(host);
                    *m_release_host = m_generation;
                    m_release_device = static_cast<const std::uint32_t*>(device);
                } else {
                    (void)vendor::host_free(host);
                }
            }
            (void)GC_RT(GetLastError)();  // a failure here is not the next launch's error
        }
        return m_release_device;
    }

private:
    void remember(int device, const vendor::DeviceProp& prop) {
        if (device < 0) {
            return;
        }
        if (static_cast<std::size_t>(device) >= m_facts.size()) {
            m_facts.resize(static_cast<std::size_t>(device) + 1);
        }
        LaunchFacts& f = m_facts[static_cast<std::size_t>(device)];
        f.multiprocessors = prop.multiProcessorCount > 0 ? prop.multiProcessorCount : 1;
        f.spin_clock_khz = vendor::spin_clock_khz(device);
    }

    // The current device's launch facts; read here only when device_props never described it.
    const LaunchFacts& facts() {
        const auto i = static_cast<std::size_t>(m_device);
        if (i >= m_facts.size() || m_facts[i].multiprocessors == 0) {
            vendor::DeviceProp prop{};
            if (GC_RT(GetDeviceProperties)(&prop, m_device) == GC_RT(Success)) {
                remember(m_device, prop);
            } else {
                m_unread = LaunchFacts{1, vendor::spin_clock_khz(m_device)};  // the launch will say what is wrong
                return m_unread;
            }
        }
        return m_facts[i];
    }

    // The runtime's current device as set through set_device (device 0 until then, as the
    // runtime's own default). A worker drives its backend from one thread.
    int m_device = 0;
    std::vector<LaunchFacts> m_facts;  // by device
    LaunchFacts m_unread;
    bool m_release_tried = false;
    std::uint32_t* m_release_host = nullptr;  // the release word, pinned and mapped
    const std::uint32_t* m_release_device = nullptr;
    std::uint32_t m_generation = 0;  // the word's value: spins launched now end when it changes
    GpuAcceptance m_acceptance;
};

}  // namespace
}  // namespace gpuconform

extern "C" __attribute__((visibility("default"))) gpuconform::Backend* gpuconform_create_backend(const char*) {
    return new gpuconform::GpuBackend();
}

extern "C" __attribute__((visibility("default"))) int gpuconform_backend_abi_version() {
    return gpuconform::k_backend_abi_version;
}
