// Streams and events on a conforming sim device: asynchrony, legacy-stream ordering,
// per-thread streams, event ordering and timing, and errors for unknown handles.
#include <gtest/gtest.h>

#include <thread>

#include "sim_fixture.hpp"

namespace gpuconform::sim_test {
namespace {

constexpr std::uint64_t k_long_ns = 40'000'000;

TEST(SimStream, QueryIsNotDoneWhileASpinIsQueued) {
    auto b = make_sim();
    ASSERT_NE(b, nullptr);
    const StreamHandle s = make_stream(*b);
    const auto start = Clock::now();
    ASSERT_TRUE(b->launch_spin(s, k_long_ns).ok());
    bool done = true;  // the launch returned while its spin still runs: the call is async
    ASSERT_TRUE(b->stream_query(s, &done).ok());
    EXPECT_FALSE(done);
    ASSERT_TRUE(b->stream_synchronize(s).ok());
    EXPECT_GE(ms_since(start), 40.0);
    ASSERT_TRUE(b->stream_query(s, &done).ok());
    EXPECT_TRUE(done);
}

// A spin on `first`, then a tiny kernel on `second`: true when `second`'s kernel ended only after
// the spin, i.e. `second` waited for `first`. Read by events on the modelled timeline, both held
// behind a gate (a 60 ms spin on a stream of its own) so that they start together however late a
// busy host issues them: a host thread preempted for tens of milliseconds must not look like a
// stream that waited, nor hide one that did.
bool second_waits_for_first(Backend& b, StreamHandle first, StreamHandle second) {
    const StreamHandle gate_stream = make_stream(b, StreamKind::NonBlocking);
    EventHandle gate = 0;
    EventHandle first_done = 0;
    EventHandle second_done = 0;
    for (EventHandle* e : {&gate, &first_done, &second_done}) {
        EXPECT_TRUE(b.event_create(true, e).ok());
    }
    EXPECT_TRUE(b.launch_spin(gate_stream, 60'000'000).ok());
    EXPECT_TRUE(b.event_record(gate, gate_stream).ok());
    EXPECT_TRUE(b.stream_wait_event(first, gate).ok());
    EXPECT_TRUE(b.launch_spin(first, k_long_ns).ok());
    EXPECT_TRUE(b.event_record(first_done, first).ok());
    EXPECT_TRUE(b.stream_wait_event(second, gate).ok());
    EXPECT_TRUE(b.launch_spin(second, 1000).ok());
    EXPECT_TRUE(b.event_record(second_done, second).ok());
    EXPECT_TRUE(b.device_synchronize().ok());
    float second_after_first_ms = 0;
    EXPECT_TRUE(b.event_elapsed_ms(first_done, second_done, &second_after_first_ms).ok());
    for (EventHandle e : {gate, first_done, second_done}) {
        EXPECT_TRUE(b.event_destroy(e).ok());
    }
    return second_after_first_ms >= 0.0f;
}

TEST(SimStream, LegacyStreamWaitsForBlockingStreamsOnly) {
    auto b = make_sim();
    ASSERT_NE(b, nullptr);
    const StreamHandle blocking = make_stream(*b, StreamKind::Blocking);
    const StreamHandle non_blocking = make_stream(*b, StreamKind::NonBlocking);
    EXPECT_TRUE(second_waits_for_first(*b, blocking, k_legacy_stream));
    EXPECT_TRUE(second_waits_for_first(*b, blocking, 0));  // handle 0 is the legacy stream
    EXPECT_FALSE(second_waits_for_first(*b, non_blocking, k_legacy_stream));
}

TEST(SimStream, BlockingStreamsWaitForTheLegacyStream) {
    auto b = make_sim();
    ASSERT_NE(b, nullptr);
    const StreamHandle blocking = make_stream(*b, StreamKind::Blocking);
    const StreamHandle non_blocking = make_stream(*b, StreamKind::NonBlocking);
    EXPECT_TRUE(second_waits_for_first(*b, k_legacy_stream, blocking));
    EXPECT_FALSE(second_waits_for_first(*b, k_legacy_stream, non_blocking));
}

TEST(SimStream, BlockingStreamsDoNotWaitForEachOther) {
    auto b = make_sim();
    ASSERT_NE(b, nullptr);
    EXPECT_FALSE(second_waits_for_first(*b, make_stream(*b), make_stream(*b)));
}

TEST(SimStream, PerThreadStreamOrdersWithTheLegacyStreamOnly) {
    auto b = make_sim();
    ASSERT_NE(b, nullptr);
    const StreamHandle blocking = make_stream(*b, StreamKind::Blocking);
    EXPECT_FALSE(second_waits_for_first(*b, blocking, k_per_thread_stream));
    EXPECT_TRUE(second_waits_for_first(*b, k_legacy_stream, k_per_thread_stream));
    // Each host thread has its own: another thread's per-thread stream is not held up by ours.
    ASSERT_TRUE(b->launch_spin(k_per_thread_stream, k_long_ns).ok());
    bool other_done = false;
    std::thread([&] {
        EXPECT_TRUE(b->launch_spin(k_per_thread_stream, 1000).ok());
        EXPECT_TRUE(b->stream_synchronize(k_per_thread_stream).ok());
        EXPECT_TRUE(b->stream_query(k_per_thread_stream, &other_done).ok());
    }).join();
    bool mine_done = true;
    ASSERT_TRUE(b->stream_query(k_per_thread_stream, &mine_done).ok());
    EXPECT_TRUE(other_done);
    EXPECT_FALSE(mine_done);
    ASSERT_TRUE(b->device_synchronize().ok());
}

TEST(SimEvent, ElapsedTimeIsTheStreamTimeBetweenRecords) {
    auto b = make_sim();
    ASSERT_NE(b, nullptr);
    const StreamHandle s = make_stream(*b);
    EventHandle e0 = 0;
    EventHandle e1 = 0;
    ASSERT_TRUE(b->event_create(true, &e0).ok());
    ASSERT_TRUE(b->event_create(true, &e1).ok());
    ASSERT_TRUE(b->event_record(e0, s).ok());
    ASSERT_TRUE(b->launch_spin(s, 30'000'000).ok());
    ASSERT_TRUE(b->event_record(e1, s).ok());
    float ms = 0;
    EXPECT_EQ(b->event_elapsed_ms(e0, e1, &ms).name, "simErrorNotReady");
    ASSERT_TRUE(b->event_synchronize(e1).ok());
    bool done = false;
    ASSERT_TRUE(b->stream_query(s, &done).ok());
    EXPECT_TRUE(done);  // the record was the last thing queued
    ASSERT_TRUE(b->event_elapsed_ms(e0, e1, &ms).ok());
    EXPECT_GE(ms, 29.0);
    EXPECT_LT(ms, 45.0);
}

TEST(SimEvent, ElapsedTimeNeedsTimingEventsThatWereRecorded) {
    auto b = make_sim();
    ASSERT_NE(b, nullptr);
    EventHandle timed = 0;
    EventHandle untimed = 0;
    ASSERT_TRUE(b->event_create(true, &timed).ok());
    ASSERT_TRUE(b->event_create(false, &untimed).ok());
    float ms = 0;
    EXPECT_EQ(b->event_elapsed_ms(timed, timed, &ms).name, "simErrorInvalidResourceHandle");
    ASSERT_TRUE(b->event_record(timed, 0).ok());
    ASSERT_TRUE(b->event_record(untimed, 0).ok());
    ASSERT_TRUE(b->event_synchronize(untimed).ok());
    EXPECT_EQ(b->event_elapsed_ms(timed, untimed, &ms).name, "simErrorInvalidResourceHandle");
}

// Fills a buffer behind a spin on stream `a`; stream `b` verifies it, waiting on an event or not.
unsigned long long mismatches_seen_by_second_stream(Backend& be, bool wait) {
    constexpr std::size_t k_words = 1 << 12;
    SimBuffer dev(be, SimBuffer::Kind::Device, k_words * 4);
    const StreamHandle a = make_stream(be, StreamKind::NonBlocking);
    const StreamHandle b = make_stream(be, StreamKind::NonBlocking);
    EventHandle ev = 0;
    EXPECT_TRUE(be.event_create(false, &ev).ok());
    EXPECT_TRUE(be.launch_fill(a, dev.words(), k_words, 1).ok());
    EXPECT_TRUE(be.stream_synchronize(a).ok());
    EXPECT_TRUE(be.launch_spin(a, 30'000'000).ok());
    EXPECT_TRUE(be.launch_fill(a, dev.words(), k_words, 7).ok());
    EXPECT_TRUE(be.event_record(ev, a).ok());
    if (wait) {
        EXPECT_TRUE(be.stream_wait_event(b, ev).ok());
    }
    return device_mismatches(be, dev.words(), k_words, 7, b);
}

TEST(SimEvent, StreamWaitEventOrdersWorkAcrossStreams) {
    auto b = make_sim();
    ASSERT_NE(b, nullptr);
    EXPECT_EQ(mismatches_seen_by_second_stream(*b, true), 0u);
    EXPECT_GT(mismatches_seen_by_second_stream(*b, false), 0u);  // the race is real without it
}

TEST(SimStream, DestroyedStreamStillRunsItsQueuedWork) {
    auto b = make_sim();
    ASSERT_NE(b, nullptr);
    constexpr std::size_t k_words = 256;
    SimBuffer dev(*b, SimBuffer::Kind::Device, k_words * 4);
    const StreamHandle s = make_stream(*b);
    ASSERT_TRUE(b->launch_spin(s, 10'000'000).ok());
    ASSERT_TRUE(b->launch_fill(s, dev.words(), k_words, 3).ok());
    ASSERT_TRUE(b->stream_destroy(s).ok());
    bool done = false;
    EXPECT_EQ(b->stream_query(s, &done).name, "simErrorInvalidResourceHandle");
    ASSERT_TRUE(b->device_synchronize().ok());
    EXPECT_EQ(host_mismatches(dev.words(), k_words, 3), 0u);
}

// A release ends the releasable spins queued before it, running or not yet started, at once;
// an ordinary spin, and a releasable one queued after the release, take their whole time. Read by
// events (the modelled timeline), so a loaded host changes nothing.
TEST(SimStream, AReleaseEndsOnlyTheReleasableSpinsQueuedBeforeIt) {
    auto b = make_sim();
    ASSERT_NE(b, nullptr);
    const StreamHandle gated = make_stream(*b, StreamKind::NonBlocking);
    const StreamHandle plain = make_stream(*b, StreamKind::NonBlocking);
    EventHandle e[6] = {};
    for (EventHandle& ev : e) {
        ASSERT_TRUE(b->event_create(true, &ev).ok());
    }
    constexpr std::uint64_t k_minute_ns = 60'000'000'000;  // only a release ends it within the test
    constexpr std::uint64_t k_plain_ns = 100'000'000;
    ASSERT_TRUE(b->event_record(e[0], gated).ok());
    ASSERT_TRUE(b->launch_releasable_spin(gated, k_minute_ns).ok());
    ASSERT_TRUE(b->launch_releasable_spin(gated, k_minute_ns).ok());  // still queued at the release
    ASSERT_TRUE(b->event_record(e[1], gated).ok());
    ASSERT_TRUE(b->event_record(e[2], plain).ok());
    ASSERT_TRUE(b->launch_spin(plain, k_plain_ns).ok());
    ASSERT_TRUE(b->event_record(e[3], plain).ok());
    ASSERT_TRUE(b->release_spins().ok());
    ASSERT_TRUE(b->event_record(e[4], gated).ok());
    ASSERT_TRUE(b->launch_releasable_spin(gated, k_plain_ns).ok());  // queued after the release
    ASSERT_TRUE(b->event_record(e[5], gated).ok());
    ASSERT_TRUE(b->device_synchronize().ok());
    float released = 0, ordinary = 0, later = 0;
    ASSERT_TRUE(b->event_elapsed_ms(e[0], e[1], &released).ok());
    ASSERT_TRUE(b->event_elapsed_ms(e[2], e[3], &ordinary).ok());
    ASSERT_TRUE(b->event_elapsed_ms(e[4], e[5], &later).ok());
    EXPECT_LT(released, 60'000.0F);  // both minute-long spins ended at the release
    EXPECT_GE(ordinary, 99.0F);
    EXPECT_GE(later, 99.0F);
    for (EventHandle ev : e) {
        EXPECT_TRUE(b->event_destroy(ev).ok());
    }
}

TEST(SimStream, UnknownHandlesAreErrorsNotCrashes) {
    auto b = make_sim();
    ASSERT_NE(b, nullptr);
    bool done = false;
    float ms = 0;
    EXPECT_EQ(b->stream_query(0xdead, &done).name, "simErrorInvalidResourceHandle");
    EXPECT_EQ(b->stream_synchronize(0xdead).name, "simErrorInvalidResourceHandle");
    EXPECT_EQ(b->stream_destroy(k_legacy_stream).name, "simErrorInvalidResourceHandle");
    EXPECT_EQ(b->launch_spin(0xdead, 1).name, "simErrorInvalidResourceHandle");
    EXPECT_EQ(b->event_record(0xbeef, 0).name, "simErrorInvalidResourceHandle");
    EXPECT_EQ(b->event_synchronize(0xbeef).name, "simErrorInvalidResourceHandle");
    EXPECT_EQ(b->event_elapsed_ms(0xbeef, 0xbeef, &ms).name, "simErrorInvalidResourceHandle");
    EXPECT_EQ(b->stream_wait_event(0, 0xbeef).name, "simErrorInvalidResourceHandle");
    EXPECT_EQ(b->device_free(reinterpret_cast<void*>(0x1234)).name, "simErrorInvalidValue");
    EXPECT_EQ(b->host_free_pinned(reinterpret_cast<void*>(0x1234)).name, "simErrorInvalidValue");
}

}  // namespace
}  // namespace gpuconform::sim_test
