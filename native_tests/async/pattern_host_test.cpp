// The host's pattern loops (backend/pattern_host.hpp), in whichever build the CPU picked, against
// pattern_word itself, word by word.
#include "backend/pattern_host.hpp"

#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include "backend/pattern.hpp"

namespace gpuconform {
namespace {

TEST(PatternHost, WritesPatternWordAtEveryIndexOfTheRange) {
    // Odd bounds, so a vector loop's head and tail are both written by their own code.
    constexpr std::size_t k_words = 10007;
    constexpr std::size_t k_begin = 3;
    constexpr std::size_t k_end = 9999;
    std::vector<std::uint32_t> words(k_words, 0);
    write_pattern(words.data(), k_begin, k_end, 0x1234567u);
    for (std::size_t i = 0; i < k_words; ++i) {
        const std::uint32_t want = i >= k_begin && i < k_end ? pattern_word(0x1234567u, i) : 0u;
        ASSERT_EQ(words[i], want) << "word " << i;
    }
}

TEST(PatternHost, CountsEveryWrongWordAndOnlyThoseInRange) {
    constexpr std::size_t k_words = 4099;
    std::vector<std::uint32_t> words(k_words);
    write_pattern(words.data(), 0, k_words, 77u);
    EXPECT_EQ(count_pattern_mismatches(words.data(), 0, k_words, 77u), 0u);
    EXPECT_EQ(count_pattern_mismatches(words.data(), 0, k_words, 78u), k_words);  // another seed: all differ
    for (const std::size_t i : {std::size_t{0}, std::size_t{1}, std::size_t{2048}, k_words - 1}) {
        words[i] ^= 0x80u;
    }
    EXPECT_EQ(count_pattern_mismatches(words.data(), 0, k_words, 77u), 4u);
    EXPECT_EQ(count_pattern_mismatches(words.data(), 1, k_words - 1, 77u), 2u);  // 0 and the last are outside
}

}  // namespace
}  // namespace gpuconform
