// Host memory placed by NUMA node, for the checks that compare nodes. On every real runtime the
// host's kernel answers (probes/async/kernel_numa.*: sysfs, mbind, move_pages); the sim module
// answers itself with a simulated two-node host, so a one-node machine still proves the check.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

namespace gpuconform {

class HostNuma {
public:
    virtual ~HostNuma() = default;

    virtual int node_count() = 0;
    // The node the host reports as `device`'s own; nullopt, with *why, when it reports none.
    virtual std::optional<int> device_node(int device, std::string* why) = 0;
    // A node other than `node`; nullopt, with *why, when there is none.
    virtual std::optional<int> other_node(int node, std::string* why) = 0;
    // `bytes` of host memory every page of which is on `node`, touched; nullptr, with *why, when
    // the host cannot place it there. Give it back with free_on_node.
    virtual void* alloc_on_node(std::size_t bytes, int node, std::string* why) = 0;
    virtual void free_on_node(void* p, std::size_t bytes) = 0;
};

}  // namespace gpuconform
