// The pure verdicts of the stream, event, overlap, queue and error checks, as tables of cases.
#include <gtest/gtest.h>

#include "async/timing_pair.hpp"

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

TEST(EventTiming, JudgesAKnownSpinAgainstEventsAndTheHost) {
    struct Case {
        double event_ms;
        double host_ms;
        Status expected;
    };
    const Case cases[] = {
        {20.01, 20.1, Status::Pass}, {20.9, 21.0, Status::Pass},  // within 5%
        {0.002, 0.01, Status::Fail},                              // events ignored: stamped at the call, nothing waited
        {0.002, 20.1, Status::Fail},                              // events report ~0 though the host waited
        {30.0, 30.1, Status::Fail},                               // events far off the kernel's length
        {20.0, 5.0, Status::Fail},                                // event_synchronize returned early
        {20.9, 19.5, Status::Fail},                               // events longer than the host waited in all
    };
    for (const auto& c : cases) {
        EXPECT_EQ(judge_event_timing(c.event_ms, c.host_ms, 20.0, 0.05).status, c.expected) << c.event_ms;
    }
    EXPECT_EQ(judge_event_timing(20, 20, 0, 0.05).status, Status::Error);
}

TEST(LaunchQueue, OnlyALaunchBlockedUntilTheGateEndedMarksTheQueueFull) {
    struct Case {
        double start_ms;
        double end_ms;
        LaunchClass expected;
    };
    const Case cases[] = {
        {5.0, 5.003, LaunchClass::Queued},
        {5.0, 200.1, LaunchClass::QueueFull},
        {5.0, 9.0, LaunchClass::Noise},  // slow, but the gate could not have ended yet
        {200.0, 200.01, LaunchClass::GateEnded},
    };
    for (const auto& c : cases) {
        EXPECT_EQ(classify_launch(c.start_ms, c.end_ms, 200.0, 1.0), c.expected) << c.start_ms << " " << c.end_ms;
    }
}

TEST(DeferredErrors, ReportsTheFirstPlaceAnErrorShowed) {
    const ApiResult ok;
    const ApiResult bad{700, "cudaErrorIllegalAddress", "an illegal memory access was encountered"};
    EXPECT_EQ(where_surfaced(bad, bad, bad), "launch call");
    EXPECT_EQ(where_surfaced(ok, bad, bad), "last_error");
    EXPECT_EQ(where_surfaced(ok, ok, bad), "synchronize");
    EXPECT_EQ(where_surfaced(ok, ok, ok), "never");
}

}  // namespace
}  // namespace gpuconform::async
