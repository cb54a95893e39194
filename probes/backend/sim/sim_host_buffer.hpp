// Host memory for the simulated device's allocations and staging buffers. Buffers of 2 MiB and
// more are 2 MiB aligned and asked for transparent huge pages (madvise(2), MADV_HUGEPAGE; Debian's
// default THP mode is "madvise"): touching 256 MiB in 4 KiB pages costs a page fault per page,
// which on a VM took about 12 times as long as in huge pages. Where THP is off, the advice does
// nothing and the buffer is an ordinary one.
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <cstdlib>

namespace gpuconform::sim {

constexpr std::size_t k_huge_page = std::size_t{2} << 20;

// Aligned to `min_align` (a power of two) at least; free with std::free. nullptr when out of memory.
inline void* allocate_host_buffer(std::size_t bytes, std::size_t min_align) {
    const std::size_t align = bytes >= k_huge_page ? k_huge_page : min_align;
    const std::size_t rounded = (bytes + align - 1) / align * align;
    void* p = std::aligned_alloc(align, rounded == 0 ? align : rounded);
    if (p != nullptr && align == k_huge_page) {
        ::madvise(p, rounded, MADV_HUGEPAGE);  // advice only: a refusal leaves 4 KiB pages
    }
    return p;
}

}  // namespace gpuconform::sim
