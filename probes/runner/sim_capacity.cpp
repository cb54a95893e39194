#include "runner/sim_capacity.hpp"

#include <sstream>

#include <fmt/format.h>

#include "core/proc_file.hpp"

namespace gpuconform {

std::optional<std::uint64_t> mem_available_bytes() {
    const auto text = read_proc_file("/proc/meminfo");
    if (!text) {
        return std::nullopt;
    }
    std::istringstream lines(*text);
    std::string key;
    std::uint64_t kib = 0;
    std::string unit;
    while (lines >> key >> kib) {
        std::getline(lines, unit);
        if (key == "MemAvailable:") {
            return kib * 1024;
        }
    }
    return std::nullopt;
}

std::string sim_capacity_problem(int devices, std::optional<std::uint64_t> available) {
    if (!available || devices <= 0) {
        return "";
    }
    const std::uint64_t need = static_cast<std::uint64_t>(devices) * k_sim_bytes_per_device;
    if (need <= *available) {
        return "";
    }
    const std::uint64_t fit = *available / k_sim_bytes_per_device;
    return fmt::format(
        "--sim-devices {} needs about {:.1f} GB of host memory ({:.1f} GB per simulated GPU) and {:.1f} GB is "
        "available; use --sim-devices {} or fewer",
        devices, need / 1e9, k_sim_bytes_per_device / 1e9, *available / 1e9, fit);
}

}  // namespace gpuconform
