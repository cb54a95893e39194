// Host and device buffers a worker keeps from one check to the next. Pinning is the slow part of
// a copy measurement: on an H200 host, HostAlloc pins at about 1.9 GB/s, so a fresh 256 MiB
// buffer costs 140 ms to pin and 40 ms to free, several times the copies it serves. Checks ask
// for a slot and a size; a slot grows when a larger size is asked for and is otherwise reused.
// Nothing is trusted across uses: every check fills what it copies with a fresh pattern.
// The one large pinned allocation a run makes anyway (async.copy.pinned_capacity's gigabyte) can be
// handed over whole: later pinned slots are parts of it, so the copy checks pin nothing more and
// the gigabyte is not freed (a quarter second on that host) in the middle of the run.
#pragma once

#include <cstddef>
#include <map>
#include <tuple>

#include "backend/backend.hpp"

namespace gpuconform {

enum class CachedKind { Pinned, Pageable, Device };

class BufferCache {
public:
    explicit BufferCache(Backend& backend) : m_backend(backend) {}
    ~BufferCache();
    BufferCache(const BufferCache&) = delete;
    BufferCache& operator=(const BufferCache&) = delete;

    // At least `bytes` of `kind` for `slot` (checks needing two of a kind use slots 0 and 1); device
    // memory is kept per device, the current one. Throws ApiError when the allocation fails.
    void* get(CachedKind kind, int device, int slot, std::size_t bytes);
    // Frees the host buffers: before a check that measures how much the host can pin.
    void release_host();
    // Takes ownership of one pinned allocation (HostAlloc'd, page-aligned) to serve pinned slots
    // from; false (nothing taken) above k_most_adopted, more than the copy checks use, which a run
    // should not hold to its end.
    static constexpr std::size_t k_most_adopted = std::size_t{1} << 30;
    bool adopt_pinned(void* ptr, std::size_t bytes);
    std::size_t held_bytes() const;

private:
    struct Block {
        void* ptr = nullptr;
        std::size_t bytes = 0;
        bool in_arena = false;  // a part of the adopted allocation: not freed on its own
    };
    void free_block(CachedKind kind, int device, Block& block);
    // A part of the adopted allocation for a pinned slot, or an empty block when none is left.
    Block from_arena(std::size_t bytes);

    Backend& m_backend;
    std::map<std::tuple<CachedKind, int, int>, Block> m_blocks;
    Block m_arena;
    std::size_t m_arena_used = 0;
};

}  // namespace gpuconform
