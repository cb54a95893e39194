// The simulated device: gpuconform::Backend on the CPU, behaving like a conforming CUDA device
// unless a fault knob (sim_options.hpp) says otherwise.
//   streams     worker threads running queued tasks in order (sim_scheduler.hpp); handle 0/0x1
//               is the current device's legacy stream, 0x2 the calling thread's own stream
//   engines     kernels run concurrently; copies occupy a copy engine (one H2D, one D2H) for
//               their modelled time; device-to-device copies take the kernel path
//   time        modelled (sim_scheduler.hpp): copies take bytes / bandwidth (sim_copy.hpp)
//   kernels     spin sleeps `ns` (a releasable spin until the release, if sooner); compute takes
//               1 ns per iteration; fill/verify do the work;
//               a kernel touching memory that is neither device nor pinned faults (sticky
//               simErrorIllegalAddress), as it would on a device
// Fault knobs, each changing one behaviour on the devices it is set for:
//   pinned_copy_blocks      pinned copies return after earlier work and the copy finished
//   launch_blocks           kernel launches return after the kernel finished
//   pageable_d2h_early      pageable D2H returns at once; the data arrives later
//   default_stream_no_sync  the legacy stream orders with nothing
//   events_ignored          event_record stamps the host time of the call; stream_wait_event is a no-op
//   one_copy_engine         both copy directions share one engine, though async_engine_count still says 2
//   no_overlap              one engine for everything: copies and kernels serialize across streams
//   slow_link               host <-> device (and peer) bandwidth divided by 8
//   degraded_link           host <-> device (and peer) bandwidth at 60 %: the one slow GPU among siblings
//   link_at_80pct           host <-> device (and peer) bandwidth at 80 %: passes every check; only a
//                           diff against the node's own baseline catches it
//   no_peer                 this device can access no peer, and no peer can access it
//   hang                    kernels never finish (until the backend is destroyed)
//   crash                   the first kernel launch raises SIGSEGV
//   sticky_error            from the first kernel launch on (that launch included), every call
//                           returns simErrorLaunchFailure
//   errors_swallowed        an invalid launch returns success and queues nothing; a faulting
//                           kernel does nothing: no call ever reports either error
//   pinned_limit            pinned allocations above 64 MiB fail with simErrorMemoryAllocation, as
//                           when RLIMIT_MEMLOCK caps what may be pinned
//   small_copies_corrupt    host-to-device copies of 4 KiB up to (not including) 64 KiB deliver
//                           one wrong word: a fault on the path drivers take for small copies
//   copies_corrupt          host <-> device copies of 1 MiB or more deliver one wrong word (a DMA
//                           path that corrupts): every check that verifies such a copy fails
//   numa_misreported        the device reports the wrong one of the simulated host's two NUMA
//                           nodes as its own (sim_numa.hpp): copies from "its" node are the slow ones
//   link_dips               pinned host <-> device copies at an eighth of their rate until the
//                           device's first pageable copy: a shared link that dips for a moment
//   link_shared             another tenant's traffic, which no GPU reading shows, takes the link
//                           whenever ours pauses: a pinned host <-> device copy of 1 MiB or more
//                           runs at an eighth of its rate unless it queues behind another such copy
//                           of its stream that has not ended (a train keeps the link); so single
//                           timed copies read slow while a train in the same check reads full rate
//   releases_lost           release_spins never reaches the device's spins (a host word the
//                           runtime cannot map, or one the device reads from a stale cache): every
//                           releasable spin runs its whole length
// Health knobs, read by the parent's simulated health reader (health/sim_reader.cpp); the device
// here behaves as ever:
//   ecc_uncorrectable       2 volatile (and aggregate) uncorrectable ECC errors
//   row_remap_pending       a row remapping waits for the next GPU reset
//   row_remap_failure       a row remapping failed (a bank ran out of spare rows)
//   thermal_slowdown        HW thermal slowdown active, the GPU at its slowdown temperature
//   power_capped            the enforced power limit at 450 W of the default 700 W
//   gpu_missing             on the simulated PCI bus but not seen by the health reader (fell off)
//   vbios_odd               another VBIOS than its siblings
//   xid_79                  an Xid 79 (fallen off the bus) in the simulated kernel log since boot
// Acceptance knobs (sim_acceptance.cpp), on the load the acceptance layer puts on a device:
//   slow_hbm                STREAM kernels run at 40 % of the memory interface's peak (else 90 %)
//   gemm_wrong_element      every 5th matrix multiply returns one wrong element (silent corruption)
//   bad_memory_cell         one word halfway through each memory-test write has bit 17 stuck at 0
//   throttles_under_load    while loaded, clocks read 60 % of their maximum with thermal slowdown
#pragma once

#include <atomic>

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include "backend/backend.hpp"
#include "backend/sim/sim_memory.hpp"
#include "backend/sim/sim_numa.hpp"
#include "backend/sim/sim_options.hpp"
#include "backend/sim/sim_scheduler.hpp"

