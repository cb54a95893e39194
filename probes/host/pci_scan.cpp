#include <algorithm>
#include <cmath>
#include <regex>

#include "host/collect.hpp"
#include "host/host_fs.hpp"
#include "host/parsers.hpp"

namespace gpuconform {

namespace {

template <typename T, typename Parse>
std::optional<T> read_attr(const std::string& root, const std::string& dir, const char* name, Parse parse) {
    const auto text = read_line(root, dir + "/" + name);
    return text ? parse(*text) : std::nullopt;
}

}  // namespace

std::vector<PciGpu> scan_pci_gpus(const std::string& root) {
    static const std::string k_devices = "/sys/bus/pci/devices";
    std::vector<PciGpu> gpus;
    for (const auto& bdf : list_dir(root, k_devices)) {
        const auto dir = k_devices + "/" + bdf;
        const auto vendor_id = read_attr<std::uint32_t>(root, dir, "vendor", parse_hex);
        const auto class_code = read_attr<std::uint32_t>(root, dir, "class", parse_hex);
        if (!vendor_id || !class_code || !is_display_class(*class_code) || gpu_vendor_name(*vendor_id).empty()) {
            continue;
        }
        PciGpu g;
        g.bdf = bdf;
        g.vendor = gpu_vendor_name(*vendor_id);
        g.vendor_id = *vendor_id;
        g.class_code = *class_code;
        g.device_id = read_attr<std::uint32_t>(root, dir, "device", parse_hex).value_or(0);
        g.current_speed_gts = read_attr<double>(root, dir, "current_link_speed", parse_link_speed);
        g.max_speed_gts = read_attr<double>(root, dir, "max_link_speed", parse_link_speed);
        g.current_width = read_attr<int>(root, dir, "current_link_width", parse_link_width);
        g.max_width = read_attr<int>(root, dir, "max_link_width", parse_link_width);
        g.numa_node = read_attr<int>(root, dir, "numa_node", parse_numa_node);
        gpus.push_back(std::move(g));
    }
    return gpus;
}

std::map<std::string, std::string> read_kernel_drivers(const std::string& root) {
    std::map<std::string, std::string> drivers;
    std::string nvidia;
    if (const auto text = read_text(root, "/proc/driver/nvidia/version")) {
        nvidia = parse_nvidia_proc_version(*text);
    }
    if (nvidia.empty()) {
        nvidia = read_line(root, "/sys/module/nvidia/version").value_or("");
    }
    if (!nvidia.empty()) {
        drivers["nvidia"] = nvidia;
    }
    if (const auto v = read_line(root, "/sys/module/amdgpu/version"); v && !v->empty()) {
        drivers["amdgpu"] = *v;
    } else if (path_exists(root, "/sys/module/amdgpu")) {
        drivers["amdgpu"] = "in-tree";
    }
    return drivers;
}

int count_numa_nodes(const std::string& root) {
    static const std::regex k_node("node[0-9]+");
    const auto names = list_dir(root, "/sys/devices/system/node");
    const auto n =
        std::count_if(names.begin(), names.end(), [](const std::string& s) { return std::regex_match(s, k_node); });
    return std::max(1, static_cast<int>(n));
}

std::optional<double> pcie_link_bytes_per_s(double speed_gts, int width) {
    if (speed_gts <= 0 || width <= 0) {
        return std::nullopt;
    }
    // Line encoding: 8b/10b up to Gen2, 128b/130b for Gen3-5, FLIT (242/256 payload) for Gen6.
    double efficiency = 128.0 / 130.0;
    if (speed_gts < 8.0) {
        efficiency = 0.8;
    } else if (speed_gts > 40.0) {
        efficiency = 242.0 / 256.0;
    }
    return speed_gts * 1e9 * width * efficiency / 8.0;
}

int pcie_generation(double speed_gts) {
    constexpr std::array<double, 6> k_rates{2.5, 5.0, 8.0, 16.0, 32.0, 64.0};
    for (std::size_t i = 0; i < k_rates.size(); ++i) {
        if (std::abs(speed_gts - k_rates[i]) < 0.25 * k_rates[i]) {
            return static_cast<int>(i) + 1;
        }
    }
    return 0;
}

}  // namespace gpuconform
