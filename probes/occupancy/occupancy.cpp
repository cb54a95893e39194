#include "occupancy/occupancy.hpp"

#include <dirent.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

#include <fmt/format.h>

#include "core/byte_sizes.hpp"
#include "core/proc_file.hpp"
#include "core/utf8.hpp"
#include "occupancy/proc_names.hpp"

namespace gpuconform {

namespace {

std::vector<int> numeric_entries(const std::string& dir) {
    std::vector<int> out;
    if (DIR* d = opendir(dir.c_str())) {
        while (const dirent* e = readdir(d)) {
            const std::string n = e->d_name;
            if (!n.empty() && n.find_first_not_of("0123456789") == std::string::npos) {
                out.push_back(std::stoi(n));
            }
        }
        closedir(d);
    }
    return out;
}

// Parent pid from /proc/<pid>/stat: the field after the command, which may hold spaces and ')'.
// A process that exits meanwhile is simply not in the tree.
std::optional<int> parent_of(const std::string& root, int pid) {
    const std::string text = read_proc_file(fmt::format("{}/proc/{}/stat", root == "/" ? "" : root, pid)).value_or("");
    const auto close = text.rfind(')');
    if (close == std::string::npos) {
        return std::nullopt;
    }
    std::istringstream rest(text.substr(close + 1));
    std::string state;
    int ppid = 0;
    if (!(rest >> state >> ppid)) {
        return std::nullopt;
    }
    return ppid;
}

}  // namespace

std::string process_name(const std::string& root, int pid) {
    const std::string text = read_proc_file(fmt::format("{}/proc/{}/comm", root == "/" ? "" : root, pid)).value_or("");
    return to_valid_utf8(text.substr(0, text.find('\n')));
}

void merge_process(std::vector<OtherProcess>& list, const OtherProcess& p) {
    for (auto& q : list) {
        if (q.pid == p.pid) {
            if (q.name.empty()) {
                q.name = p.name;
            }
            if (!q.memory_bytes && p.memory_bytes) {
                q.memory_bytes = p.memory_bytes;
            } else if (q.memory_bytes && p.memory_bytes) {
                *q.memory_bytes += *p.memory_bytes;  // compute and graphics contexts of one process
            }
            return;
        }
    }
    list.push_back(p);
}

bool disturbs_timing(const GpuOccupancy& o) {
    const bool util_busy = !o.utilization_pct || *o.utilization_pct >= k_busy_utilization_pct;
    if (o.list_sees_us) {
        if (o.others.empty()) {
            return o.settled && o.utilization_pct && util_busy;
        }
        return util_busy;
    }
    return o.utilization_pct ? util_busy : !o.others.empty();
}

bool may_hide_tenant(const GpuOccupancy& o) {
    return o.list_sees_us && o.others.empty() && !o.settled && o.utilization_pct &&
           *o.utilization_pct >= k_busy_utilization_pct;
}

std::string describe_others(const GpuOccupancy& o) {
    const std::string util = o.utilization_pct ? fmt::format("{:.0f}% utilisation", *o.utilization_pct) : "";
    if (o.others.empty()) {
        std::string mem =
            o.memory_used_bytes ? size_words(static_cast<std::uint64_t>(*o.memory_used_bytes)) + " in use" : "";
        return fmt::format("another tenant, no process visible (another PID namespace?): {}{}{}", util,
                           !util.empty() && !mem.empty() ? ", " : "", mem.empty() && util.empty() ? "busy" : mem);
    }
    std::string out;
    for (const auto& p : o.others) {
        out +=
            fmt::format("{}pid {} {}", out.empty() ? "" : ", ", p.pid, p.name.empty() ? "(name unreadable)" : p.name);
        if (p.memory_bytes) {
            out += fmt::format(" held {}", size_words(*p.memory_bytes));
        }
    }
    if (!util.empty()) {
        out += (o.others.size() == 1 && o.others[0].memory_bytes ? " and " : "; ") + util;
    }
    return out;
}

nlohmann::json disturbance_json(const GpuOccupancy& o) {
    nlohmann::json others = nlohmann::json::array();
    for (const auto& p : o.others) {
        others.push_back(
            {{"pid", p.pid},
             {"name", p.name},
             {"memory_bytes", p.memory_bytes ? nlohmann::json(*p.memory_bytes) : nlohmann::json(nullptr)}});
    }
    return {
        {"summary", describe_others(o)},
        {"others", others},
        {"utilization_pct", o.utilization_pct ? nlohmann::json(*o.utilization_pct) : nlohmann::json(nullptr)},
        {"memory_used_bytes", o.memory_used_bytes ? nlohmann::json(*o.memory_used_bytes) : nlohmann::json(nullptr)}};
}

void to_json(nlohmann::json& j, const GpuOccupancy& o) {
    j = disturbance_json(o);
    j["backend"] = o.backend;
    j["device"] = o.device;
    j["pci_bus_id"] = o.pci_bus_id.empty() ? nlohmann::json(nullptr) : nlohmann::json(o.pci_bus_id);
    j["sources"] = o.sources;
    j["error"] = o.error.empty() ? nlohmann::json(nullptr) : nlohmann::json(to_valid_utf8(o.error));
    j["disturbs_timing"] = disturbs_timing(o);
}

std::set<int> own_process_tree(const std::string& root) {
    std::map<int, int> parent;
    const std::string proc = (root == "/" ? "" : root) + "/proc";
    for (int pid : numeric_entries(proc)) {
        if (const auto pp = parent_of(root, pid)) {
            parent[pid] = *pp;
        }
    }
    std::set<int> own{static_cast<int>(getpid())};
    for (bool grew = true; grew;) {  // descendants: repeat until no new child is found
        grew = false;
        for (const auto& [pid, pp] : parent) {
            if (own.count(pp) != 0 && own.insert(pid).second) {
                grew = true;
            }
        }
    }
    return own;
}

OccupancySampler OccupancySampler::standard(const std::string& sim_state_dir) {
    OccupancySampler s;
    s.add(make_nvml_provider());
    s.add(make_amd_sysfs_provider());
    s.add(make_device_node_provider());
    if (!sim_state_dir.empty()) {
        s.add(make_sim_provider(sim_state_dir));
    }
    return s;
}

GpuOccupancy OccupancySampler::read_once(const std::string& backend, int device, const std::string& bdf) const {
    GpuOccupancy o;
    o.backend = backend;
    o.device = device;
    o.pci_bus_id = bdf;
    const auto own = own_process_tree();
    for (const auto& p : m_providers) {
        if (p->handles(backend)) {
            p->read(o, own);
        }
    }
    return o;
}

GpuOccupancy OccupancySampler::sample(const std::string& backend, int device, const std::string& bdf, double settle_s,
                                      bool look_behind_own) const {
    GpuOccupancy o = read_once(backend, device, bdf);
    const bool averaged = std::find(o.sources.begin(), o.sources.end(), "nvml") != o.sources.end() ||
                          std::find(o.sources.begin(), o.sources.end(), "amdgpu-sysfs") != o.sources.end();
    if (settle_s > 0 && ((averaged && disturbs_timing(o)) || (look_behind_own && may_hide_tenant(o)))) {
        // NVML's and amdgpu's utilisation cover the last sampling period (up to a second),
        // which may hold our own last kernel: read again once that period is over.
        std::this_thread::sleep_for(std::chrono::duration<double>(settle_s));
        o = read_once(backend, device, bdf);
        o.settled = true;
    }
    return o;
}

}  // namespace gpuconform
