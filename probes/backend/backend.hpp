// The one small interface every device check is written against.
// Implemented once for both GPU runtimes (gpu/, over the vendor facts in cuda/ and hip/) with
// the vendor API directly, one call per operation, and once on the CPU (sim/) with fault knobs. Modules are loaded at
// run time (see module_loader.hpp), so nothing here may depend on a vendor header.
#pragma once

#include <cstddef>
#include <chrono>
#include <cstdint>
#include <string>

#include "backend/host_numa.hpp"
#include "backend/pattern.hpp"

namespace gpuconform {

// The outcome of one vendor call: code 0 is success; name/message are the vendor's own.
struct ApiResult {
    int code = 0;
    std::string name;     // e.g. "cudaErrorInsufficientDriver"
    std::string message;  // the vendor's description
    bool ok() const { return code == 0; }
};

struct VersionInfo {
    ApiResult driver_status;
    int driver_version = 0;  // vendor encoding: CUDA 13000 = 13.0; HIP: HIP version
    ApiResult runtime_status;
    int runtime_version = 0;
};

struct DeviceProps {
    std::string name;
    std::string arch;        // "sm_90", "gfx90a"
    std::string pci_bus_id;  // "0000:3b:00.0" (4-digit domain, lower case, as sysfs)
    std::uint64_t total_memory = 0;
    int async_engine_count = -1;  // copy engines as the runtime reports them (ROCm: constant 8)
    bool concurrent_kernels = false;
    bool can_map_host_memory = false;
    int multiprocessors = 0;
};

using StreamHandle = std::uintptr_t;
using EventHandle = std::uintptr_t;

enum class StreamKind {
    Blocking,     // created with default flags: synchronizes with the legacy stream
    NonBlocking,  // cudaStreamNonBlocking / hipStreamNonBlocking
};

// Handles that need no creation (CUDA's cudaStreamLegacy / cudaStreamPerThread).
constexpr StreamHandle k_legacy_stream = 0x1;
constexpr StreamHandle k_per_thread_stream = 0x2;

enum class CopyKind { HostToDevice, DeviceToHost, DeviceToDevice };

class AcceptanceOps;  // acceptance_ops.hpp

class Backend {
public:
    virtual ~Backend() = default;

    virtual std::string name() const = 0;    // "cuda", "hip", "sim"
    virtual std::string vendor() const = 0;  // "nvidia", "amd", "sim"

    virtual VersionInfo versions() = 0;
    virtual ApiResult device_count(int* count) = 0;
    virtual ApiResult device_props(int device, DeviceProps* props) = 0;
    virtual ApiResult set_device(int device) = 0;
    virtual ApiResult device_synchronize() = 0;
    // Returns and clears the last error (cudaGetLastError), so launch errors are seen where made.
    virtual ApiResult last_error() = 0;

    virtual ApiResult stream_create(StreamKind kind, StreamHandle* stream) = 0;
    virtual ApiResult stream_destroy(StreamHandle stream) = 0;
    // *done is false when the runtime answers "not ready": work queued earlier is still running.
    virtual ApiResult stream_query(StreamHandle stream, bool* done) = 0;
    virtual ApiResult stream_synchronize(StreamHandle stream) = 0;
    virtual ApiResult stream_wait_event(StreamHandle stream, EventHandle event) = 0;

    virtual ApiResult event_create(bool timing, EventHandle* event) = 0;
    virtual ApiResult event_destroy(EventHandle event) = 0;
    virtual ApiResult event_record(EventHandle event, StreamHandle stream) = 0;
    virtual ApiResult event_synchronize(EventHandle event) = 0;
    virtual ApiResult event_elapsed_ms(EventHandle start, EventHandle end, float* ms) = 0;

