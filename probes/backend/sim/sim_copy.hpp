// How a simulated memcpy_async behaves, as pure functions of what it copies.
// Conforming behaviour mirrors what CUDA was seen to do (docs/vendor-behaviour.md, "Copies"):
// pinned and device-to-device copies return at once; pageable host-to-device copies up to the
// staging size are staged and return at once, larger ones wait; pageable device-to-host copies
// return only once the data is in the host buffer.
#pragma once

#include <chrono>
#include <cstddef>

#include "backend/backend.hpp"
#include "backend/sim/sim_cotenant.hpp"
#include "backend/sim/sim_options.hpp"

namespace gpuconform::sim {

enum class CopyMode {
    Async,   // queued; the call returns at once
    Staged,  // the host data is copied aside at call time; the call returns at once
    Sync,    // queued, and the call returns once it (and all earlier work) has finished
};

constexpr std::size_t k_staging_bytes = std::size_t{1} << 20;
// link_shared slows pinned copies from this size up: the ones bandwidth figures are made of.
constexpr std::size_t k_shared_link_min_bytes = std::size_t{1} << 20;

inline CopyMode copy_mode(CopyKind kind, bool host_pinned, std::size_t bytes, const FaultSet& faults) {
    if (kind == CopyKind::DeviceToDevice) {
        return CopyMode::Async;
    }
    if (host_pinned) {
        return faults.has(Fault::PinnedCopyBlocks) ? CopyMode::Sync : CopyMode::Async;
    }
    if (kind == CopyKind::DeviceToHost) {
        return faults.has(Fault::PageableD2hEarly) ? CopyMode::Async : CopyMode::Sync;
    }
    return bytes <= k_staging_bytes ? CopyMode::Staged : CopyMode::Sync;
}

// Host <-> device link time; device-to-device copies take only their memcpy (no link).
// slow_link: an eighth of the rate (fails any floor); degraded_link: 60 % (passes a loose
// floor, but falls well below its healthy siblings).
inline double link_factor(const FaultSet& faults) {
    return (faults.has(Fault::SlowLink) ? 1.0 / 8.0 : 1.0) * (faults.has(Fault::DegradedLink) ? 0.6 : 1.0) *
           (faults.has(Fault::LinkAt80) ? 0.8 : 1.0);
}

inline std::chrono::nanoseconds copy_duration(CopyKind kind, bool host_pinned, std::size_t bytes,
                                              const SimOptions& options, const FaultSet& faults) {
    if (kind == CopyKind::DeviceToDevice) {
        return std::chrono::nanoseconds{0};
    }
    double gbps = host_pinned ? options.pinned_gbps : options.pageable_gbps;
    gbps *= link_factor(faults) * cotenant_link_factor(options);
    return std::chrono::nanoseconds{static_cast<long long>(static_cast<double>(bytes) / gbps)};
}

}  // namespace gpuconform::sim
