// Which addresses are "device" memory and which host ranges are pinned. Device memory is host
// heap; keeping every range in one ordered map lets a copy classify its pointers the way a
// UVA runtime does, and lets a kernel fault on an address it could not reach.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <map>
#include <mutex>
#include <optional>

#include "backend/sim/sim_errors.hpp"
#include "backend/sim/sim_host_buffer.hpp"

namespace gpuconform::sim {

enum class RangeKind { Device, PinnedAlloc, Registered };

class MemoryRegistry {
public:
    MemoryRegistry() = default;
    MemoryRegistry(const MemoryRegistry&) = delete;
    MemoryRegistry& operator=(const MemoryRegistry&) = delete;

    ~MemoryRegistry() {
        for (const auto& [base, range] : m_ranges) {
            if (range.kind != RangeKind::Registered) {
                std::free(reinterpret_cast<void*>(base));
            }
        }
    }

    // Device allocations are charged to `device`; pinned ones pass -1.
    ApiResult allocate(RangeKind kind, int device, std::size_t bytes, void** ptr) {
        constexpr std::size_t k_align = 256;  // what cudaMalloc guarantees
        void* p = allocate_host_buffer(bytes, k_align);
        if (p == nullptr) {
            return sim_error(SimError::MemoryAllocation, "out of host memory for the simulated allocation");
        }
        // Touch every page now, as a real allocation backs it now: a first touch inside a timed
        // copy would make the copy slower than its modelled bandwidth.
        std::memset(p, 0, bytes);
        std::lock_guard lock(m_mutex);
        m_ranges[reinterpret_cast<std::uintptr_t>(p)] = Range{bytes, kind, device};
        *ptr = p;
        return sim_ok();
    }

    // Frees an allocation of `kind` by its base address; *device and *bytes say what it was.
    ApiResult release(RangeKind kind, void* ptr, int* device, std::size_t* bytes) {
        std::lock_guard lock(m_mutex);
        const auto it = m_ranges.find(reinterpret_cast<std::uintptr_t>(ptr));
        if (it == m_ranges.end() || it->second.kind != kind) {
            return sim_error(SimError::InvalidValue, "pointer is not the start of a live allocation of this kind");
        }
        *device = it->second.device;
        *bytes = it->second.bytes;
        m_ranges.erase(it);
        std::free(ptr);
        return sim_ok();
    }

    ApiResult add_registered(void* ptr, std::size_t bytes) {
        if (ptr == nullptr || bytes == 0) {
            return sim_error(SimError::InvalidValue, "host_register needs a non-null pointer and a non-zero size");
        }
        std::lock_guard lock(m_mutex);
        const auto base = reinterpret_cast<std::uintptr_t>(ptr);
        if (overlaps(base, bytes)) {
            return sim_error(SimError::HostMemoryAlreadyRegistered,
                             "range overlaps memory that is already pinned, registered or device memory");
        }
        m_ranges[base] = Range{bytes, RangeKind::Registered, -1};
        return sim_ok();
    }

    ApiResult remove_registered(void* ptr) {
        std::lock_guard lock(m_mutex);
        const auto it = m_ranges.find(reinterpret_cast<std::uintptr_t>(ptr));
        if (it == m_ranges.end() || it->second.kind != RangeKind::Registered) {
            return sim_error(SimError::HostMemoryNotRegistered, "pointer was not registered with host_register");
        }
        m_ranges.erase(it);
        return sim_ok();
    }

    // The kind of the one range holding all of [ptr, ptr + bytes), or nullopt (pageable host).
    std::optional<RangeKind> classify(const void* ptr, std::size_t bytes) const {
        std::lock_guard lock(m_mutex);
        const auto p = reinterpret_cast<std::uintptr_t>(ptr);
        auto it = m_ranges.upper_bound(p);
        if (it == m_ranges.begin()) {
            return std::nullopt;
        }
        --it;
        if (p + bytes > it->first + it->second.bytes || p < it->first) {
            return std::nullopt;
        }
        return it->second.kind;
    }

    // What a kernel may touch: device memory and (mapped) pinned host memory.
    bool device_accessible(const void* ptr, std::size_t bytes) const {
        return ptr != nullptr && classify(ptr, bytes).has_value();
    }

private:
    struct Range {
        std::size_t bytes;
        RangeKind kind;
        int device;
    };

    bool overlaps(std::uintptr_t base, std::size_t bytes) const {
        auto it = m_ranges.lower_bound(base + bytes);
        if (it == m_ranges.begin()) {
            return false;
        }
        --it;
        return it->first + it->second.bytes > base;
    }

    mutable std::mutex m_mutex;
    std::map<std::uintptr_t, Range> m_ranges;
};

}  // namespace gpuconform::sim
