// The worker's buffer cache over the real sim module: slots are reused, grow when asked for more,
// are kept apart by kind, slot and device, a host release leaves device memory alone, and an
// adopted pinned allocation serves pinned slots until it runs out.
#include "core/buffer_cache.hpp"

#include <gtest/gtest.h>

#include <cstring>

#include "core/check.hpp"
#include "sim_fixture.hpp"

namespace gpuconform {
namespace {

TEST(BufferCache, ReusesASlotAndGrowsItWhenAskedForMore) {
    auto b = sim_test::make_sim();
    ASSERT_NE(b, nullptr);
    ASSERT_TRUE(b->set_device(0).ok());
    BufferCache cache(*b);
    void* small = cache.get(CachedKind::Pinned, 0, 0, 1 << 20);
    EXPECT_EQ(cache.get(CachedKind::Pinned, 0, 0, 4096), small);  // smaller: the same block
    EXPECT_EQ(cache.held_bytes(), std::size_t{1} << 20);
    void* large = cache.get(CachedKind::Pinned, 0, 0, 4 << 20);
    EXPECT_EQ(cache.held_bytes(), std::size_t{4} << 20);  // grown, not added
    std::memset(large, 0xab, 4 << 20);                    // the grown block is usable
    EXPECT_EQ(cache.get(CachedKind::Pinned, 0, 0, 1 << 20), large);
}

TEST(BufferCache, KindsSlotsAndDevicesAreSeparateBlocks) {
    auto b = sim_test::make_sim("devices=2");
    ASSERT_NE(b, nullptr);
    ASSERT_TRUE(b->set_device(0).ok());
    BufferCache cache(*b);
    void* pinned0 = cache.get(CachedKind::Pinned, 0, 0, 65536);
    void* pinned1 = cache.get(CachedKind::Pinned, 0, 1, 65536);
    void* pageable = cache.get(CachedKind::Pageable, 0, 0, 65536);
    void* dev0 = cache.get(CachedKind::Device, 0, 0, 65536);
    ASSERT_TRUE(b->set_device(1).ok());
    void* dev1 = cache.get(CachedKind::Device, 1, 0, 65536);
    EXPECT_EQ(cache.get(CachedKind::Pinned, 1, 0, 65536), pinned0);  // host memory is not per device
    for (void* p : {pinned1, pageable, dev0, dev1}) {
        EXPECT_NE(p, pinned0);
    }
    EXPECT_NE(dev0, dev1);
    EXPECT_EQ(cache.held_bytes(), std::size_t{5} * 65536);
    cache.release_host();
    EXPECT_EQ(cache.held_bytes(), std::size_t{2} * 65536);  // the two device blocks stay
}

TEST(BufferCache, AFailedAllocationIsAnApiErrorAndLeavesTheSlotEmpty) {
    auto b = sim_test::make_sim("fault=pinned_limit");
    ASSERT_NE(b, nullptr);
    ASSERT_TRUE(b->set_device(0).ok());
    BufferCache cache(*b);
    EXPECT_THROW(cache.get(CachedKind::Pinned, 0, 0, std::size_t{128} << 20), ApiError);
    EXPECT_EQ(cache.held_bytes(), 0u);
    EXPECT_NE(cache.get(CachedKind::Pinned, 0, 0, 4096), nullptr);  // a size the host allows still works
}

TEST(BufferCache, AnAdoptedPinnedAllocationServesPinnedSlotsUntilItRunsOut) {
    auto b = sim_test::make_sim();
    ASSERT_NE(b, nullptr);
    ASSERT_TRUE(b->set_device(0).ok());
    BufferCache cache(*b);
    void* before = cache.get(CachedKind::Pinned, 0, 0, 65536);
    ASSERT_NE(before, nullptr);
    void* arena = nullptr;
    constexpr std::size_t k_arena = std::size_t{8} << 20;
    ASSERT_TRUE(b->host_alloc_pinned(k_arena, &arena).ok());
    ASSERT_TRUE(cache.adopt_pinned(arena, k_arena));
    EXPECT_EQ(cache.held_bytes(), k_arena);  // the slot it replaces was freed
    void* slot0 = cache.get(CachedKind::Pinned, 0, 0, 1 << 20);
    EXPECT_EQ(slot0, arena);
    EXPECT_EQ(cache.get(CachedKind::Pinned, 0, 0, 4 << 20), slot0);  // grows inside its part
    std::memset(slot0, 0xab, 4 << 20);
    void* slot1 = cache.get(CachedKind::Pinned, 0, 1, 1 << 20);  // nothing left: its own allocation
    auto* a = static_cast<char*>(arena);
    auto* p1 = static_cast<char*>(slot1);
    EXPECT_TRUE(p1 + (1 << 20) <= a || p1 >= a + k_arena);
    EXPECT_EQ(cache.held_bytes(), k_arena + (std::size_t{1} << 20));
    void* pageable = cache.get(CachedKind::Pageable, 0, 0, 65536);  // only pinned slots use it
    auto* pp = static_cast<char*>(pageable);
    EXPECT_TRUE(pp + 65536 <= a || pp >= a + k_arena);
    cache.release_host();
    EXPECT_EQ(cache.held_bytes(), 0u);
    EXPECT_NE(cache.get(CachedKind::Pinned, 0, 0, 1 << 20), nullptr);  // pins on its own again
}

TEST(BufferCache, MoreThanTheCopyChecksUseIsNotAdopted) {
    auto b = sim_test::make_sim();
    ASSERT_NE(b, nullptr);
    BufferCache cache(*b);
    int stand_in = 0;  // never dereferenced: a refused allocation is not touched or freed
    EXPECT_FALSE(cache.adopt_pinned(&stand_in, BufferCache::k_most_adopted + 4096));
    EXPECT_EQ(cache.held_bytes(), 0u);
}

}  // namespace
}  // namespace gpuconform
