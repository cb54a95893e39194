// The tiny-kernel-behind-a-long-one classification and the ordering verdict, as tables of cases.
#include <gtest/gtest.h>

#include "async/stream_ordering.hpp"

namespace gpuconform::async {
namespace {

TEST(StreamOrdering, ClassifiesATinyKernelBehindALongOne) {
    struct Case {
        double done_ms;  // since the long launch
        bool long_busy;
        WaitOutcome expected;
    };
    const Case cases[] = {
        {50.2, false, WaitOutcome::Waited},      // finished only after the 50 ms kernel
        {5.03, true, WaitOutcome::Independent},  // finished while the long one still ran
        {40.0, false, WaitOutcome::Waited},      // exactly at the 0.8 line counts as waited
        {39.9, false, WaitOutcome::Undecided},   // quick, yet the long one had ended: gate too short
        {60.0, true, WaitOutcome::Undecided},    // slow, yet the long one still ran: host stalled
    };
    for (const auto& c : cases) {
        BehindLong m;
        m.long_ms = 50.0;
        m.tiny_ms = 0.03;
        m.done_ms = c.done_ms;
        m.long_busy = c.long_busy;
        EXPECT_EQ(classify_wait(m, 0.8), c.expected) << c.done_ms;
    }
}

TEST(StreamOrdering, ALongLaunchThatBlockedIsNoEvidence) {
    BehindLong m;
    m.long_ms = 50.0;
    m.long_launch_ms = 50.1;  // CUDA_LAUNCH_BLOCKING: the long kernel was over before the tiny one started
    m.done_ms = 50.2;
    m.long_busy = false;
    EXPECT_EQ(classify_wait(m, 0.8), WaitOutcome::Undecided);
}

TEST(StreamOrdering, OneContradictingTrialFailsAndUndecidedNeverPasses) {
    using W = WaitOutcome;
    struct Case {
        bool expect_wait;
        std::vector<WaitOutcome> outcomes;
        Status expected;
    };
    const Case cases[] = {
        {true, {W::Waited, W::Waited, W::Waited}, Status::Pass},
        {true, {W::Waited, W::Independent, W::Waited}, Status::Fail},
        {true, {W::Waited, W::Undecided}, Status::Error},
        {true, {}, Status::Error},
        {false, {W::Independent, W::Independent}, Status::Pass},
        {false, {W::Independent, W::Waited}, Status::Fail},
        {false, {W::Undecided, W::Waited}, Status::Fail},
        {false, {W::Undecided}, Status::Error},
    };
    for (const auto& c : cases) {
        EXPECT_EQ(judge_ordering(c.expect_wait, c.outcomes), c.expected);
    }
}

}  // namespace
}  // namespace gpuconform::async
