// The event-timing, launch-queue, deferred-error and bidirectional-round judges, as tables of cases.
#include <gtest/gtest.h>

#include "async/judges.hpp"

namespace gpuconform::async {
namespace {

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

TEST(BidirectionalRounds, TheBestRoundIsBothDirectionsOverTheFasterAloneInThatRound) {
    // A link whose rate moved: one round overlapped, the others read little more than one direction.
    EXPECT_NEAR(best_round_gain({33.5, 52.0, 30.1}, {31.0, 50.2, 29.0}, {43.3, 96.0, 38.0}), 96.0 / 52.0, 1e-9);
    // One working engine: no round ever reads more than one direction.
    EXPECT_LT(best_round_gain({24, 24, 24}, {24, 24, 24}, {24.2, 24.1, 23.9}), 1.01);
    // Rounds pair by index; a round with no single figure is no evidence.
    EXPECT_DOUBLE_EQ(best_round_gain({0, 10}, {0, 10}, {50, 15}), 1.5);
    EXPECT_DOUBLE_EQ(best_round_gain({}, {}, {}), 0.0);
    EXPECT_DOUBLE_EQ(best_round_gain({10}, {10}, {}), 0.0);
}

}  // namespace
}  // namespace gpuconform::async