namespace gpuconform::sim {

constexpr std::uint64_t k_sim_device_memory = std::uint64_t{16} << 30;

// Engines are the modelled next-free times of sim_scheduler.hpp, guarded by the scheduler.
struct SimDevice {
    FaultSet faults;
    Clock::time_point h2d_engine;
    Clock::time_point d2h_engine;
    Clock::time_point only_engine;  // the one engine of a no_overlap device
    StreamPtr legacy;
    std::uint64_t used_bytes = 0;
    std::atomic<bool> pageable_copied{false};  // link_dips: the dip ends here
    std::mutex link_mutex;                     // link_shared: the streams' last_link_copy
};

struct SimEvent {
    bool timing = true;
    TaskPtr recorded;  // null until first recorded
};

class SimAcceptance;  // sim_acceptance.cpp

class SimBackend final : public Backend {
public:
    explicit SimBackend(SimOptions options);
    ~SimBackend() override = default;

    std::string name() const override { return "sim"; }
    std::string vendor() const override { return "sim"; }

    VersionInfo versions() override;
    ApiResult device_count(int* count) override;
    ApiResult device_props(int device, DeviceProps* props) override;
    ApiResult set_device(int device) override;
    ApiResult device_synchronize() override;
    ApiResult last_error() override;

    ApiResult stream_create(StreamKind kind, StreamHandle* stream) override;
    ApiResult stream_destroy(StreamHandle stream) override;
    ApiResult stream_query(StreamHandle stream, bool* done) override;
    ApiResult stream_synchronize(StreamHandle stream) override;
    ApiResult stream_wait_event(StreamHandle stream, EventHandle event) override;

    ApiResult event_create(bool timing, EventHandle* event) override;
    ApiResult event_destroy(EventHandle event) override;
    ApiResult event_record(EventHandle event, StreamHandle stream) override;
    ApiResult event_synchronize(EventHandle event) override;
    ApiResult event_elapsed_ms(EventHandle start, EventHandle end, float* ms) override;

    ApiResult host_alloc_pinned(std::size_t bytes, void** ptr) override;
    ApiResult host_free_pinned(void* ptr) override;
    ApiResult host_register(void* ptr, std::size_t bytes) override;
    ApiResult host_unregister(void* ptr) override;
    ApiResult device_alloc(std::size_t bytes, void** ptr) override;
    ApiResult device_free(void* ptr) override;
    ApiResult memcpy_async(void* dst, const void* src, std::size_t bytes, CopyKind kind, StreamHandle stream) override;

    ApiResult peer_can_access(int device, int peer, bool* can_access) override;
    ApiResult peer_enable(int peer) override;
    ApiResult peer_rank(int device, int peer, int* rank) override;
    ApiResult memcpy_peer_async(void* dst, int dst_device, const void* src, int src_device, std::size_t bytes,
                                StreamHandle stream) override;

    ApiResult launch_spin(StreamHandle stream, std::uint64_t ns) override;
    ApiResult launch_releasable_spin(StreamHandle stream, std::uint64_t ns) override;
    ApiResult release_spins() override;
    ApiResult launch_fill(StreamHandle stream, std::uint32_t* words, std::size_t count, std::uint32_t seed) override;
    ApiResult launch_verify(StreamHandle stream, const std::uint32_t* words, std::size_t count, std::uint32_t seed,
                            unsigned long long* device_mismatches) override;
    ApiResult launch_compute(StreamHandle stream, std::uint64_t iterations, float* sink) override;
    ApiResult launch_invalid(StreamHandle stream) override;
    ApiResult launch_fault(StreamHandle stream) override;

    HostNuma* host_numa() override { return m_numa.get(); }
    std::chrono::steady_clock::time_point host_now() override { return m_scheduler.model_now(); }
    AcceptanceOps* acceptance() override;  // sim_acceptance.cpp

private:
    friend class SimAcceptance;
    ApiResult fail(ApiResult error);       // records the error as the calling thread's last error
    ApiResult reported(ApiResult result);  // fail(result) unless it is ok
    ApiResult failed_sticky();             // the sticky error, or ok
    int current_device();
    SimDevice& device_of(const SimStream& stream);
    StreamPtr resolve_stream(StreamHandle handle);  // null for an unknown handle
    std::optional<SimEvent> event_snapshot(EventHandle handle);
    TaskPtr enqueue(SimStream& stream, TaskSpec spec, std::vector<TaskPtr> deps = {});
    ApiResult wait_and_report(const TaskPtr& task);
    ApiResult synchronize_all();
    ApiResult free_range(RangeKind kind, void* ptr);
    ApiResult launch(StreamHandle stream, TaskSpec spec);
    std::function<void()> checked_kernel(std::vector<std::pair<const void*, std::size_t>> args,
                                         std::function<void()> body);

    SimOptions m_options;
    MemoryRegistry m_memory;
    std::vector<std::unique_ptr<SimDevice>> m_devices;
    std::unique_ptr<SimNuma> m_numa;              // the simulated host's two nodes and what was placed on them
    std::shared_ptr<AcceptanceOps> m_acceptance;  // made on first use (shared_ptr: the type is incomplete here)

    std::mutex m_state_mutex;  // handles and per-thread state below
    std::map<StreamHandle, StreamPtr> m_streams;
    std::map<EventHandle, SimEvent> m_events;
    std::map<std::thread::id, int> m_current_device;
    std::map<std::thread::id, ApiResult> m_last_error;
    std::map<std::pair<std::thread::id, int>, StreamPtr> m_per_thread;
    std::uintptr_t m_next_handle = 0x1000;

    Scheduler m_scheduler;  // last: destroyed (and its workers joined) first
};

}  // namespace gpuconform::sim
