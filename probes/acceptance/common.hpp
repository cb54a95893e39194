// What the acceptance layer's checks share: the module's load operations, the time budget each
// check plans by, device memory, and reading back where a check kernel saw a wrong word.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "backend/acceptance_ops.hpp"
#include "core/check.hpp"

namespace gpuconform::acceptance {

// The module's acceptance operations; a module without them makes the check skip saying so.
AcceptanceOps& ops_of(const CheckContext& ctx);

// Throws SkipCheck when the module lacks the operation (naming it), ApiError when the call failed.
void call(const ApiResult& r, const char* what);

// A check's share of `run --budget`: it plans its work to end by then. `devices_in_turn`: a check
// that runs on one GPU after another divides its share between them.
class Budget {
public:
    Budget(const CheckContext& ctx, double share, int devices_in_turn = 1);
    double seconds() const { return m_seconds; }
    double elapsed_s() const;
    double left_s() const { return m_seconds - elapsed_s(); }
    bool spent() const { return left_s() <= 0; }
    // Called at the top of each round of a check's loop: whether to run it. The first round always
    // runs; a later one only when the time left holds a round as long as the longest so far, so a
    // loop ends inside its share even when rounds are long (a large GPU's memory test, a loaded host).
    bool another_round();

private:
    double m_seconds;
    std::chrono::steady_clock::time_point m_start;
    int m_rounds = 0;
    double m_round_start_s = 0;
    double m_longest_round_s = 0;
};

// Device memory freed with the object (a fresh allocation: never the worker's copy buffers).
class DeviceMemory {
public:
    DeviceMemory(Backend& b, std::size_t bytes);
    ~DeviceMemory();
    DeviceMemory(const DeviceMemory&) = delete;
    DeviceMemory& operator=(const DeviceMemory&) = delete;
    void* get() const { return m_ptr; }
    template <typename T>
    T* as() const {
        return static_cast<T*>(m_ptr);
    }
    std::size_t bytes() const { return m_bytes; }

private:
    Backend& m_backend;
    void* m_ptr = nullptr;
    std::size_t m_bytes = 0;
};

// A BadWords record in device memory: reset before a check kernel, read after it (synchronizes).
class BadWordsOnDevice {
public:
    explicit BadWordsOnDevice(Backend& b);
    void reset(StreamHandle stream);
    BadWords read(StreamHandle stream);
    BadWords* get() const { return m_memory.as<BadWords>(); }

private:
    Backend& m_backend;
    DeviceMemory m_memory;
};

// One 64-bit word of device memory, read back (synchronizes `stream`).
std::uint64_t read_word(Backend& b, StreamHandle stream, const void* device_address);

// "cuda:0 (NVIDIA H200, 0000:18:00.0)": the GPU a failure names.
std::string gpu_name(const CheckContext& ctx);

}  // namespace gpuconform::acceptance
