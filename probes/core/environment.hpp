// The environment fingerprint every report carries, read from /proc, /sys, /etc and the
// process itself. Collected once per run by the parent (no GPU runtime involved); the reader is
// host/environment_reader.hpp.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace gpuconform {

struct Distro {
    std::string id;           // "debian", "ubuntu", "rhel"
    std::string version_id;   // "12", "24.04", "9.4"
    std::string pretty_name;  // "Debian GNU/Linux 12 (bookworm)"
};

// One GPU seen on the PCI bus (display/3D class, vendor 0x10de or 0x1002).
struct PciGpu {
    std::string bdf;     // "0000:3b:00.0"
    std::string vendor;  // "nvidia" or "amd"
    std::uint32_t vendor_id = 0;
    std::uint32_t device_id = 0;
    std::uint32_t class_code = 0;
    std::optional<double> current_speed_gts;  // GT/s per lane
    std::optional<double> max_speed_gts;
    std::optional<int> current_width;
    std::optional<int> max_width;
    std::optional<int> numa_node;  // absent when sysfs says -1
};

struct InstrumentationSeen {
    std::string tool;      // "compute-sanitizer", "an NVIDIA tool launcher", "debugger (cuda-gdb)", ...
    std::string evidence;  // what showed it: a mapped library, a variable, the tracer's name
    std::string effect;    // what it does to GPU work, one line
};

struct Environment {
    std::string hostname;
    Distro distro;
    std::string kernel;
    std::string glibc;
    std::string cpu_model;
    int logical_cpus = 0;
    int numa_nodes = 0;
    std::uint64_t memory_bytes = 0;
    std::string container;  // "", "docker", "podman", "kubernetes", "lxc", ...
    std::string cgroup;     // the process's cgroup path (v2) or controllers line
    // RLIMIT_MEMLOCK; empty optional means unlimited.
    std::optional<std::uint64_t> memlock_soft;
    std::optional<std::uint64_t> memlock_hard;
    bool cap_ipc_lock = false;
    std::uint32_t uid = 0;
    std::string user;
    std::vector<std::string> groups;
    std::map<std::string, std::string> gpu_env;  // the variables of host/gpu_env_vars.cpp that are set (valid UTF-8)
    std::map<std::string, std::string> gpu_env_raw;     // values that were not UTF-8: their bytes, \xNN-escaped
    std::map<std::string, std::string> kernel_drivers;  // "nvidia" -> "580.159.04", "amdgpu" -> ...
    std::vector<PciGpu> pci_gpus;
    // Tools that instrument this process (host/instrumentation.hpp): a sanitizer, a profiler, a
    // debugger, found by what they map into the process and what their launchers set.
    std::vector<InstrumentationSeen> instrumentation;
};

}  // namespace gpuconform
