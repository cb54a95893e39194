// The simulated backend's peer operations: every pair of simulated devices can access each
// other (no_peer removes a device from that), and a peer copy takes bytes / peer bandwidth.
#include <cstring>

#include "backend/sim/sim_backend.hpp"
#include "backend/sim/sim_copy.hpp"
#include "backend/sim/sim_errors.hpp"

namespace gpuconform::sim {

namespace {
bool has_peer_path(const SimDevice& a, const SimDevice& b) {
    return !a.faults.has(Fault::NoPeer) && !b.faults.has(Fault::NoPeer);
}
}  // namespace

ApiResult SimBackend::peer_can_access(int device, int peer, bool* can_access) {
    if (auto s = failed_sticky(); !s.ok()) {
        return s;
    }
    const int n = static_cast<int>(m_devices.size());
    if (device < 0 || device >= n || peer < 0 || peer >= n) {
        return fail(sim_error(SimError::InvalidDevice, "no such simulated device pair"));
    }
    *can_access = device != peer && has_peer_path(*m_devices[static_cast<std::size_t>(device)],
                                                  *m_devices[static_cast<std::size_t>(peer)]);
    return sim_ok();
}

ApiResult SimBackend::peer_enable(int peer) {
    bool can = false;
    if (auto r = peer_can_access(current_device(), peer, &can); !r.ok()) {
        return r;
    }
    return can ? sim_ok()
               : fail(sim_error(SimError::PeerAccessUnsupported, "peer access is not supported between these devices"));
}

ApiResult SimBackend::peer_rank(int device, int peer, int* rank) {
    bool can = false;
    if (auto r = peer_can_access(device, peer, &can); !r.ok()) {
        return r;
    }
    *rank = can ? 0 : -1;
    return sim_ok();
}

ApiResult SimBackend::memcpy_peer_async(void* dst, int dst_device, const void* src, int src_device, std::size_t bytes,
                                        StreamHandle stream) {
    if (auto s = failed_sticky(); !s.ok()) {
        return s;
    }
    const StreamPtr s = resolve_stream(stream);
    const int n = static_cast<int>(m_devices.size());
    if (!s) {
        return fail(sim_bad_handle("stream"));
    }
    if (dst_device < 0 || dst_device >= n || src_device < 0 || src_device >= n) {
        return fail(sim_error(SimError::InvalidDevice, "no such simulated device for a peer copy"));
    }
    if (bytes == 0) {
        return sim_ok();
    }
    if (m_memory.classify(dst, bytes) != RangeKind::Device || m_memory.classify(src, bytes) != RangeKind::Device) {
        return fail(sim_error(SimError::InvalidValue, "peer copy pointers must be device memory"));
    }
    const auto& a = *m_devices[static_cast<std::size_t>(src_device)];
    const auto& b = *m_devices[static_cast<std::size_t>(dst_device)];
    // Without a direct path the runtime stages through host memory: at the pinned host rate.
    const double gbps = (has_peer_path(a, b) ? m_options.peer_gbps : m_options.pinned_gbps / 2) *
                        link_factor(a.faults) * link_factor(b.faults) * cotenant_link_factor(m_options);
    const auto duration = std::chrono::nanoseconds{static_cast<long long>(static_cast<double>(bytes) / gbps)};
    auto work = [dst, src, bytes] { std::memcpy(dst, src, bytes); };
    enqueue(*s, TaskSpec{std::move(work), duration, nullptr});
    return sim_ok();
}

}  // namespace gpuconform::sim
