#include "acceptance/common.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace gpuconform::acceptance {

AcceptanceOps& ops_of(const CheckContext& ctx) {
    AcceptanceOps* ops = ctx.backend == nullptr ? nullptr : ctx.backend->acceptance();
    if (ops == nullptr) {
        throw SkipCheck("the " + (ctx.backend == nullptr ? std::string("?") : ctx.backend->name()) +
                        " module has no acceptance operations (built before they existed?)");
    }
    return *ops;
}

void call(const ApiResult& r, const char* what) {
    if (is_not_supported(r)) {
        throw SkipCheck(r.message);
    }
    if (!r.ok()) {
        throw ApiError(r, what, __FILE__, __LINE__);
    }
}

Budget::Budget(const CheckContext& ctx, double share, int devices_in_turn)
    : m_seconds(ctx.options.budget_s * share / (devices_in_turn > 0 ? devices_in_turn : 1)),
      m_start(std::chrono::steady_clock::now()) {}

double Budget::elapsed_s() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - m_start).count();
}

bool Budget::another_round() {
    const double now = elapsed_s();
    if (m_rounds > 0) {
        m_longest_round_s = std::max(m_longest_round_s, now - m_round_start_s);
    }
    m_round_start_s = now;
    return m_rounds++ == 0 || m_seconds - now >= m_longest_round_s;
}

DeviceMemory::DeviceMemory(Backend& b, std::size_t bytes) : m_backend(b), m_bytes(bytes) {
    GC_CHECK(b.device_alloc(bytes, &m_ptr));
}

DeviceMemory::~DeviceMemory() {
    if (m_ptr != nullptr) {
        (void)m_backend.device_free(m_ptr);
    }
}

BadWordsOnDevice::BadWordsOnDevice(Backend& b) : m_backend(b), m_memory(b, sizeof(BadWords)) {}

void BadWordsOnDevice::reset(StreamHandle stream) {
    static const BadWords k_none{};
    GC_CHECK(m_backend.memcpy_async(m_memory.get(), &k_none, sizeof k_none, CopyKind::HostToDevice, stream));
    GC_CHECK(m_backend.stream_synchronize(stream));
}

BadWords BadWordsOnDevice::read(StreamHandle stream) {
    BadWords out;
    GC_CHECK(m_backend.memcpy_async(&out, m_memory.get(), sizeof out, CopyKind::DeviceToHost, stream));
    GC_CHECK(m_backend.stream_synchronize(stream));
    return out;
}

std::uint64_t read_word(Backend& b, StreamHandle stream, const void* device_address) {
    std::uint64_t word = 0;
    GC_CHECK(b.memcpy_async(&word, device_address, sizeof word, CopyKind::DeviceToHost, stream));
    GC_CHECK(b.stream_synchronize(stream));
    return word;
}

std::string gpu_name(const CheckContext& ctx) {
    return fmt::format("{}:{} ({}, {})", ctx.backend == nullptr ? "?" : ctx.backend->name(), ctx.device, ctx.props.name,
                       ctx.props.pci_bus_id);
}

}  // namespace gpuconform::acceptance
