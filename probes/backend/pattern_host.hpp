// The data pattern (pattern.hpp) written and checked by the host over a range of words. One core
// writes the pattern at about 5 GB/s in baseline x86-64 code, since its 64-bit multiplies do not
// vectorize there; where the CPU has AVX-512 (x86-64-v4) the same loop runs at memory speed, about
// 5 times faster, and with AVX2 somewhat faster. So these functions are built for each, and the
// loader picks the one the CPU runs (GCC's target_clones). The words are the same in every build.
#pragma once

#include <cstddef>
#include <cstdint>

namespace gpuconform {

// words[i] = pattern_word(seed, i) for i in [begin, end).
void write_pattern(std::uint32_t* words, std::size_t begin, std::size_t end, std::uint32_t seed);
// How many of words[begin, end) differ from pattern_word(seed, i).
std::size_t count_pattern_mismatches(const std::uint32_t* words, std::size_t begin, std::size_t end,
                                     std::uint32_t seed);

}  // namespace gpuconform
