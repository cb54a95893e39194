#include "runner/call_profile.hpp"

namespace gpuconform {

template <typename F>
ApiResult ProfiledBackend::timed(const char* call, const F& forward) {
    const auto start = std::chrono::steady_clock::now();
    ApiResult r = forward();
    Tally& t = m_tally[call];
    t.count += 1;
    t.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return r;
}

void ProfiledBackend::reset() { m_tally.clear(); }

nlohmann::json ProfiledBackend::line(const std::string& check, int device, double check_s) const {
    nlohmann::json calls = nlohmann::json::object();
    double in_calls = 0;
    for (const auto& [call, t] : m_tally) {
        calls[call] = {{"count", t.count}, {"seconds", t.seconds}};
        in_calls += t.seconds;
    }
    return {{"check", check},
            {"device", device},
            {"seconds", check_s},
            {"outside_calls_s", check_s - in_calls},
            {"calls", calls}};
}

ApiResult ProfiledBackend::device_count(int* count) {
    return timed("device_count", [&] { return m_inner.device_count(count); });
}
ApiResult ProfiledBackend::device_props(int device, DeviceProps* props) {
    return timed("device_props", [&] { return m_inner.device_props(device, props); });
}
ApiResult ProfiledBackend::set_device(int device) {
    return timed("set_device", [&] { return m_inner.set_device(device); });
}
ApiResult ProfiledBackend::device_synchronize() {
    return timed("device_synchronize", [&] { return m_inner.device_synchronize(); });
}
ApiResult ProfiledBackend::last_error() {
    return timed("last_error", [&] { return m_inner.last_error(); });
}
ApiResult ProfiledBackend::stream_create(StreamKind kind, StreamHandle* stream) {
    return timed("stream_create", [&] { return m_inner.stream_create(kind, stream); });
}
ApiResult ProfiledBackend::stream_destroy(StreamHandle stream) {
    return timed("stream_destroy", [&] { return m_inner.stream_destroy(stream); });
}
ApiResult ProfiledBackend::stream_query(StreamHandle stream, bool* done) {
    return timed("stream_query", [&] { return m_inner.stream_query(stream, done); });
}
ApiResult ProfiledBackend::stream_synchronize(StreamHandle stream) {
    return timed("stream_synchronize", [&] { return m_inner.stream_synchronize(stream); });
}
ApiResult ProfiledBackend::stream_wait_event(StreamHandle stream, EventHandle event) {
    return timed("stream_wait_event", [&] { return m_inner.stream_wait_event(stream, event); });
}
ApiResult ProfiledBackend::event_create(bool timing, EventHandle* event) {
    return timed("event_create", [&] { return m_inner.event_create(timing, event); });
}
ApiResult ProfiledBackend::event_destroy(EventHandle event) {
    return timed("event_destroy", [&] { return m_inner.event_destroy(event); });
}
ApiResult ProfiledBackend::event_record(EventHandle event, StreamHandle stream) {
    return timed("event_record", [&] { return m_inner.event_record(event, stream); });
}
ApiResult ProfiledBackend::event_synchronize(EventHandle event) {
    return timed("event_synchronize", [&] { return m_inner.event_synchronize(event); });
}
ApiResult ProfiledBackend::event_elapsed_ms(EventHandle start, EventHandle end, float* ms) {
    return timed("event_elapsed_ms", [&] { return m_inner.event_elapsed_ms(start, end, ms); });
}
ApiResult ProfiledBackend::host_alloc_pinned(std::size_t bytes, void** ptr) {
    return timed("host_alloc_pinned", [&] { return m_inner.host_alloc_pinned(bytes, ptr); });
}
ApiResult ProfiledBackend::host_free_pinned(void* ptr) {
    return timed("host_free_pinned", [&] { return m_inner.host_free_pinned(ptr); });
}
ApiResult ProfiledBackend::host_register(void* ptr, std::size_t bytes) {
    return timed("host_register", [&] { return m_inner.host_register(ptr, bytes); });
}
ApiResult ProfiledBackend::host_unregister(void* ptr) {
    return timed("host_unregister", [&] { return m_inner.host_unregister(ptr); });
}
ApiResult ProfiledBackend::device_alloc(std::size_t bytes, void** ptr) {
    return timed("device_alloc", [&] { return m_inner.device_alloc(bytes, ptr); });
}
ApiResult ProfiledBackend::device_free(void* ptr) {
    return timed("device_free", [&] { return m_inner.device_free(ptr); });
}
ApiResult ProfiledBackend::memcpy_async(void* dst, const void* src, std::size_t bytes, CopyKind kind,
                                        StreamHandle stream) {
    return timed("memcpy_async", [&] { return m_inner.memcpy_async(dst, src, bytes, kind, stream); });
}
ApiResult ProfiledBackend::peer_can_access(int device, int peer, bool* can_access) {
    return timed("peer_can_access", [&] { return m_inner.peer_can_access(device, peer, can_access); });
}
ApiResult ProfiledBackend::peer_enable(int peer) {
    return timed("peer_enable", [&] { return m_inner.peer_enable(peer); });
}
ApiResult ProfiledBackend::peer_rank(int device, int peer, int* rank) {
    return timed("peer_rank", [&] { return m_inner.peer_rank(device, peer, rank); });
}
ApiResult ProfiledBackend::memcpy_peer_async(void* dst, int dst_device, const void* src, int src_device,
                                             std::size_t bytes, StreamHandle stream) {
    return timed("memcpy_peer_async",
                 [&] { return m_inner.memcpy_peer_async(dst, dst_device, src, src_device, bytes, stream); });
}
ApiResult ProfiledBackend::launch_spin(StreamHandle stream, std::uint64_t ns) {
    return timed("launch_spin", [&] { return m_inner.launch_spin(stream, ns); });
}
ApiResult ProfiledBackend::launch_releasable_spin(StreamHandle stream, std::uint64_t ns) {
    return timed("launch_releasable_spin", [&] { return m_inner.launch_releasable_spin(stream, ns); });
}
ApiResult ProfiledBackend::release_spins() {
    return timed("release_spins", [&] { return m_inner.release_spins(); });
}
ApiResult ProfiledBackend::launch_fill(StreamHandle stream, std::uint32_t* words, std::size_t count,
                                       std::uint32_t seed) {
    return timed("launch_fill", [&] { return m_inner.launch_fill(stream, words, count, seed); });
}
ApiResult ProfiledBackend::launch_verify(StreamHandle stream, const std::uint32_t* words, std::size_t count,
                                         std::uint32_t seed, unsigned long long* device_mismatches) {
    return timed("launch_verify", [&] { return m_inner.launch_verify(stream, words, count, seed, device_mismatches); });
}
ApiResult ProfiledBackend::launch_compute(StreamHandle stream, std::uint64_t iterations, float* sink) {
    return timed("launch_compute", [&] { return m_inner.launch_compute(stream, iterations, sink); });
}
ApiResult ProfiledBackend::launch_invalid(StreamHandle stream) {
    return timed("launch_invalid", [&] { return m_inner.launch_invalid(stream); });
}
ApiResult ProfiledBackend::launch_fault(StreamHandle stream) {
    return timed("launch_fault", [&] { return m_inner.launch_fault(stream); });
}

}  // namespace gpuconform
