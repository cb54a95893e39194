// The data pattern that fill/verify kernels and host code agree on: fresh per seed, never zero,
// so a copy that did not happen (or happened from a stale buffer) is always visible.
#pragma once

#include <cstdint>

#if defined(__CUDACC__) || defined(__HIPCC__)
#define GPUCONFORM_HOST_DEVICE __host__ __device__
#else
#define GPUCONFORM_HOST_DEVICE
#endif

namespace gpuconform {

GPUCONFORM_HOST_DEVICE inline std::uint32_t pattern_word(std::uint32_t seed, std::uint64_t i) {
    std::uint64_t x = (static_cast<std::uint64_t>(seed) << 32) ^ (i * 0x9E3779B97F4A7C15ull);
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return static_cast<std::uint32_t>(x) | 1u;
}

}  // namespace gpuconform
