// HostNuma answered by the host's kernel: nodes from sysfs, the GPU's node from its PCI
// function's numa_node (collected into the environment), memory placed with mbind (no libnuma)
// and where its pages landed read back with move_pages.
#pragma once

#include "backend/host_numa.hpp"
#include "core/environment.hpp"

namespace gpuconform::async {

class KernelNuma final : public HostNuma {
public:
    // For the device at `pci_bus_id` ("0000:3b:00.0"), on the host `env` describes.
    KernelNuma(const Environment& env, std::string pci_bus_id) : m_env(env), m_bus_id(std::move(pci_bus_id)) {}

    int node_count() override { return m_env.numa_nodes; }
    std::optional<int> device_node(int device, std::string* why) override;
    std::optional<int> other_node(int node, std::string* why) override;
    void* alloc_on_node(std::size_t bytes, int node, std::string* why) override;
    void free_on_node(void* p, std::size_t bytes) override;

private:
    const Environment& m_env;
    std::string m_bus_id;
};

}  // namespace gpuconform::async
