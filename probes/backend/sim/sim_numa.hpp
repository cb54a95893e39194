// The sim's host as two NUMA nodes, so a one-node machine still proves the NUMA check. Device K
// sits on node K % 2 (SimDevice::node); host memory placed on the other node crosses a modelled
// inter-socket link, so copies to or from it take k_remote_copy_factor times as long. With the
// fault numa_misreported a device reports the other node as its own, as a wrong sysfs numa_node
// (a BIOS SRAT, a VM hiding the topology) does: its "own" node is then the slow one.
#pragma once

#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "backend/host_numa.hpp"
#include "backend/sim/sim_options.hpp"

namespace gpuconform::sim {

constexpr int k_sim_numa_nodes = 2;
constexpr double k_remote_copy_factor = 2.0;

class SimNuma final : public HostNuma {
public:
    // The true node and the faults of each device, by index.
    struct DeviceSeat {
        int node;
        FaultSet faults;
    };
    explicit SimNuma(std::vector<DeviceSeat> seats) : m_seats(std::move(seats)) {}
    ~SimNuma() override {
        for (const auto& [base, range] : m_ranges) {
            std::free(reinterpret_cast<void*>(base));
        }
    }
    SimNuma(const SimNuma&) = delete;
    SimNuma& operator=(const SimNuma&) = delete;

    int node_count() override { return k_sim_numa_nodes; }

    std::optional<int> device_node(int device, std::string* why) override {
        if (device < 0 || device >= static_cast<int>(m_seats.size())) {
            *why = "no simulated device " + std::to_string(device);
            return std::nullopt;
        }
        const DeviceSeat& seat = m_seats[static_cast<std::size_t>(device)];
        return seat.faults.has(Fault::NumaMisreported) ? other(seat.node) : seat.node;
    }

    std::optional<int> other_node(int node, std::string* why) override {
        if (node < 0 || node >= k_sim_numa_nodes) {
            *why = "the simulated host has no node " + std::to_string(node);
            return std::nullopt;
        }
        return other(node);
    }

    void* alloc_on_node(std::size_t bytes, int node, std::string* why) override {
        if (node < 0 || node >= k_sim_numa_nodes || bytes == 0) {
            *why =
                "the simulated host cannot place " + std::to_string(bytes) + " bytes on node " + std::to_string(node);
            return nullptr;
        }
        constexpr std::size_t k_page = 4096;
        void* p = std::aligned_alloc(k_page, (bytes + k_page - 1) / k_page * k_page);
        if (p == nullptr) {
            *why = "out of host memory for the simulated node";
            return nullptr;
        }
        std::memset(p, 0, bytes);  // touched, as the kernel's placement is
        std::lock_guard lock(m_mutex);
        m_ranges[reinterpret_cast<std::uintptr_t>(p)] = Range{bytes, node};
        return p;
    }

    void free_on_node(void* p, std::size_t /*bytes*/) override {
        std::lock_guard lock(m_mutex);
        if (m_ranges.erase(reinterpret_cast<std::uintptr_t>(p)) != 0) {
            std::free(p);
        }
    }

    // How much longer a copy between `device` and the host memory at [p, p + bytes) takes: 1
    // unless that memory was placed on a node other than the device's true one.
    double copy_factor(int device, const void* p, std::size_t bytes) {
        if (device < 0 || device >= static_cast<int>(m_seats.size())) {
            return 1.0;
        }
        const auto at = reinterpret_cast<std::uintptr_t>(p);
        std::lock_guard lock(m_mutex);
        auto it = m_ranges.upper_bound(at);
        if (it == m_ranges.begin()) {
            return 1.0;
        }
        --it;
        const bool inside = at + bytes <= it->first + it->second.bytes;
        return inside && it->second.node != m_seats[static_cast<std::size_t>(device)].node ? k_remote_copy_factor : 1.0;
    }

private:
    struct Range {
        std::size_t bytes;
        int node;
    };
    static int other(int node) { return (node + 1) % k_sim_numa_nodes; }

    std::vector<DeviceSeat> m_seats;
    std::mutex m_mutex;
    std::map<std::uintptr_t, Range> m_ranges;  // base -> placed range
};

}  // namespace gpuconform::sim
