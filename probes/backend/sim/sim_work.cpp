// The simulated backend's memory, copies and kernels. A copy holds its engine while it runs and
// takes bytes / bandwidth (the memcpy, then a sleep for the rest); kernels do their work on the
// stream's worker thread. Timing rules are in sim_copy.hpp, fault knobs in sim_backend.hpp.
#include <atomic>
#include <csignal>
#include <cstring>

#include "backend/pattern.hpp"
#include "backend/sim/sim_backend.hpp"
#include "backend/sim/sim_copy.hpp"
#include "backend/sim/sim_errors.hpp"

namespace gpuconform::sim {

namespace {

constexpr std::uint64_t k_busy_spin_ns = 100'000;  // below this, sleeping would overshoot

// The engine a copy holds while it runs; null for the kernel path (device-to-device).
std::mutex* copy_engine(SimDevice& d, CopyKind kind) {
    if (d.faults.has(Fault::NoOverlap)) {
        return &d.only_engine;
    }
    if (kind == CopyKind::DeviceToDevice) {
        return nullptr;
    }
    if (kind == CopyKind::HostToDevice || d.faults.has(Fault::OneCopyEngine)) {
        return &d.h2d_engine;
    }
    return &d.d2h_engine;
}

// Which side of the copy is host memory, and whether each pointer is where `kind` says.
bool copy_pointers_valid(CopyKind kind, std::optional<RangeKind> dst, std::optional<RangeKind> src) {
    const bool dst_device = dst == RangeKind::Device;
    const bool src_device = src == RangeKind::Device;
    switch (kind) {
    case CopyKind::HostToDevice: return dst_device && !src_device;
    case CopyKind::DeviceToHost: return src_device && !dst_device;
    case CopyKind::DeviceToDevice: return dst_device && src_device;
    }
    return false;
}

}  // namespace

ApiResult SimBackend::host_alloc_pinned(std::size_t bytes, void** ptr) {
    if (auto s = failed_sticky(); !s.ok()) {
        return s;
    }
    *ptr = nullptr;
    return bytes == 0 ? sim_ok() : reported(m_memory.allocate(RangeKind::PinnedAlloc, -1, bytes, ptr));
}

ApiResult SimBackend::device_alloc(std::size_t bytes, void** ptr) {
    if (auto s = failed_sticky(); !s.ok()) {
        return s;
    }
    *ptr = nullptr;
    if (m_devices.empty()) {
        return fail(sim_error(SimError::NoDevice, "no simulated device (devices=0)"));
    }
    const int device = current_device();
    bool fits = false;
    {
        std::lock_guard lock(m_state_mutex);
        std::uint64_t& used = m_devices[static_cast<std::size_t>(device)]->used_bytes;
        fits = bytes <= k_sim_device_memory - used;
        used += fits ? bytes : 0;
    }
    if (!fits) {
        return fail(sim_error(SimError::MemoryAllocation, "simulated device memory (16 GiB) exhausted"));
    }
    const ApiResult r = bytes == 0 ? sim_ok() : m_memory.allocate(RangeKind::Device, device, bytes, ptr);
    if (!r.ok()) {
        std::lock_guard lock(m_state_mutex);
        m_devices[static_cast<std::size_t>(device)]->used_bytes -= bytes;
    }
    return reported(r);
}

// Freeing waits for all queued work first, as cudaFree does, so no worker touches freed memory.
ApiResult SimBackend::free_range(RangeKind kind, void* ptr) {
    if (auto s = synchronize_all(); !s.ok()) {
        return s;
    }
    if (ptr == nullptr) {
        return sim_ok();
    }
    int device = -1;
    std::size_t bytes = 0;
    const ApiResult r = kind == RangeKind::Registered ? m_memory.remove_registered(ptr)
                                                     : m_memory.release(kind, ptr, &device, &bytes);
    if (r.ok() && device >= 0) {
        std::lock_guard lock(m_state_mutex);
        m_devices[static_cast<std::size_t>(device)]->used_bytes -= bytes;
    }
    return reported(r);
}

ApiResult SimBackend::host_free_pinned(void* ptr) {
    return free_range(RangeKind::PinnedAlloc, ptr);
}

ApiResult SimBackend::device_free(void* ptr) {
    return free_range(RangeKind::Device, ptr);
}

ApiResult SimBackend::host_register(void* ptr, std::size_t bytes) {
    if (auto s = failed_sticky(); !s.ok()) {
        return s;
    }
    return reported(m_memory.add_registered(ptr, bytes));
}

ApiResult SimBackend::host_unregister(void* ptr) {
    if (ptr == nullptr) {
        return fail(sim_error(SimError::HostMemoryNotRegistered, "host_unregister of a null pointer"));
    }
    return free_range(RangeKind::Registered, ptr);
}

ApiResult SimBackend::memcpy_async(void* dst, const void* src, std::size_t bytes, CopyKind kind,
                                   StreamHandle stream) {
    if (auto s = failed_sticky(); !s.ok()) {
        return s;
    }
    const StreamPtr s = resolve_stream(stream);
    if (!s) {
        return fail(sim_bad_handle("stream"));
    }
    if (bytes == 0) {
        return sim_ok();
    }
    const auto dst_kind = m_memory.classify(dst, bytes);
    const auto src_kind = m_memory.classify(src, bytes);
    if (dst == nullptr || src == nullptr || !copy_pointers_valid(kind, dst_kind, src_kind)) {
        return fail(sim_error(SimError::InvalidValue, "copy pointers do not match the copy kind (device "
                                                      "memory must come from device_alloc)"));
    }
    const bool host_pinned = kind == CopyKind::HostToDevice ? src_kind.has_value() : dst_kind.has_value();
    SimDevice& d = device_of(*s);
    const CopyMode mode = copy_mode(kind, host_pinned, bytes, d.faults);
    const auto duration = copy_duration(kind, host_pinned, bytes, m_options, d.faults);
    std::shared_ptr<std::byte[]> staging;
    if (mode == CopyMode::Staged) {
        staging.reset(new std::byte[bytes]);
        std::memcpy(staging.get(), src, bytes);
        src = staging.get();
    }
    auto work = [this, dst, src, bytes, duration, engine = copy_engine(d, kind), staging] {
        std::unique_lock<std::mutex> held;
        if (engine != nullptr) {
            held = std::unique_lock(*engine);
        }
        const auto start = Clock::now();
        std::memcpy(dst, src, bytes);
        m_scheduler.sleep_until(start + duration);
    };
    const TaskPtr t = enqueue(*s, std::move(work));
    return mode == CopyMode::Sync ? wait_and_report(t) : sim_ok();
}

// Every launch goes through here: the crash, sticky_error, hang, no_overlap and launch_blocks
// knobs apply to all kernels alike.
ApiResult SimBackend::launch(StreamHandle stream, std::function<void()> work) {
    if (auto s = failed_sticky(); !s.ok()) {
        return s;
    }
    const StreamPtr s = resolve_stream(stream);
    if (!s) {
        return fail(sim_bad_handle("stream"));
    }
    SimDevice& d = device_of(*s);
    if (d.faults.has(Fault::Crash)) {
        std::raise(SIGSEGV);
    }
    if (d.faults.has(Fault::StickyError)) {
        m_scheduler.set_sticky(sim_error(SimError::LaunchFailure, "unspecified launch failure (sim fault sticky_error)"));
        return failed_sticky();
    }
    if (d.faults.has(Fault::Hang)) {
        work = [this] { m_scheduler.hang(); };
    }
    if (d.faults.has(Fault::NoOverlap)) {
        work = [&d, inner = std::move(work)] {
            std::lock_guard held(d.only_engine);
            inner();
        };
    }
    const TaskPtr t = enqueue(*s, std::move(work));
    return d.faults.has(Fault::LaunchBlocks) ? wait_and_report(t) : sim_ok();
}

// A kernel body that first checks its pointers, faulting (sticky) as a device would.
std::function<void()> SimBackend::checked_kernel(std::vector<std::pair<const void*, std::size_t>> args,
                                                 std::function<void()> body) {
    return [this, args = std::move(args), body = std::move(body)] {
        for (const auto& [ptr, bytes] : args) {
            if (bytes > 0 && !m_memory.device_accessible(ptr, bytes)) {
                m_scheduler.set_sticky(sim_error(SimError::IllegalAddress,
                                                 "kernel accessed memory that is neither device nor pinned"));
                return;
            }
        }
        body();
    };
}

ApiResult SimBackend::launch_spin(StreamHandle stream, std::uint64_t ns) {
    return launch(stream, [this, ns] {
        const auto deadline = Clock::now() + std::chrono::nanoseconds(ns);
        if (ns < k_busy_spin_ns) {
            while (Clock::now() < deadline) {
            }
        } else {
            m_scheduler.sleep_until(deadline);
        }
    });
}

ApiResult SimBackend::launch_fill(StreamHandle stream, std::uint32_t* words, std::size_t count,
                                  std::uint32_t seed) {
    return launch(stream, checked_kernel({{words, count * sizeof(std::uint32_t)}}, [words, count, seed] {
        for (std::size_t i = 0; i < count; ++i) {
            words[i] = pattern_word(seed, i);
        }
    }));
}

ApiResult SimBackend::launch_verify(StreamHandle stream, const std::uint32_t* words, std::size_t count,
                                    std::uint32_t seed, unsigned long long* device_mismatches) {
    auto body = [words, count, seed, device_mismatches] {
        unsigned long long bad = 0;
        for (std::size_t i = 0; i < count; ++i) {
            bad += words[i] != pattern_word(seed, i) ? 1 : 0;
        }
        std::atomic_ref<unsigned long long>(*device_mismatches).fetch_add(bad);
    };
    return launch(stream, checked_kernel({{words, count * sizeof(std::uint32_t)},
                                          {device_mismatches, sizeof(unsigned long long)}},
                                         std::move(body)));
}

// Takes 1 ns per iteration: every block runs in parallel, so time scales with iterations only.
ApiResult SimBackend::launch_compute(StreamHandle stream, std::uint64_t iterations, float* sink) {
    auto body = [this, iterations, sink] {
        m_scheduler.sleep_until(Clock::now() + std::chrono::nanoseconds(iterations));
        if (sink != nullptr) {
            *sink = static_cast<float>(iterations);
        }
    };
    return launch(stream, checked_kernel({{sink, sink != nullptr ? sizeof(float) : 0}}, std::move(body)));
}

ApiResult SimBackend::launch_invalid(StreamHandle stream) {
    if (auto s = failed_sticky(); !s.ok()) {
        return s;
    }
    if (!resolve_stream(stream)) {
        return fail(sim_bad_handle("stream"));
    }
    return fail(sim_error(SimError::InvalidConfiguration, "invalid configuration argument (more threads per "
                                                          "block than the device allows)"));
}

ApiResult SimBackend::launch_fault(StreamHandle stream) {
    return launch(stream, [this] {
        m_scheduler.set_sticky(sim_error(SimError::IllegalAddress, "an illegal memory access was encountered"));
    });
}

}  // namespace gpuconform::sim
