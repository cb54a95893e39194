// Copies on a conforming sim device: which calls return early, the data they move, their
// timing and which copies share an engine.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <utility>
#include <thread>
#include <vector>

#include "sim_fixture.hpp"

namespace gpuconform::sim_test {
namespace {

using Kind = SimBuffer::Kind;
constexpr std::uint64_t k_gate_ns = 50'000'000;  // a 50 ms spin queued ahead of the copy

// Queues a spin, then the copy; says whether the copy call came back before the spin ended.
bool returns_before_queue_drains(Backend& b, void* dst, const void* src, std::size_t bytes, CopyKind kind) {
    const StreamHandle s = make_stream(b);
    EXPECT_TRUE(b.launch_spin(s, k_gate_ns).ok());
    EXPECT_TRUE(b.memcpy_async(dst, src, bytes, kind, s).ok());
    bool done = true;
    EXPECT_TRUE(b.stream_query(s, &done).ok());
    EXPECT_TRUE(b.stream_synchronize(s).ok());
    return !done;
}

TEST(SimCopy, PinnedCopiesReturnWhileEarlierWorkIsQueued) {
    auto b = make_sim();
    ASSERT_NE(b, nullptr);
    constexpr std::size_t k_bytes = 1 << 16;
    SimBuffer host(*b, Kind::Pinned, k_bytes);
    SimBuffer dev(*b, Kind::Device, k_bytes);
    SimBuffer dev2(*b, Kind::Device, k_bytes);
    EXPECT_TRUE(returns_before_queue_drains(*b, dev.get(), host.get(), k_bytes, CopyKind::HostToDevice));
    EXPECT_TRUE(returns_before_queue_drains(*b, host.get(), dev.get(), k_bytes, CopyKind::DeviceToHost));
    EXPECT_TRUE(returns_before_queue_drains(*b, dev2.get(), dev.get(), k_bytes, CopyKind::DeviceToDevice));
}

TEST(SimCopy, RegisteredHostMemoryCountsAsPinned) {
    auto b = make_sim();
    ASSERT_NE(b, nullptr);
    std::vector<std::uint32_t> host(1 << 14);
    SimBuffer dev(*b, Kind::Device, host.size() * 4);
    ASSERT_TRUE(b->host_register(host.data(), host.size() * 4).ok());
    EXPECT_TRUE(returns_before_queue_drains(*b, dev.get(), host.data(), host.size() * 4, CopyKind::HostToDevice));
    ASSERT_TRUE(b->host_unregister(host.data()).ok());
    EXPECT_EQ(b->host_unregister(host.data()).name, "simErrorHostMemoryNotRegistered");
}

TEST(SimCopy, SmallPageableH2DIsStagedAndReturnsEarly) {
    auto b = make_sim();
    ASSERT_NE(b, nullptr);
    constexpr std::size_t k_words = 1 << 16;  // 256 KiB: under the 1 MiB staging size
    std::vector<std::uint32_t> host(k_words);
    for (std::size_t i = 0; i < k_words; ++i) {
        host[i] = pattern_word(5, i);
    }
    SimBuffer dev(*b, Kind::Device, k_words * 4);
    const StreamHandle s = make_stream(*b);
    ASSERT_TRUE(b->launch_spin(s, k_gate_ns).ok());
    ASSERT_TRUE(b->memcpy_async(dev.get(), host.data(), k_words * 4, CopyKind::HostToDevice, s).ok());
    bool done = true;
    ASSERT_TRUE(b->stream_query(s, &done).ok());
    EXPECT_FALSE(done);
    std::fill(host.begin(), host.end(), 0u);  // staged: overwriting the source now is safe
    EXPECT_EQ(device_mismatches(*b, dev.words(), k_words, 5, s), 0u);
}

TEST(SimCopy, LargePageableH2DWaitsForTheQueue) {
    auto b = make_sim();
    ASSERT_NE(b, nullptr);
    constexpr std::size_t k_bytes = 4 << 20;
    std::vector<std::uint32_t> host(k_bytes / 4, 1u);
    SimBuffer dev(*b, Kind::Device, k_bytes);
    EXPECT_FALSE(returns_before_queue_drains(*b, dev.get(), host.data(), k_bytes, CopyKind::HostToDevice));
}

TEST(SimCopy, PageableD2HReturnsWithTheDataInPlace) {
    auto b = make_sim();
    ASSERT_NE(b, nullptr);
    constexpr std::size_t k_words = 1 << 12;
    SimBuffer dev(*b, Kind::Device, k_words * 4);
    std::vector<std::uint32_t> host(k_words, 0u);
    const StreamHandle s = make_stream(*b);
    ASSERT_TRUE(b->launch_spin(s, 20'000'000).ok());
    ASSERT_TRUE(b->launch_fill(s, dev.words(), k_words, 9).ok());
    ASSERT_TRUE(b->memcpy_async(host.data(), dev.get(), k_words * 4, CopyKind::DeviceToHost, s).ok());
    EXPECT_EQ(host_mismatches(host.data(), k_words, 9), 0u);  // no synchronize needed
}

TEST(SimCopy, DataSurvivesARoundTripThroughEveryCopyKind) {
    auto b = make_sim();
    ASSERT_NE(b, nullptr);
    constexpr std::size_t k_words = 1 << 18;
    SimBuffer src(*b, Kind::Pinned, k_words * 4);
    SimBuffer dst(*b, Kind::Pinned, k_words * 4);
    SimBuffer dev_a(*b, Kind::Device, k_words * 4);
    SimBuffer dev_b(*b, Kind::Device, k_words * 4);
    for (std::size_t i = 0; i < k_words; ++i) {
        src.words()[i] = pattern_word(42, i);
    }
    const StreamHandle s = make_stream(*b);
    ASSERT_TRUE(b->memcpy_async(dev_a.get(), src.get(), k_words * 4, CopyKind::HostToDevice, s).ok());
    ASSERT_TRUE(b->memcpy_async(dev_b.get(), dev_a.get(), k_words * 4, CopyKind::DeviceToDevice, s).ok());
    ASSERT_TRUE(b->memcpy_async(dst.get(), dev_b.get(), k_words * 4, CopyKind::DeviceToHost, s).ok());
    EXPECT_EQ(device_mismatches(*b, dev_b.words(), k_words, 42, s), 0u);
    EXPECT_EQ(host_mismatches(dst.words(), k_words, 42), 0u);
    EXPECT_EQ(device_mismatches(*b, dev_b.words(), k_words, 43, s), k_words);  // verify can fail
}

TEST(SimCopy, CopyTakesBytesOverBandwidth) {
    auto b = make_sim("pinned_gbps=0.25");
    ASSERT_NE(b, nullptr);
    constexpr std::size_t k_bytes = 4 << 20;  // 16.8 ms at 0.25 GB/s
    SimBuffer host(*b, Kind::Pinned, k_bytes);
    SimBuffer dev(*b, Kind::Device, k_bytes);
    EventHandle before = 0;
    EventHandle after = 0;
    ASSERT_TRUE(b->event_create(true, &before).ok());
    ASSERT_TRUE(b->event_create(true, &after).ok());
    const auto start = Clock::now();
    // Behind a 60 ms spin, the copy starts when the spin ends however late a busy host issues it.
    ASSERT_TRUE(b->launch_spin(k_legacy_stream, 60'000'000).ok());
    ASSERT_TRUE(b->event_record(before, k_legacy_stream).ok());
    ASSERT_TRUE(b->memcpy_async(dev.get(), host.get(), k_bytes, CopyKind::HostToDevice, k_legacy_stream).ok());
    ASSERT_TRUE(b->event_record(after, k_legacy_stream).ok());
    ASSERT_TRUE(b->stream_synchronize(k_legacy_stream).ok());
    EXPECT_GE(ms_since(start), 76.0);  // the host waited for both
    float modelled = 0;                // and the device took bytes over bandwidth, no more
    ASSERT_TRUE(b->event_elapsed_ms(before, after, &modelled).ok());
    EXPECT_NEAR(modelled, 16.8f, 1.0f);
}

// Two 4 MiB copies at 0.25 GB/s (16.8 ms each) on two non-blocking streams; the wall time of both.
double two_copies_ms(Backend& b, CopyKind first, CopyKind second) {
    constexpr std::size_t k_bytes = 4 << 20;
    SimBuffer host_a(b, Kind::Pinned, k_bytes);
    SimBuffer host_b(b, Kind::Pinned, k_bytes);
    SimBuffer dev_a(b, Kind::Device, k_bytes);
    SimBuffer dev_b(b, Kind::Device, k_bytes);
    const StreamHandle s1 = make_stream(b, StreamKind::NonBlocking);
    const StreamHandle s2 = make_stream(b, StreamKind::NonBlocking);
    auto issue = [&](CopyKind kind, void* host, void* dev, StreamHandle s) {
        void* dst = kind == CopyKind::HostToDevice ? dev : host;
        void* src = kind == CopyKind::HostToDevice ? host : dev;
        EXPECT_TRUE(b.memcpy_async(dst, src, k_bytes, kind, s).ok());
    };
    const auto start = Clock::now();
    issue(first, host_a.get(), dev_a.get(), s1);
    issue(second, host_b.get(), dev_b.get(), s2);
    EXPECT_TRUE(b.stream_synchronize(s1).ok());
    EXPECT_TRUE(b.stream_synchronize(s2).ok());
    return ms_since(start);
}

// Both copies start behind one event; each one's end, as events read it, in ms after the start.
std::pair<float, float> event_timed_pair(Backend& b, CopyKind first, CopyKind second, std::size_t bytes) {
    SimBuffer host_a(b, Kind::Pinned, bytes);
    SimBuffer host_b(b, Kind::Pinned, bytes);
    SimBuffer dev_a(b, Kind::Device, bytes);
    SimBuffer dev_b(b, Kind::Device, bytes);
    const StreamHandle s1 = make_stream(b, StreamKind::NonBlocking);
    const StreamHandle s2 = make_stream(b, StreamKind::NonBlocking);
    EventHandle start = 0;
    EventHandle end1 = 0;
    EventHandle end2 = 0;
    for (EventHandle* e : {&start, &end1, &end2}) {
        EXPECT_TRUE(b.event_create(true, e).ok());
    }
    // Both copies queue up behind a 60 ms spin, so they start together however late a busy host
    // issues them.
    EXPECT_TRUE(b.launch_spin(s1, 60'000'000).ok());
    EXPECT_TRUE(b.event_record(start, s1).ok());
    EXPECT_TRUE(b.stream_wait_event(s2, start).ok());
    auto issue = [&](CopyKind kind, void* host, void* dev, StreamHandle s, EventHandle end) {
        const bool h2d = kind == CopyKind::HostToDevice;
        EXPECT_TRUE(b.memcpy_async(h2d ? dev : host, h2d ? host : dev, bytes, kind, s).ok());
        EXPECT_TRUE(b.event_record(end, s).ok());
    };
    issue(first, host_a.get(), dev_a.get(), s1, end1);
    issue(second, host_b.get(), dev_b.get(), s2, end2);
    EXPECT_TRUE(b.device_synchronize().ok());
    float t1 = 0;
    float t2 = 0;
    EXPECT_TRUE(b.event_elapsed_ms(start, end1, &t1).ok());
    EXPECT_TRUE(b.event_elapsed_ms(start, end2, &t2).ok());
    return {t1, t2};
}

// The host waits for both same-direction copies in turn (its clock: waiting is never shorter on a
// busy machine); that opposite directions overlap is read on the modelled timeline.
TEST(SimCopy, SameDirectionCopiesSerializeOppositeDirectionsOverlap) {
    auto b = make_sim("pinned_gbps=0.25");
    ASSERT_NE(b, nullptr);
    EXPECT_GE(two_copies_ms(*b, CopyKind::HostToDevice, CopyKind::HostToDevice), 32.0);
    const auto [h2d, d2h] = event_timed_pair(*b, CopyKind::HostToDevice, CopyKind::DeviceToHost, 4 << 20);
    EXPECT_LT(std::max(h2d, d2h), 28.0f);  // one copy is 16.8 ms; in turn they would end at 33.6
}

// At the default 24 GB/s a 32 MiB copy is modelled as 1.4 ms, faster than a busy host's memcpy;
// events still read the modelled times, so overlap checks hold on a slow, busy machine.
TEST(SimCopy, EventsReadTheModelledTimelineEvenWhenMemcpyIsSlower) {
    auto b = make_sim();
    ASSERT_NE(b, nullptr);
    constexpr std::size_t k_bytes = 32 << 20;
    constexpr float k_one = 32.0f * 1048576.0f / 24e6f;  // ms
    const auto [h2d, d2h] = event_timed_pair(*b, CopyKind::HostToDevice, CopyKind::DeviceToHost, k_bytes);
    EXPECT_NEAR(h2d, k_one, 0.2f);
    EXPECT_NEAR(d2h, k_one, 0.2f);
    const auto [first, second] = event_timed_pair(*b, CopyKind::HostToDevice, CopyKind::HostToDevice, k_bytes);
    EXPECT_NEAR(std::min(first, second), k_one, 0.2f);
    EXPECT_NEAR(std::max(first, second), 2 * k_one, 0.2f);
}

TEST(SimCopy, CopyOverlapsAKernelOnAnotherStream) {
    auto b = make_sim("pinned_gbps=0.25");
    ASSERT_NE(b, nullptr);
    constexpr std::size_t k_bytes = 4 << 20;
    SimBuffer host(*b, Kind::Pinned, k_bytes);
    SimBuffer dev(*b, Kind::Device, k_bytes);
    const StreamHandle s1 = make_stream(*b, StreamKind::NonBlocking);
    const StreamHandle s2 = make_stream(*b, StreamKind::NonBlocking);
    EventHandle start = 0;
    EventHandle spin_done = 0;
    EventHandle copy_done = 0;
    for (EventHandle* e : {&start, &spin_done, &copy_done}) {
        ASSERT_TRUE(b->event_create(true, e).ok());
    }
    ASSERT_TRUE(b->launch_spin(s1, 60'000'000).ok());  // a gate: both start at its end
    ASSERT_TRUE(b->event_record(start, s1).ok());
    ASSERT_TRUE(b->stream_wait_event(s2, start).ok());
    ASSERT_TRUE(b->launch_spin(s1, 17'000'000).ok());
    ASSERT_TRUE(b->event_record(spin_done, s1).ok());
    ASSERT_TRUE(b->memcpy_async(dev.get(), host.get(), k_bytes, CopyKind::HostToDevice, s2).ok());
    ASSERT_TRUE(b->event_record(copy_done, s2).ok());
    ASSERT_TRUE(b->device_synchronize().ok());
    float spin_ms = 0;
    float copy_ms = 0;
    ASSERT_TRUE(b->event_elapsed_ms(start, spin_done, &spin_ms).ok());
    ASSERT_TRUE(b->event_elapsed_ms(start, copy_done, &copy_ms).ok());
    EXPECT_GE(spin_ms, 16.5f);
    EXPECT_LT(copy_ms, 28.0f);  // 16.8 ms beside the spin; after it, it would end at 33.8
}

TEST(SimCopy, PointersThatDoNotMatchTheKindAreRejected) {
    auto b = make_sim();
    ASSERT_NE(b, nullptr);
    SimBuffer dev(*b, Kind::Device, 64);
    std::vector<char> host(64);
    EXPECT_EQ(b->memcpy_async(host.data(), host.data(), 64, CopyKind::HostToDevice, 0).name, "simErrorInvalidValue");
    EXPECT_EQ(b->memcpy_async(dev.get(), host.data(), 128, CopyKind::HostToDevice, 0).name, "simErrorInvalidValue");
    EXPECT_EQ(b->memcpy_async(dev.get(), host.data(), 64, CopyKind::DeviceToHost, 0).name, "simErrorInvalidValue");
    EXPECT_EQ(b->last_error().name, "simErrorInvalidValue");
    EXPECT_TRUE(b->last_error().ok());  // cleared once read
}

}  // namespace
}  // namespace gpuconform::sim_test
