// Counts wrong words on the device, for the checks that look for races in data (stream
// independence, source reuse, cross-stream order).
#pragma once

#include <cstdint>

#include "async/toolkit.hpp"

namespace gpuconform::async {

// Counts device words != pattern(seed). Its buffers are allocated once, up front: cudaMalloc and
// cudaHostAlloc may synchronize the device, which would hide the very races being measured.
class MismatchCounter {
public:
    MismatchCounter(Backend& b, StreamHandle stream);
    // Queues a verify of words[0..count) on `stream`, reads the counter back, synchronizes `stream`.
    std::uint64_t count(StreamHandle stream, const std::uint32_t* words, std::size_t count, std::uint32_t seed);

private:
    Backend& m_backend;
    DeviceBuffer m_counter;
    HostBuffer m_readback;
    std::uint64_t m_seen = 0;  // the counter only grows; each call reports its own increase
};

}  // namespace gpuconform::async
