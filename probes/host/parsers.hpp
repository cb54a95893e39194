// Pure parsers of the text the kernel and the distro expose: text in, struct out.
// Kept apart from the file reading so tests can feed them samples (native_tests/data/host).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "core/environment.hpp"

namespace gpuconform {

// /etc/os-release: ID, VERSION_ID, PRETTY_NAME (quotes and escapes removed).
Distro parse_os_release(const std::string& text);

struct CpuInfo {
    std::string model;     // "model name" (x86), else "Model"/"Hardware"/"cpu model"
    int logical_cpus = 0;  // "processor" entries
};
CpuInfo parse_cpuinfo(const std::string& text);

// MemTotal from /proc/meminfo, in bytes.
std::optional<std::uint64_t> parse_meminfo_total(const std::string& text);

// sysfs link speed: "32.0 GT/s PCIe" (new kernels), "8 GT/s" (old), "2.5 GT/s"; "Unknown" -> empty.
std::optional<double> parse_link_speed(const std::string& text);
// sysfs link width: "16"; "0" (link down) and garbage -> empty.
std::optional<int> parse_link_width(const std::string& text);
// sysfs numbers such as vendor "0x10de" or class "0x030200".
std::optional<std::uint32_t> parse_hex(const std::string& text);
// sysfs numa_node: "-1" (no affinity, common in VMs) -> empty.
std::optional<int> parse_numa_node(const std::string& text);

// "nvidia" for 0x10de, "amd" for 0x1002, "" otherwise.
std::string gpu_vendor_name(std::uint32_t vendor_id);
// Display controller class (0x03xxxx): VGA, 3D (0x0302, datacenter GPUs), other display.
bool is_display_class(std::uint32_t class_code);

// The version from /proc/driver/nvidia/version, e.g.
// "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.95.05  Release Build ..." -> "580.95.05".
std::string parse_nvidia_proc_version(const std::string& text);

// CapEff from /proc/self/status, as a bit mask.
std::optional<std::uint64_t> parse_cap_eff(const std::string& text);
constexpr int k_cap_ipc_lock_bit = 14;

// /proc/self/cgroup: the v2 path ("0::/user.slice/...") or, on v1, the memory controller's line.
std::string parse_cgroup(const std::string& text);

struct ContainerHints {
    bool dockerenv = false;       // /.dockerenv
    bool containerenv = false;    // /run/.containerenv (podman)
    bool kubernetes_env = false;  // KUBERNETES_SERVICE_HOST set
    std::string cgroup_text;      // /proc/self/cgroup
};
// "kubernetes", "docker", "podman", "lxc", "containerd", or "" on bare metal / VM.
std::string detect_container(const ContainerHints& hints);

// /proc/sys/vm/overcommit_memory "0" -> 0; THP "always [madvise] never" -> "madvise".
std::string parse_bracketed_choice(const std::string& text);

}  // namespace gpuconform
