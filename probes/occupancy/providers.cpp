// The providers that need no vendor library: AMD's sysfs counters, the holders of a GPU's device
// nodes (/proc/*/fd), and the simulated backend's co-tenant.
#include <dirent.h>
#include <unistd.h>

#include <chrono>
#include <climits>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "core/proc_file.hpp"
#include "occupancy/occupancy.hpp"
#include "occupancy/proc_names.hpp"

namespace gpuconform {

namespace {

std::string prefix(const std::string& root) { return root == "/" ? "" : root; }

std::optional<double> read_number(const std::string& path) {
    std::istringstream in(read_proc_file(path).value_or(""));
    double v = 0;
    if (in >> v) {
        return v;
    }
    return std::nullopt;
}

std::vector<std::string> entries(const std::string& dir) {
    std::vector<std::string> out;
    if (DIR* d = opendir(dir.c_str())) {
        while (const dirent* e = readdir(d)) {
            if (e->d_name[0] != '.') {
                out.emplace_back(e->d_name);
            }
        }
        closedir(d);
    }
    return out;
}

// amdgpu's counters (https://docs.kernel.org/gpu/amdgpu/driver-misc.html, gpu_busy_percent;
// https://docs.kernel.org/gpu/amdgpu/driver-misc.html#mem-info-vram-used). The ROCm SMI / AMD
// SMI libraries read the same files; reading them directly needs no library on the node.
class AmdSysfsProvider final : public OccupancyProvider {
public:
    explicit AmdSysfsProvider(std::string root) : m_root(std::move(root)) {}
    std::string name() const override { return "amdgpu-sysfs"; }
    bool handles(const std::string& backend) const override { return backend == "hip"; }
    void read(GpuOccupancy& o, const std::set<int>&) const override {
        const std::string dev = fmt::format("{}/sys/bus/pci/devices/{}", prefix(m_root), o.pci_bus_id);
        const auto busy = read_number(dev + "/gpu_busy_percent");
        const auto used = read_number(dev + "/mem_info_vram_used");
        if (!busy && !used) {
            o.error += fmt::format("{}no amdgpu counters under {}", o.error.empty() ? "" : "; ", dev);
            return;
        }
        o.sources.push_back(name());
        o.utilization_pct = busy;
        o.memory_used_bytes = used;
    }

private:
    std::string m_root;
};

class DeviceNodeProvider final : public OccupancyProvider {
public:
    explicit DeviceNodeProvider(std::string root) : m_root(std::move(root)) {}
    std::string name() const override { return "proc-fd"; }
    bool handles(const std::string& backend) const override { return backend == "cuda" || backend == "hip"; }
    void read(GpuOccupancy& o, const std::set<int>& own) const override {
        const auto nodes = device_nodes_of(m_root, o.backend, o.pci_bus_id);
        if (nodes.empty()) {
            return;
        }
        o.sources.push_back(name());
        const std::string proc = prefix(m_root) + "/proc";
        for (const auto& pid_text : entries(proc)) {
            if (pid_text.find_first_not_of("0123456789") != std::string::npos) {
                continue;
            }
            const int pid = std::stoi(pid_text);
            if (own.count(pid) != 0) {
                continue;
            }
            const std::string fd_dir = proc + "/" + pid_text + "/fd";
            for (const auto& fd : entries(fd_dir)) {  // other users' fds are unreadable unless root
                char target[PATH_MAX];
                const ssize_t n = readlink((fd_dir + "/" + fd).c_str(), target, sizeof target - 1);
                if (n <= 0) {
                    continue;
                }
                const std::string path(target, static_cast<std::size_t>(n));
                if (std::find(nodes.begin(), nodes.end(), path) != nodes.end()) {
                    merge_process(o.others, OtherProcess{pid, process_name(m_root, pid), std::nullopt});
                    break;
                }
            }
        }
    }

private:
    std::string m_root;
};

// The simulated co-tenant publishes one small JSON file per device (sim_cotenant.hpp). Hidden, it
// reads as NVML does for a tenant in another PID namespace: the list shows only our own worker.
class SimProvider final : public OccupancyProvider {
public:
    SimProvider(std::string dir, bool hidden) : m_dir(std::move(dir)), m_hidden(hidden) {}
    std::string name() const override { return "sim-cotenant"; }
    bool handles(const std::string& backend) const override { return backend == "sim"; }
    void read(GpuOccupancy& o, const std::set<int>&) const override {
        o.sources.push_back(name());
        o.utilization_pct = 0;
        if (m_dir.empty()) {
            return;  // no co-tenant configured
        }
        std::ifstream in(fmt::format("{}/device-{}.json", m_dir, o.device));
        if (!in) {
            return;  // no co-tenant on this device (or not started yet)
        }
        const auto j = nlohmann::json::parse(in, nullptr, false);
        if (j.is_discarded()) {
            o.error = "unreadable sim co-tenant state";
            o.utilization_pct.reset();
            return;
        }
        const double now = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
        if (j.value("quiet_at", 0.0) > 0 && now >= j.value("quiet_at", 0.0)) {
            return;  // the co-tenant has finished
        }
        if (m_hidden) {
            o.list_sees_us = true;
        } else {
            o.others.push_back({j.value("pid", 0), j.value("name", ""), j.value("memory_bytes", std::uint64_t{0})});
        }
        o.utilization_pct = j.value("utilization_pct", 0.0);
        o.memory_used_bytes = static_cast<double>(j.value("memory_bytes", std::uint64_t{0}));
    }

private:
    std::string m_dir;
    bool m_hidden = false;
};

}  // namespace

std::vector<std::string> device_nodes_of(const std::string& root, const std::string& backend, const std::string& bdf) {
    std::vector<std::string> out;
    if (bdf.empty()) {
        return out;
    }
    if (backend == "cuda") {
        // "Device Minor: 0" (https://download.nvidia.com/XFree86/Linux-x86_64/580.95.05/README/procinterface.html)
        std::istringstream in(
            read_proc_file(fmt::format("{}/proc/driver/nvidia/gpus/{}/information", prefix(root), bdf)).value_or(""));
        for (std::string line; std::getline(in, line);) {
            if (line.rfind("Device Minor:", 0) == 0) {
                out.push_back("/dev/nvidia" + std::to_string(std::stoi(line.substr(13))));
            }
        }
    } else if (backend == "hip") {
        for (const auto& e : entries(fmt::format("{}/sys/bus/pci/devices/{}/drm", prefix(root), bdf))) {
            if (e.rfind("renderD", 0) == 0) {
                out.push_back("/dev/dri/" + e);
            }
        }
    }
    return out;
}

std::unique_ptr<OccupancyProvider> make_amd_sysfs_provider(std::string root) {
    return std::make_unique<AmdSysfsProvider>(std::move(root));
}
std::unique_ptr<OccupancyProvider> make_device_node_provider(std::string root) {
    return std::make_unique<DeviceNodeProvider>(std::move(root));
}
std::unique_ptr<OccupancyProvider> make_sim_provider(std::string state_dir, bool hidden) {
    return std::make_unique<SimProvider>(std::move(state_dir), hidden);
}

}  // namespace gpuconform
