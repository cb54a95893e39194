// The simulated backend's memory and copies. A copy occupies its engine for bytes / bandwidth
// of modelled time (sim_scheduler.hpp); which copies return early is in sim_copy.hpp.
#include <cstring>

#include "backend/sim/sim_backend.hpp"
#include "backend/sim/sim_copy.hpp"
#include "backend/sim/sim_errors.hpp"
#include "backend/sim/sim_host_buffer.hpp"

namespace gpuconform::sim {

namespace {

// The engine a copy occupies; null for the kernel path (device-to-device).
Clock::time_point* copy_engine(SimDevice& d, CopyKind kind) {
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
        case CopyKind::HostToDevice:
            return dst_device && !src_device;
        case CopyKind::DeviceToHost:
            return src_device && !dst_device;
        case CopyKind::DeviceToDevice:
            return dst_device && src_device;
    }
    return false;
}

}  // namespace

ApiResult SimBackend::host_alloc_pinned(std::size_t bytes, void** ptr) {
    if (auto s = failed_sticky(); !s.ok()) {
        return s;
    }
    *ptr = nullptr;
    constexpr std::size_t k_pinned_limit = std::size_t{64} << 20;
    if (bytes > k_pinned_limit && !m_devices.empty() && m_devices.front()->faults.has(Fault::PinnedLimit)) {
        return fail(sim_error(SimError::MemoryAllocation,
                              "out of memory (sim fault pinned_limit: at most 64 MiB "
                              "may be pinned)"));
    }
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
    const ApiResult r =
        kind == RangeKind::Registered ? m_memory.remove_registered(ptr) : m_memory.release(kind, ptr, &device, &bytes);
    if (r.ok() && device >= 0) {
        std::lock_guard lock(m_state_mutex);
        m_devices[static_cast<std::size_t>(device)]->used_bytes -= bytes;
    }
    return reported(r);
}

ApiResult SimBackend::host_free_pinned(void* ptr) { return free_range(RangeKind::PinnedAlloc, ptr); }

ApiResult SimBackend::device_free(void* ptr) { return free_range(RangeKind::Device, ptr); }

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

ApiResult SimBackend::memcpy_async(void* dst, const void* src, std::size_t bytes, CopyKind kind, StreamHandle stream) {
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
        return fail(sim_error(SimError::InvalidValue,
                              "copy pointers do not match the copy kind (device "
                              "memory must come from device_alloc)"));
    }
    const bool host_pinned = kind == CopyKind::HostToDevice ? src_kind.has_value() : dst_kind.has_value();
    SimDevice& d = device_of(*s);
    const CopyMode mode = copy_mode(kind, host_pinned, bytes, d.faults);
    auto duration = copy_duration(kind, host_pinned, bytes, m_options, d.faults);
    if (kind != CopyKind::DeviceToDevice && !host_pinned) {
        d.pageable_copied = true;
    } else if (kind != CopyKind::DeviceToDevice && d.faults.has(Fault::LinkDips) && !d.pageable_copied) {
        duration *= 8;
    }
    std::unique_lock<std::mutex> link_lock;
    const bool shared_link = d.faults.has(Fault::LinkShared) && kind != CopyKind::DeviceToDevice && host_pinned &&
                             bytes >= k_shared_link_min_bytes;
    if (shared_link) {
        link_lock = std::unique_lock(d.link_mutex);
        if (!m_scheduler.pending(s->last_link_copy)) {
            duration *= 8;  // the link was free a moment: the other tenant took it
        }
    }
    if (kind != CopyKind::DeviceToDevice) {
        const void* host = kind == CopyKind::HostToDevice ? src : dst;
        duration = std::chrono::duration_cast<std::chrono::nanoseconds>(
            duration * m_numa->copy_factor(s->device, host, bytes));  // memory on the other node
    }
    std::shared_ptr<std::byte> staging;
    if (mode == CopyMode::Staged) {
        staging.reset(static_cast<std::byte*>(allocate_host_buffer(bytes, alignof(std::max_align_t))),
                      [](std::byte* p) { std::free(p); });
        if (staging == nullptr) {
            return sim_error(SimError::MemoryAllocation, "out of host memory for a pageable copy's staging buffer");
        }
        std::memcpy(staging.get(), src, bytes);
        src = staging.get();
    }
    const bool corrupt =
        (d.faults.has(Fault::SmallCopiesCorrupt) && kind == CopyKind::HostToDevice && bytes >= (std::size_t{4} << 10) &&
         bytes < (std::size_t{64} << 10)) ||
        (d.faults.has(Fault::CopiesCorrupt) && kind != CopyKind::DeviceToDevice && bytes >= (std::size_t{1} << 20));
    auto work = [dst, src, bytes, staging, corrupt] {
        std::memcpy(dst, src, bytes);
        if (corrupt) {
            static_cast<std::byte*>(dst)[bytes / 2] ^= std::byte{0x5a};  // one word of the copy is wrong
        }
    };
    const TaskPtr t = enqueue(*s, TaskSpec{std::move(work), duration, copy_engine(d, kind)});
    if (shared_link) {
        s->last_link_copy = t;
        link_lock.unlock();
    }
    return mode == CopyMode::Sync ? wait_and_report(t) : sim_ok();
}

}  // namespace gpuconform::sim
