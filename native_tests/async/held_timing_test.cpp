// Copy-bandwidth timings hold the stream until the host has queued the work: a host preempted
// between two calls (a busy node) leaves an idle gap between the start event and the copy, which
// plain event timing counts as copy time. On the simulated device, whose copies take a modelled
// time, so the figures are exact.
#include <gtest/gtest.h>

#include <thread>

#include "async/toolkit.hpp"
#include "sim/sim_fixture.hpp"

namespace gpuconform::async {
namespace {

using namespace std::chrono_literals;

constexpr std::size_t k_bytes = std::size_t{4} << 20;
constexpr double k_copy_ms = 4.0 * 1048576.0 / 1e6;  // 4 MiB at the 1 GB/s asked of the sim

struct Rig {
    explicit Rig(const std::string& options = "pinned_gbps=1") : b(sim_test::make_sim(options)) {}
    std::unique_ptr<Backend> b;
    Stream s{*b, StreamKind::NonBlocking};
    HostBuffer host{*b, k_bytes, HostKind::Pinned};
    DeviceBuffer dev{*b, k_bytes};
    int calls = 0;
    // The copy, queued `late` after the call before it.
    std::function<void()> late_copy(std::chrono::milliseconds late) {
        return [this, late] {
            ++calls;
            std::this_thread::sleep_for(late);
            GC_CHECK(b->memcpy_async(dev.data(), host.data(), k_bytes, CopyKind::HostToDevice, s));
        };
    }
};

TEST(HeldTiming, AHostGapBeforeTheCopyStaysOutOfTheHeldTime) {
    Rig rig;
    // The sim leaves up to 5 ms between two host calls out as scheduling noise; 30 ms is not.
    EXPECT_GT(event_time_ms(*rig.b, rig.s, rig.late_copy(30ms)), k_copy_ms + 20);
    rig.calls = 0;
    EXPECT_NEAR(held_event_time_ms(*rig.b, rig.s, rig.late_copy(30ms), 200'000'000), k_copy_ms, 0.5);
    EXPECT_EQ(rig.calls, 1) << "a 200 ms hold outlasts a 30 ms gap";
}

TEST(HeldTiming, AnOutlastedHoldIsTakenAgainLonger) {
    Rig rig;
    // Holds of 2 and 20 ms end before a host 40 ms late queues the copy; the 200 ms one does not.
    const double ms = held_event_time_ms(*rig.b, rig.s, rig.late_copy(40ms), 2'000'000);
    EXPECT_EQ(rig.calls, k_hold_attempts);
    EXPECT_NEAR(ms, k_copy_ms, 0.5);
}

TEST(HeldTiming, AQuietHostIsHeldAtTheFirstAttempt) {
    Rig rig;
    EXPECT_NEAR(held_event_time_ms(*rig.b, rig.s, rig.late_copy(0ms), 50'000'000), k_copy_ms, 0.5);
    EXPECT_EQ(rig.calls, 1);
}

// Launches that return only after the spin (CUDA_LAUNCH_BLOCKING) can hold nothing: one attempt.
TEST(HeldTiming, BlockingLaunchesAreNotTakenAgain) {
    Rig rig("pinned_gbps=1;fault=launch_blocks");
    EXPECT_NEAR(held_event_time_ms(*rig.b, rig.s, rig.late_copy(0ms), 20'000'000), k_copy_ms, 0.5);
    EXPECT_EQ(rig.calls, 1);
}

}  // namespace
}  // namespace gpuconform::async
