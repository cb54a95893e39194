#include "core/buffer_cache.hpp"

#include <algorithm>
#include <new>

#include "core/check.hpp"
#include "core/touched_memory.hpp"

namespace gpuconform {

namespace {
constexpr std::size_t k_page = 4096;
// A slot served from the adopted allocation gets at least this much of it, so a slot that grows
// through the copy checks' sizes (64 KiB, 16 MiB, 256 MiB) stays in one part.
constexpr std::size_t k_arena_part = std::size_t{256} << 20;
}  // namespace

BufferCache::~BufferCache() {
    for (auto& [key, block] : m_blocks) {
        free_block(std::get<0>(key), std::get<1>(key), block);
    }
    if (m_arena.ptr != nullptr) {
        m_backend.host_free_pinned(m_arena.ptr);
    }
}

bool BufferCache::adopt_pinned(void* ptr, std::size_t bytes) {
    if (bytes > k_most_adopted) {
        return false;
    }
    release_host();  // the slots it would replace, and any earlier adopted allocation
    m_arena = {ptr, bytes, false};
    m_arena_used = 0;
    return true;
}

BufferCache::Block BufferCache::from_arena(std::size_t bytes) {
    const std::size_t left = m_arena.bytes - m_arena_used;
    if (m_arena.ptr == nullptr || bytes > left) {
        return {};
    }
    const std::size_t part = std::min(left, std::max(bytes, k_arena_part));
    Block b{static_cast<char*>(m_arena.ptr) + m_arena_used, part, true};
    m_arena_used += part;
    return b;
}

void BufferCache::free_block(CachedKind kind, int device, Block& block) {
    if (block.ptr == nullptr) {
        return;
    }
    if (block.in_arena) {
        block = {};  // its part of the adopted allocation stays used until release_host
        return;
    }
    switch (kind) {
        case CachedKind::Pinned:
            m_backend.host_free_pinned(block.ptr);
            break;
        case CachedKind::Pageable:
            free_touched(block.ptr, block.bytes);
            break;
        case CachedKind::Device:
            m_backend.set_device(device);  // freed where it was allocated
            m_backend.device_free(block.ptr);
            break;
    }
    block = {};
}

void* BufferCache::get(CachedKind kind, int device, int slot, std::size_t bytes) {
    const int owner = kind == CachedKind::Device ? device : -1;
    Block& block = m_blocks[{kind, owner, slot}];
    if (block.ptr != nullptr && block.bytes >= bytes) {
        return block.ptr;
    }
    if (block.ptr != nullptr && kind == CachedKind::Device) {
        m_backend.device_free(block.ptr);  // the current device is the block's own
        block = {};
    } else {
        free_block(kind, owner, block);
    }
    const std::size_t rounded = (bytes + k_page - 1) / k_page * k_page;
    if (kind == CachedKind::Pinned) {
        if (Block part = from_arena(rounded); part.ptr != nullptr) {
            block = part;
            return block.ptr;
        }
    }
    void* p = nullptr;
    switch (kind) {
        case CachedKind::Pinned:
            GC_CHECK(m_backend.host_alloc_pinned(rounded, &p));
            break;
        case CachedKind::Pageable:
            p = alloc_touched(rounded);  // first-touch cost stays out of timings
            if (p == nullptr) {
                throw std::bad_alloc();
            }
            break;
        case CachedKind::Device:
            GC_CHECK(m_backend.device_alloc(rounded, &p));
            break;
    }
    block = {p, rounded, false};
    return p;
}

void BufferCache::release_host() {
    for (auto& [key, block] : m_blocks) {
        if (std::get<0>(key) != CachedKind::Device) {
            free_block(std::get<0>(key), std::get<1>(key), block);
        }
    }
    if (m_arena.ptr != nullptr) {
        m_backend.host_free_pinned(m_arena.ptr);
    }
    m_arena = {};
    m_arena_used = 0;
}

std::size_t BufferCache::held_bytes() const {
    std::size_t total = 0;
    for (const auto& [key, block] : m_blocks) {
        total += block.in_arena ? 0 : block.bytes;
    }
    return total + m_arena.bytes;
}

}  // namespace gpuconform
