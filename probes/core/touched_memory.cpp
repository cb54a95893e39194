#include "core/touched_memory.hpp"

#include <sys/mman.h>

namespace gpuconform {

void* alloc_touched(std::size_t bytes) {
    void* p = mmap(nullptr, bytes == 0 ? 1 : bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE,
                   -1, 0);
    return p == MAP_FAILED ? nullptr : p;
}

void free_touched(void* p, std::size_t bytes) {
    if (p != nullptr) {
        munmap(p, bytes == 0 ? 1 : bytes);
    }
}

}  // namespace gpuconform
