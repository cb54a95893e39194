// Loads the built sim module the way the runner does (dlopen), and small RAII helpers for its
// buffers. The module is never closed: a backend's worker threads must not outlive its code.
#pragma once

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "backend/backend.hpp"
#include "test_paths.hpp"

namespace gpuconform::sim_test {

using Clock = std::chrono::steady_clock;

inline double ms_since(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

struct SimModule {
    CreateBackendFn create = nullptr;
    AbiVersionFn abi_version = nullptr;
    std::string error;
};

inline const SimModule& sim_module() {
    static const SimModule module = [] {
        SimModule m;
        void* handle = dlopen((std::string(test_paths::binary_dir) + "/backends/libgpuconform-sim.so").c_str(),
                              RTLD_NOW | RTLD_LOCAL);
        if (handle == nullptr) {
            m.error = dlerror();
            return m;
        }
        m.create = reinterpret_cast<CreateBackendFn>(dlsym(handle, "gpuconform_create_backend"));
        m.abi_version = reinterpret_cast<AbiVersionFn>(dlsym(handle, "gpuconform_backend_abi_version"));
        if (m.create == nullptr || m.abi_version == nullptr) {
            m.error = "module lacks the gpuconform entry points";
        }
        return m;
    }();
    return module;
}

// Null when the module is missing or rejects the options (the test then says why).
inline std::unique_ptr<Backend> make_sim(const std::string& options = "") {
    const SimModule& m = sim_module();
    if (m.create == nullptr) {
        ADD_FAILURE() << "sim module not loaded: " << m.error;
        return nullptr;
    }
    return std::unique_ptr<Backend>(m.create(options.c_str()));
}

// Memory from the backend, freed (which synchronizes) at scope end.
class SimBuffer {
public:
    enum class Kind { Device, Pinned };

    SimBuffer(Backend& backend, Kind kind, std::size_t bytes) : m_backend(backend), m_kind(kind) {
        const ApiResult r =
            kind == Kind::Device ? backend.device_alloc(bytes, &m_ptr) : backend.host_alloc_pinned(bytes, &m_ptr);
        EXPECT_TRUE(r.ok()) << r.name << ": " << r.message;
    }
    ~SimBuffer() {
        if (m_kind == Kind::Device) {
            m_backend.device_free(m_ptr);
        } else {
            m_backend.host_free_pinned(m_ptr);
        }
    }
    SimBuffer(const SimBuffer&) = delete;
    SimBuffer& operator=(const SimBuffer&) = delete;

    void* get() const { return m_ptr; }
    std::uint32_t* words() const { return static_cast<std::uint32_t*>(m_ptr); }

private:
    Backend& m_backend;
    Kind m_kind;
    void* m_ptr = nullptr;
};

inline StreamHandle make_stream(Backend& backend, StreamKind kind = StreamKind::Blocking) {
    StreamHandle s = 0;
    const ApiResult r = backend.stream_create(kind, &s);
    EXPECT_TRUE(r.ok()) << r.name;
    return s;
}

// Runs verify on the device and returns the mismatch count (synchronizes the stream).
inline unsigned long long device_mismatches(Backend& backend, const std::uint32_t* words, std::size_t count,
                                            std::uint32_t seed, StreamHandle stream = k_legacy_stream) {
    SimBuffer counter(backend, SimBuffer::Kind::Device, sizeof(unsigned long long));
    *static_cast<unsigned long long*>(counter.get()) = 0;
    EXPECT_TRUE(
        backend.launch_verify(stream, words, count, seed, static_cast<unsigned long long*>(counter.get())).ok());
    EXPECT_TRUE(backend.stream_synchronize(stream).ok());
    return *static_cast<unsigned long long*>(counter.get());
}

inline std::size_t host_mismatches(const std::uint32_t* words, std::size_t count, std::uint32_t seed) {
    std::size_t bad = 0;
    for (std::size_t i = 0; i < count; ++i) {
        bad += words[i] != pattern_word(seed, i) ? 1 : 0;
    }
    return bad;
}

}  // namespace gpuconform::sim_test
