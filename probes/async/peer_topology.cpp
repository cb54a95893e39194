#include "async/peer_topology.hpp"

#include <filesystem>
#include <sstream>

namespace gpuconform::async {

namespace {
std::vector<std::string> components(const std::string& path) {
    std::vector<std::string> out;
    std::stringstream ss(path);
    std::string part;
    while (std::getline(ss, part, '/')) {
        if (!part.empty() && part != "sys" && part != "devices") {
            out.push_back(part);
        }
    }
    return out;
}
}  // namespace

std::string pci_sysfs_path(const std::string& bdf) {
    if (bdf.empty()) {
        return "";
    }
    std::error_code ec;
    const auto p = std::filesystem::canonical("/sys/bus/pci/devices/" + bdf, ec);
    return ec ? "" : p.string();
}

std::string pci_link_label(const std::string& path_a, const std::string& path_b) {
    const auto a = components(path_a);
    const auto b = components(path_b);
    if (a.size() < 2 || b.size() < 2) {
        return "unknown";
    }
    if (a.front() != b.front()) {
        return "SYS";  // different host bridges (pci0000:00 vs pci0000:80)
    }
    std::size_t common = 0;
    while (common < a.size() - 1 && common < b.size() - 1 && a[common] == b[common]) {
        ++common;
    }
    // common == 1: only the host bridge is shared; each GPU hangs off its own root port.
    if (common <= 1) {
        return "PHB";
    }
    const bool same_parent = common == a.size() - 1 && common == b.size() - 1;
    return same_parent ? "PIX" : "PXB";
}

}  // namespace gpuconform::async
