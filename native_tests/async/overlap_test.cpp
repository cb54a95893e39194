// The overlap ratio and the stream-scaling limit, as tables of cases.
#include <gtest/gtest.h>

#include "async/overlap.hpp"

namespace gpuconform::async {
namespace {

TEST(Overlap, RatioIsOneForFullOverlapAndZeroForNone) {
    EXPECT_DOUBLE_EQ(*overlap_ratio(10, 10, 10), 1.0);
    EXPECT_DOUBLE_EQ(*overlap_ratio(10, 10, 20), 0.0);
    EXPECT_DOUBLE_EQ(*overlap_ratio(10, 4, 12), 0.5);  // 2 of the shorter 4 ms hidden
}

TEST(Overlap, ImpossibleFiguresAreNoEvidence) {
    EXPECT_FALSE(overlap_ratio(0, 10, 10).has_value());   // an event timed nothing
    EXPECT_FALSE(overlap_ratio(10, 10, 2).has_value());   // the pair cannot beat its longer half
    EXPECT_TRUE(overlap_ratio(10, 10, 9.5).has_value());  // timing noise is not an impossibility
}

TEST(ManyStreams, ScalingStopsAtTheFirstCountBelowTheRatio) {
    struct Case {
        std::vector<std::pair<int, double>> by_streams;
        int expected;
    };
    const Case cases[] = {
        {{{1, 1.0}, {4, 3.9}, {16, 15.0}, {32, 30.0}}, 32},
        {{{1, 1.0}, {4, 3.9}, {16, 4.1}, {32, 4.0}}, 4},  // ROCm with 4 hardware queues
        {{{1, 1.0}, {4, 1.0}, {16, 16.0}}, 1},            // a later recovery does not count
        {{{1, 0.5}, {4, 4.0}}, 0},
    };
    for (const auto& c : cases) {
        EXPECT_EQ(scaling_limit(c.by_streams, 0.8), c.expected);
    }
}

}  // namespace
}  // namespace gpuconform::async
