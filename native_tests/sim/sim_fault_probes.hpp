// One probe per fault knob: each runs a small experiment on a fresh backend and says whether
// it saw the faulty behaviour. The probes are written to be unaffected by the other knobs
// (two host threads where a blocking call would otherwise hide concurrency), so a table can
// show that each knob changes its own behaviour and no other.
#pragma once

#include <thread>
#include <vector>

#include "sim_fixture.hpp"

namespace gpuconform::sim_test {

// Long enough that a loaded CI host (tests two at a time on two cores) cannot stall a thread for
// the margins below (half a spin and more).
constexpr std::uint64_t k_probe_spin_ns = 40'000'000;

// A pinned copy queued behind a spin takes as long as the spin to return.
inline bool probe_pinned_copy_blocks(Backend& b) {
    SimBuffer host(b, SimBuffer::Kind::Pinned, 4096);
    SimBuffer dev(b, SimBuffer::Kind::Device, 4096);
    const StreamHandle s = make_stream(b);
    EXPECT_TRUE(b.launch_spin(s, k_probe_spin_ns).ok());
    const auto start = Clock::now();
    EXPECT_TRUE(b.memcpy_async(dev.get(), host.get(), 4096, CopyKind::HostToDevice, s).ok());
    return ms_since(start) > 25.0;
}

inline bool probe_launch_blocks(Backend& b) {
    const auto start = Clock::now();
    EXPECT_TRUE(b.launch_spin(make_stream(b), k_probe_spin_ns).ok());
    const bool blocked = ms_since(start) > 25.0;
    EXPECT_TRUE(b.device_synchronize().ok());
    return blocked;
}

// A pageable D2H behind a spin and a fill returns before the filled data is in the host buffer.
inline bool probe_pageable_d2h_early(Backend& b) {
    constexpr std::size_t k_words = 1024;
    SimBuffer dev(b, SimBuffer::Kind::Device, k_words * 4);
    std::vector<std::uint32_t> host(k_words, 0u);
    const StreamHandle s = make_stream(b);
    EXPECT_TRUE(b.launch_spin(s, k_probe_spin_ns).ok());
    EXPECT_TRUE(b.launch_fill(s, dev.words(), k_words, 11).ok());
    EXPECT_TRUE(b.memcpy_async(host.data(), dev.get(), k_words * 4, CopyKind::DeviceToHost, s).ok());
    const bool early = host_mismatches(host.data(), k_words, 11) > 0;
    EXPECT_TRUE(b.stream_synchronize(s).ok());  // the late copy must land before `host` goes
    return early;
}

// A tiny kernel on the legacy stream finishes without waiting for a blocking stream's spin.
inline bool probe_default_stream_no_sync(Backend& b) {
    const auto start = Clock::now();
    EXPECT_TRUE(b.launch_spin(make_stream(b), k_probe_spin_ns).ok());
    EXPECT_TRUE(b.launch_spin(k_legacy_stream, 1000).ok());
    EXPECT_TRUE(b.stream_synchronize(k_legacy_stream).ok());
    const bool unsynchronized = ms_since(start) < 30.0;
    EXPECT_TRUE(b.device_synchronize().ok());
    return unsynchronized;
}

// Events around a spin measure (almost) nothing.
inline bool probe_events_ignored(Backend& b) {
    const StreamHandle s = make_stream(b);
    EventHandle e0 = 0;
    EventHandle e1 = 0;
    EXPECT_TRUE(b.event_create(true, &e0).ok());
    EXPECT_TRUE(b.event_create(true, &e1).ok());
    EXPECT_TRUE(b.event_record(e0, s).ok());
    EXPECT_TRUE(b.launch_spin(s, k_probe_spin_ns).ok());
    EXPECT_TRUE(b.event_record(e1, s).ok());
    EXPECT_TRUE(b.stream_synchronize(s).ok());
    float ms = 0;
    EXPECT_TRUE(b.event_elapsed_ms(e0, e1, &ms).ok());
    return ms < 20.0f;
}

// Runs `work(stream)` from two host threads at once; the wall time of both.
template <typename Work>
double two_threads_ms(Backend& b, Work work) {
    const StreamHandle s1 = make_stream(b, StreamKind::NonBlocking);
    const StreamHandle s2 = make_stream(b, StreamKind::NonBlocking);
    const auto start = Clock::now();
    std::thread t1([&] { work(0, s1); });
    std::thread t2([&] { work(1, s2); });
    t1.join();
    t2.join();
    return ms_since(start);
}

// An H2D and a D2H copy on two streams take twice as long as one (17 ms each at
// pinned_gbps=0.25: small copies, so the real memcpy is a small part of it).
inline bool probe_one_copy_engine(Backend& b) {
    constexpr std::size_t k_bytes = 4 << 20;
    SimBuffer host_a(b, SimBuffer::Kind::Pinned, k_bytes);
    SimBuffer host_b(b, SimBuffer::Kind::Pinned, k_bytes);
    SimBuffer dev_a(b, SimBuffer::Kind::Device, k_bytes);
    SimBuffer dev_b(b, SimBuffer::Kind::Device, k_bytes);
    auto copy = [&](int which, StreamHandle s) {
        EXPECT_TRUE(which == 0 ? b.memcpy_async(dev_a.get(), host_a.get(), k_bytes, CopyKind::HostToDevice, s).ok()
                               : b.memcpy_async(host_b.get(), dev_b.get(), k_bytes, CopyKind::DeviceToHost, s).ok());
        EXPECT_TRUE(b.stream_synchronize(s).ok());
    };
    const auto start = Clock::now();
    copy(0, k_legacy_stream);
    const double one = ms_since(start);
    return two_threads_ms(b, copy) > 1.5 * one;
}

// Two spins on two streams take twice as long as one.
inline bool probe_no_overlap(Backend& b) {
    const double both = two_threads_ms(b, [&](int, StreamHandle s) {
        EXPECT_TRUE(b.launch_spin(s, k_probe_spin_ns).ok());
        EXPECT_TRUE(b.stream_synchronize(s).ok());
    });
    return both > 60.0;
}

// A 2 MiB pinned copy takes ~8 ms at 0.25 GB/s, ~67 ms on a slow link (needs pinned_gbps=0.25).
inline bool probe_slow_link(Backend& b) {
    constexpr std::size_t k_bytes = 2 << 20;
    SimBuffer host(b, SimBuffer::Kind::Pinned, k_bytes);
    SimBuffer dev(b, SimBuffer::Kind::Device, k_bytes);
    const auto start = Clock::now();
    EXPECT_TRUE(b.memcpy_async(dev.get(), host.get(), k_bytes, CopyKind::HostToDevice, k_legacy_stream).ok());
    EXPECT_TRUE(b.stream_synchronize(k_legacy_stream).ok());
    return ms_since(start) > 30.0;
}

// One 2 MiB pinned copy takes ~8 ms at 0.25 GB/s (needs pinned_gbps=0.25), and eight queued back
// to back eight times that. On a shared link the one that starts on an idle link runs at an eighth
// of the rate while the copies queued behind it keep the link: the eight take under four times one.
// Timed by events (the model's clock, which a loaded host does not stretch); the eight are queued
// behind a spin so that each is queued before the one ahead of it ends.
inline bool probe_link_shared(Backend& b) {
    constexpr std::size_t k_bytes = 2 << 20;
    SimBuffer host(b, SimBuffer::Kind::Pinned, k_bytes);
    SimBuffer dev(b, SimBuffer::Kind::Device, k_bytes);
    const StreamHandle s = make_stream(b);
    EventHandle e0 = 0;
    EventHandle e1 = 0;
    EXPECT_TRUE(b.event_create(true, &e0).ok());
    EXPECT_TRUE(b.event_create(true, &e1).ok());
    const auto copies_ms = [&](int count, bool behind_spin) {
        if (behind_spin) {
            EXPECT_TRUE(b.launch_spin(s, k_probe_spin_ns).ok());
        }
        EXPECT_TRUE(b.event_record(e0, s).ok());
        for (int i = 0; i < count; ++i) {
            EXPECT_TRUE(b.memcpy_async(dev.get(), host.get(), k_bytes, CopyKind::HostToDevice, s).ok());
        }
        EXPECT_TRUE(b.event_record(e1, s).ok());
        EXPECT_TRUE(b.stream_synchronize(s).ok());
        float ms = 0;
        EXPECT_TRUE(b.event_elapsed_ms(e0, e1, &ms).ok());
        return static_cast<double>(ms);
    };
    const double one = copies_ms(1, false);
    // Events that time nothing (events_ignored) are no evidence either way.
    return one > 1.0 && copies_ms(8, true) < 4 * one;
}

// A 1 ms spin is still running 300 ms later (asked every 5 ms, so a starved worker thread that
// finishes late is not taken for a hang). Allocates nothing: freeing would wait forever.
inline bool probe_hang(Backend& b) {
    const StreamHandle s = make_stream(b);
    EXPECT_TRUE(b.launch_spin(s, 1'000'000).ok());
    const auto start = Clock::now();
    bool done = false;
    while (!done && ms_since(start) < 300.0) {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
        EXPECT_TRUE(b.stream_query(s, &done).ok());
    }
    return !done;
}

// A releasable spin released while it runs still takes its whole length (read by events). A launch
// that returned only after its spin leaves nothing to release: not this knob's behaviour.
inline bool probe_releases_lost(Backend& b) {
    const StreamHandle s = make_stream(b, StreamKind::NonBlocking);
    EventHandle begin = 0;
    EventHandle end = 0;
    EXPECT_TRUE(b.event_create(true, &begin).ok());
    EXPECT_TRUE(b.event_create(true, &end).ok());
    EXPECT_TRUE(b.event_record(begin, s).ok());
    EXPECT_TRUE(b.launch_releasable_spin(s, 10 * k_probe_spin_ns).ok());
    bool done = true;
    EXPECT_TRUE(b.stream_query(s, &done).ok());
    EXPECT_TRUE(b.release_spins().ok());
    EXPECT_TRUE(b.event_record(end, s).ok());
    EXPECT_TRUE(b.stream_synchronize(s).ok());
    float ms = 0;
    EXPECT_TRUE(b.event_elapsed_ms(begin, end, &ms).ok());
    EXPECT_TRUE(b.event_destroy(begin).ok());
    EXPECT_TRUE(b.event_destroy(end).ok());
    return !done && ms >= 9 * k_probe_spin_ns / 1e6;
}

// After one kernel, unrelated calls fail.
inline bool probe_sticky_error(Backend& b) {
    const ApiResult launch = b.launch_spin(k_legacy_stream, 1000);
    const ApiResult sync = b.device_synchronize();
    StreamHandle s = 0;
    const ApiResult create = b.stream_create(StreamKind::NonBlocking, &s);
    return !launch.ok() || !sync.ok() || !create.ok();
}

}  // namespace gpuconform::sim_test
