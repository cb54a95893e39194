#include "core/touched_memory.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

namespace gpuconform {
namespace {

// mincore(2) says which pages of a mapping are in memory: every one, before anything wrote them.
TEST(TouchedMemory, EveryPageIsPresentBeforeTheFirstWrite) {
    const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
    const std::size_t bytes = 64 * page + 123;  // not a whole number of pages
    void* p = alloc_touched(bytes);
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p) % page, 0u);
    const std::size_t pages = (bytes + page - 1) / page;
    std::vector<unsigned char> resident(pages, 0);
    ASSERT_EQ(mincore(p, bytes, resident.data()), 0);
    std::size_t present = 0;
    for (const unsigned char r : resident) {
        present += (r & 1u) != 0 ? 1 : 0;
    }
    EXPECT_EQ(present, pages);
    static_cast<unsigned char*>(p)[bytes - 1] = 7;  // the last, partial page is writable
    free_touched(p, bytes);
}

TEST(TouchedMemory, ZeroBytesStillGivesAPage) {
    void* p = alloc_touched(0);
    ASSERT_NE(p, nullptr);
    free_touched(p, 0);
    free_touched(nullptr, 16);  // nothing to free: no crash
}

}  // namespace
}  // namespace gpuconform
