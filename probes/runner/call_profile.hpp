// Where a device check's time goes, call by call: a Backend that forwards every call to the real
// one and adds up how often each was made and how long the host spent in it. Turned on by
// GPUCONFORM_CALL_PROFILE=FILE; each worker appends one JSON line per check to FILE (reports/bench/README.md).
// The time outside every call is the check's own host work (filling and checking patterns, waits
// on the host clock).
#pragma once

#include <map>
#include <chrono>
#include <string>

#include <nlohmann/json.hpp>

#include "backend/backend.hpp"

namespace gpuconform {

class ProfiledBackend : public Backend {
public:
    explicit ProfiledBackend(Backend& inner) : m_inner(inner) {}

    // Starts a check's tally; line() gives it as JSON with the check's own wall time.
    void reset();
    nlohmann::json line(const std::string& check, int device, double check_s) const;

    std::string name() const override { return m_inner.name(); }
    std::string vendor() const override { return m_inner.vendor(); }
    VersionInfo versions() override { return m_inner.versions(); }
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
    // Not counted: the acceptance layer's load and the NUMA model are passed through as they are.
    HostNuma* host_numa() override { return m_inner.host_numa(); }
    AcceptanceOps* acceptance() override { return m_inner.acceptance(); }
    std::chrono::steady_clock::time_point host_now() override { return m_inner.host_now(); }

private:
    template <typename F>
    ApiResult timed(const char* call, const F& forward);

    struct Tally {
        std::uint64_t count = 0;
        double seconds = 0;
    };
    Backend& m_inner;
    std::map<std::string, Tally> m_tally;
};

}  // namespace gpuconform
