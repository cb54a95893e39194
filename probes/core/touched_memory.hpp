// Pageable host memory whose pages all exist before it is used, so that no timed copy pays for a
// first touch. The pages are made by mmap(2)'s MAP_POPULATE in one call: touching 256 MiB page by
// page costs a fault per 4 KiB page, which on a VM took 10 to 15 times as long (0.45-0.8 s
// against 0.04-0.05 s). The memory is the kind malloc(3) gives a large request (private anonymous
// pages, transparent huge pages as the system's policy says), so copies from it measure what an
// application's pageable buffers get.
#pragma once

#include <cstddef>

namespace gpuconform {

// Page-aligned, `bytes` rounded up to whole pages; nullptr when the system refuses the mapping.
// Free with free_touched(p, bytes), the same bytes.
void* alloc_touched(std::size_t bytes);
void free_touched(void* p, std::size_t bytes);

}  // namespace gpuconform
