#include "core/byte_sizes.hpp"

#include <gtest/gtest.h>

namespace gpuconform {
namespace {

TEST(SizeLabel, TheLargestUnitThatDividesExactly) {
    EXPECT_EQ(size_label(65536), "64KiB");
    EXPECT_EQ(size_label(16ULL << 20), "16MiB");
    EXPECT_EQ(size_label(1ULL << 30), "1GiB");  // never "1024MiB": one spelling per size
    EXPECT_EQ(size_label(3ULL << 40), "3TiB");
    EXPECT_EQ(size_label((1ULL << 20) + 1024), "1025KiB");
    EXPECT_EQ(size_label(1000), "1000B");
    EXPECT_EQ(size_label(0), "0B");
}

TEST(SizeWords, ThreeSignificantDigitsAndNeverAnExponent) {
    EXPECT_EQ(size_words(512), "512 B");
    EXPECT_EQ(size_words(64 * 1024), "64 KiB");
    EXPECT_EQ(size_words(8ULL << 30), "8 GiB");
    EXPECT_EQ(size_words(3ULL << 29), "1.5 GiB");
    EXPECT_EQ(size_words(1000ULL << 20), "1000 MiB");  // {:.3g} would say 1e+03
    EXPECT_EQ(size_words(1023ULL << 20), "1023 MiB");
}

}  // namespace
}  // namespace gpuconform
