#include "async/kernel_numa.hpp"

#include <linux/mempolicy.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>

namespace gpuconform::async {

namespace {

constexpr int k_max_nodes = 1024;  // the node mask below holds this many

// The node holding the page at `p` (move_pages with no target nodes only reports), or -1.
int page_node(void* p) {
    void* pages[1] = {p};
    int status[1] = {-1};
    return syscall(SYS_move_pages, 0, 1, pages, nullptr, status, 0) == 0 ? status[0] : -1;
}

}  // namespace

std::optional<int> KernelNuma::device_node(int /*device*/, std::string* why) {
    for (const auto& g : m_env.pci_gpus) {
        if (g.bdf == m_bus_id && g.numa_node) {
            return *g.numa_node;
        }
    }
    *why = fmt::format(
        "the NUMA node of GPU {} is unknown (sysfs numa_node is -1 or the device was not "
        "found on the PCI bus)",
        m_bus_id.empty() ? "?" : m_bus_id);
    return std::nullopt;
}

std::optional<int> KernelNuma::other_node(int node, std::string* why) {
    for (int n = 0; n < k_max_nodes; ++n) {
        if (n != node && std::filesystem::exists(fmt::format("/sys/devices/system/node/node{}", n))) {
            return n;
        }
    }
    *why = "no second NUMA node found under /sys/devices/system/node";
    return std::nullopt;
}

void* KernelNuma::alloc_on_node(std::size_t bytes, int node, std::string* why) {
    if (node < 0 || node >= k_max_nodes) {
        *why = fmt::format("NUMA node {} is outside the {} nodes this check can bind", node, k_max_nodes);
        return nullptr;
    }
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        *why = fmt::format("mmap of {} bytes failed: {}", bytes, std::strerror(errno));
        return nullptr;
    }
    unsigned long mask[k_max_nodes / 64] = {};
    mask[node / 64] = 1ul << (node % 64);
    if (syscall(SYS_mbind, p, bytes, MPOL_BIND, mask, k_max_nodes, MPOL_MF_STRICT | MPOL_MF_MOVE) != 0) {
        *why = fmt::format("cannot bind host memory to NUMA node {}: {}", node, std::strerror(errno));
        munmap(p, bytes);
        return nullptr;
    }
    std::memset(p, 0, bytes);  // the pages exist from here, on the bound node
    if (const int seen = page_node(static_cast<char*>(p) + bytes / 2); seen != node) {
        *why = fmt::format("memory bound to NUMA node {} landed on node {}: no comparison", node, seen);
        munmap(p, bytes);
        return nullptr;
    }
    return p;
}

void KernelNuma::free_on_node(void* p, std::size_t bytes) { munmap(p, bytes); }

}  // namespace gpuconform::async
