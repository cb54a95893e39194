#include "async/mismatch_counter.hpp"

#include <stdexcept>

namespace gpuconform::async {

namespace {
constexpr std::uint64_t k_no_readback = ~0ull;
}  // namespace

MismatchCounter::MismatchCounter(Backend& b, StreamHandle stream)
    : m_backend(b), m_counter(b, sizeof(std::uint64_t)), m_readback(b, sizeof(std::uint64_t), HostKind::Pinned) {
    auto* host = reinterpret_cast<std::uint64_t*>(m_readback.data());
    *host = 0;
    GC_CHECK(b.memcpy_async(m_counter.data(), host, sizeof(std::uint64_t), CopyKind::HostToDevice, stream));
    GC_CHECK(b.stream_synchronize(stream));
}

std::uint64_t MismatchCounter::count(StreamHandle stream, const std::uint32_t* words, std::size_t count,
                                     std::uint32_t seed) {
    auto* host = reinterpret_cast<std::uint64_t*>(m_readback.data());
    auto* counter = reinterpret_cast<unsigned long long*>(m_counter.data());
    GC_CHECK(m_backend.launch_verify(stream, words, count, seed, counter));
    *host = k_no_readback;  // a read-back that did not happen must not look like "no mismatches"
    GC_CHECK(m_backend.memcpy_async(host, counter, sizeof(std::uint64_t), CopyKind::DeviceToHost, stream));
    GC_CHECK(m_backend.stream_synchronize(stream));
    if (*host == k_no_readback || *host < m_seen) {
        throw std::runtime_error("the mismatch counter could not be read back from the device");
    }
    const std::uint64_t added = *host - m_seen;
    m_seen = *host;
    return added;
}

}  // namespace gpuconform::async
