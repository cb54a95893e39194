// Who else is on each GPU: other processes, utilisation and memory in use, read from the vendor's
// management library (NVML, loaded at run time), AMD's sysfs, the holders of the device nodes
// (/proc/*/fd), or the simulated backend's co-tenant. Sampled in the parent while our own side
// is idle (between checks), so our own kernels are not mistaken for another user.
#pragma once

#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "occupancy/other_process.hpp"

namespace gpuconform {

// One reading of one GPU. Empty optionals mean "could not be read", never zero.
struct GpuOccupancy {
    std::string backend;  // "cuda", "hip", "sim"
    int device = -1;
    std::string pci_bus_id;
    std::vector<OtherProcess> others;
    std::optional<double> utilization_pct;
    std::optional<double> memory_used_bytes;
    // NVML listed one of our own processes: its process list works here, so a busy reading with
    // nobody else listed is our own last kernel. Unset: no list, or it lists nobody (a PID namespace).
    bool list_sees_us = false;
    // Read again once the utilisation period that may hold our own last kernel was over (our side
    // idle all the while): a busy reading then is nobody's tail of ours.
    bool settled = false;
    std::vector<std::string> sources;  // "nvml", "amdgpu-sysfs", "proc-fd", "sim-cotenant"
    std::string error;                 // why a source could not be read ("" when all could)
};

// Utilisation at or above this, while our side is idle, means another user is computing.
constexpr double k_busy_utilization_pct = 10.0;

// True when someone else is using the GPU in a way that disturbs timing. Where the process list
// works (it lists us), another listed process while utilisation is high (or unknown), or, in a
// settled reading, high utilisation with nobody else listed: a tenant the list cannot show (it
// runs in another PID namespace, which the driver filters out). Where the list is blind or absent,
// utilisation at or above k_busy_utilization_pct, or, with no utilisation either, any holder of
// the device. A process that only holds memory while utilisation stays low does not disturb timing.
bool disturbs_timing(const GpuOccupancy& o);

// Busy, nobody else listed, our own process listed, not yet settled: our own last kernel's tail
// or a tenant the list cannot show; only a settled reading tells them apart.
bool may_hide_tenant(const GpuOccupancy& o);

// "pid 1186 python3 held 874 MiB and 98% utilisation" (or "another tenant: 98% utilisation, 883
// MiB in use, no process visible" inside a PID namespace).
std::string describe_others(const GpuOccupancy& o);

// The report's `disturbance` object (shared contract).
nlohmann::json disturbance_json(const GpuOccupancy& o);
void to_json(nlohmann::json& j, const GpuOccupancy& o);

// One source of readings. Providers fill what they can into `o` and leave the rest.
class OccupancyProvider {
public:
    virtual ~OccupancyProvider() = default;
    virtual std::string name() const = 0;
    virtual bool handles(const std::string& backend) const = 0;
    virtual void read(GpuOccupancy& o, const std::set<int>& own_pids) const = 0;
};

std::unique_ptr<OccupancyProvider> make_nvml_provider();  // nvml_provider.cpp
std::unique_ptr<OccupancyProvider> make_amd_sysfs_provider(std::string root = "/");
std::unique_ptr<OccupancyProvider> make_device_node_provider(std::string root = "/");
// `hidden`: the co-tenant runs where the list cannot show it (another PID namespace): the list
// shows only our own worker, the utilisation is the co-tenant's.
std::unique_ptr<OccupancyProvider> make_sim_provider(std::string state_dir, bool hidden = false);

// This process and all its descendants (workers, the pytest child): never "other users".
std::set<int> own_process_tree(const std::string& root = "/");

// The device nodes a GPU is reached through: /dev/nvidia<minor> for NVIDIA (minor from
// /proc/driver/nvidia/gpus/<bdf>/information), /dev/dri/renderD* for AMD (from sysfs).
std::vector<std::string> device_nodes_of(const std::string& root, const std::string& backend, const std::string& bdf);

class OccupancySampler {
public:
    void add(std::unique_ptr<OccupancyProvider> p) { m_providers.push_back(std::move(p)); }
    // Default providers for a real run: NVML, AMD sysfs, device-node holders; plus the sim
    // co-tenant when `sim_state_dir` is set.
    static OccupancySampler standard(const std::string& sim_state_dir);
    // One reading; when utilisation reads busy with nobody listed, waits `settle_s` and reads
    // again, so the tail of our own last kernel does not count. Where the list shows only us,
    // that second reading is taken only when `look_behind_own` asks for it (a result that did not
    // pass, a GPU where an unlisted tenant was seen): it costs `settle_s` after each busy check.
    GpuOccupancy sample(const std::string& backend, int device, const std::string& pci_bus_id, double settle_s = 1.0,
                        bool look_behind_own = false) const;
    bool empty() const { return m_providers.empty(); }

private:
    GpuOccupancy read_once(const std::string& backend, int device, const std::string& pci_bus_id) const;
    std::vector<std::unique_ptr<OccupancyProvider>> m_providers;
};

}  // namespace gpuconform