    virtual ApiResult host_alloc_pinned(std::size_t bytes, void** ptr) = 0;
    virtual ApiResult host_free_pinned(void* ptr) = 0;
    virtual ApiResult host_register(void* ptr, std::size_t bytes) = 0;
    virtual ApiResult host_unregister(void* ptr) = 0;
    virtual ApiResult device_alloc(std::size_t bytes, void** ptr) = 0;
    virtual ApiResult device_free(void* ptr) = 0;
    virtual ApiResult memcpy_async(void* dst, const void* src, std::size_t bytes, CopyKind kind,
                                   StreamHandle stream) = 0;

    // Peers (several devices of one node). can_access: may `device` map `peer`'s memory directly?
    virtual ApiResult peer_can_access(int device, int peer, bool* can_access) = 0;
    // Lets the current device access `peer`'s memory; "already enabled" counts as success.
    virtual ApiResult peer_enable(int peer) = 0;
    // The runtime's performance rank of the device→peer link (lower is better; -1 when not reported).
    virtual ApiResult peer_rank(int device, int peer, int* rank) = 0;
    virtual ApiResult memcpy_peer_async(void* dst, int dst_device, const void* src, int src_device, std::size_t bytes,
                                        StreamHandle stream) = 0;

    // Kernels. Each launch returns the launch call's own result; errors of the running kernel
    // surface later (that is what async.error.deferred measures).
    // Spins on the device clock for about `ns` nanoseconds.
    virtual ApiResult launch_spin(StreamHandle stream, std::uint64_t ns) = 0;
    // A gate the host can lift: spins like launch_spin, and ends early once release_spins() is
    // called, as nvbench's blocking kernel waits on a host flag. The spin's length still bounds
    // it, so a release that never arrives (a launch that blocked, a runtime that cannot map host
    // memory) leaves an ordinary spin.
    virtual ApiResult launch_releasable_spin(StreamHandle stream, std::uint64_t ns) = 0;
    // Ends every releasable spin launched before this call, running or still queued; those
    // launched after it are not affected.
    virtual ApiResult release_spins() = 0;
    // Writes pattern(seed, i) to words[0..count).
    virtual ApiResult launch_fill(StreamHandle stream, std::uint32_t* words, std::size_t count, std::uint32_t seed) = 0;
    // Adds the number of words != pattern(seed, i) to *device_mismatches (a device counter).
    virtual ApiResult launch_verify(StreamHandle stream, const std::uint32_t* words, std::size_t count,
                                    std::uint32_t seed, unsigned long long* device_mismatches) = 0;
    // A compute-bound loop of `iterations` per thread over one block per multiprocessor.
    virtual ApiResult launch_compute(StreamHandle stream, std::uint64_t iterations, float* sink) = 0;
    // A launch with an invalid configuration (more threads per block than any device allows).
    virtual ApiResult launch_invalid(StreamHandle stream) = 0;
    // A kernel that writes through an invalid device address.
    virtual ApiResult launch_fault(StreamHandle stream) = 0;

    // Where host memory lives by NUMA node when this backend decides it; nullptr (every real
    // runtime) when the host's kernel does. Owned by the backend.
    virtual HostNuma* host_numa() { return nullptr; }

    // The acceptance layer's load (acceptance_ops.hpp); nullptr when this module has none.
    virtual AcceptanceOps* acceptance() { return nullptr; }

    // The host clock this device's timings relate to, which the checks time host calls with:
    // steady_clock for every real runtime; the simulated device's model clock, which stands still
    // while the machine running the simulation falls behind it (sim_scheduler.hpp).
    virtual std::chrono::steady_clock::time_point host_now() { return std::chrono::steady_clock::now(); }
};

// Exported by each module: `extern "C" gpuconform::Backend* gpuconform_create_backend(const char* options)`.
// options is a string the module may interpret (the sim module reads its fault knobs from it).
constexpr int k_backend_abi_version = 6;
using CreateBackendFn = Backend* (*)(const char* options);
using AbiVersionFn = int (*)();

}  // namespace gpuconform
