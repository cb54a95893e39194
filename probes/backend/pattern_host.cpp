#include "backend/pattern_host.hpp"

#include "backend/pattern.hpp"

// One build per instruction set where the compiler can resolve them at load time (an ifunc).
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define GPUCONFORM_PATTERN_CLONES __attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#else
#define GPUCONFORM_PATTERN_CLONES
#endif

namespace gpuconform {

GPUCONFORM_PATTERN_CLONES
void write_pattern(std::uint32_t* words, std::size_t begin, std::size_t end, std::uint32_t seed) {
    for (std::size_t i = begin; i < end; ++i) {
        words[i] = pattern_word(seed, i);
    }
}

GPUCONFORM_PATTERN_CLONES
std::size_t count_pattern_mismatches(const std::uint32_t* words, std::size_t begin, std::size_t end,
                                     std::uint32_t seed) {
    std::size_t bad = 0;
    for (std::size_t i = begin; i < end; ++i) {
        bad += words[i] != pattern_word(seed, i) ? 1 : 0;
    }
    return bad;
}

}  // namespace gpuconform
