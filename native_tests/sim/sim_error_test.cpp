// Errors on a conforming sim device: launch errors at the call, faults that surface later and
// stick, like CUDA's.
#include <gtest/gtest.h>

#include <vector>

#include "sim_fixture.hpp"

namespace gpuconform::sim_test {
namespace {

TEST(SimError, InvalidLaunchFailsAtTheCallAndIsNotSticky) {
    auto b = make_sim();
    ASSERT_NE(b, nullptr);
    EXPECT_EQ(b->launch_invalid(0).name, "simErrorInvalidConfiguration");
    EXPECT_EQ(b->last_error().name, "simErrorInvalidConfiguration");
    EXPECT_TRUE(b->last_error().ok());
    EXPECT_TRUE(b->launch_spin(0, 1000).ok());
    EXPECT_TRUE(b->device_synchronize().ok());
}

TEST(SimError, FaultSurfacesAtSynchronizeAndSticks) {
    auto b = make_sim();
    ASSERT_NE(b, nullptr);
    const StreamHandle s = make_stream(*b);
    ASSERT_TRUE(b->launch_spin(s, 20'000'000).ok());
    EXPECT_TRUE(b->launch_fault(s).ok());  // deferred: the launch itself succeeds
    bool done = true;
    EXPECT_TRUE(b->stream_query(s, &done).ok());
    EXPECT_FALSE(done);
    EXPECT_EQ(b->stream_synchronize(s).name, "simErrorIllegalAddress");
    EXPECT_EQ(b->stream_query(s, &done).name, "simErrorIllegalAddress");
    EXPECT_EQ(b->last_error().name, "simErrorIllegalAddress");
    EXPECT_EQ(b->last_error().name, "simErrorIllegalAddress");  // sticky: not cleared
    StreamHandle other = 0;
    EXPECT_EQ(b->stream_create(StreamKind::NonBlocking, &other).name, "simErrorIllegalAddress");
    void* p = nullptr;
    EXPECT_EQ(b->device_alloc(64, &p).name, "simErrorIllegalAddress");
    EXPECT_EQ(b->launch_spin(0, 1).name, "simErrorIllegalAddress");
}

TEST(SimError, KernelOnPageableHostMemoryFaults) {
    auto b = make_sim();
    ASSERT_NE(b, nullptr);
    std::vector<std::uint32_t> pageable(64);
    EXPECT_TRUE(b->launch_fill(0, pageable.data(), pageable.size(), 1).ok());
    EXPECT_EQ(b->device_synchronize().name, "simErrorIllegalAddress");
    EXPECT_EQ(pageable[0], 0u);  // the faulting kernel wrote nothing
}

TEST(SimError, KernelOnPinnedHostMemoryWorks) {
    auto b = make_sim();
    ASSERT_NE(b, nullptr);
    constexpr std::size_t k_words = 64;
    SimBuffer pinned(*b, SimBuffer::Kind::Pinned, k_words * 4);
    ASSERT_TRUE(b->launch_fill(0, pinned.words(), k_words, 2).ok());
    ASSERT_TRUE(b->device_synchronize().ok());
    EXPECT_EQ(host_mismatches(pinned.words(), k_words, 2), 0u);
}

TEST(SimError, DeviceMemoryIsLimitedTo16GiB) {
    auto b = make_sim();
    ASSERT_NE(b, nullptr);
    void* p = nullptr;
    EXPECT_EQ(b->device_alloc((std::size_t{16} << 30) + 1, &p).name, "simErrorMemoryAllocation");
    EXPECT_EQ(p, nullptr);
}

}  // namespace
}  // namespace gpuconform::sim_test
