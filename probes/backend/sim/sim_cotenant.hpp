// The simulated co-tenant: another process on every simulated device, as a busy node has one.
// While it runs, it really takes its share: copies get k_cotenant_link_share of the link and
// kernels take 1 / k_cotenant_compute_share as long, so a timing check that ignored it would
// fail. It publishes itself (pid, name, memory, utilisation) in <dir>/device-K.json, which the
// parent reads through the occupancy interface like NVML's process list.
#pragma once

#include <chrono>
#include <cstdio>
#include <string>

#include "backend/sim/sim_options.hpp"

namespace gpuconform::sim {

constexpr double k_cotenant_link_share = 0.125;  // like slow_link: a floor check that ignored it fails
constexpr double k_cotenant_compute_share = 0.5;
constexpr int k_cotenant_pid = 999999;  // no real process: the co-tenant lives inside the model
constexpr unsigned long long k_cotenant_memory_bytes = 874ull << 20;

inline bool cotenant_active(const SimOptions& o) {
    if (o.cotenant_dir.empty()) {
        return false;
    }
    const double now = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    return o.cotenant_quiet_at <= 0 || now < o.cotenant_quiet_at;
}

inline double cotenant_link_factor(const SimOptions& o) { return cotenant_active(o) ? k_cotenant_link_share : 1.0; }
inline double cotenant_compute_factor(const SimOptions& o) {
    return cotenant_active(o) ? 1.0 / k_cotenant_compute_share : 1.0;
}

inline void publish_cotenant(const SimOptions& o) {
    for (int k = 0; k < o.devices && !o.cotenant_dir.empty(); ++k) {
        const std::string path = o.cotenant_dir + "/device-" + std::to_string(k) + ".json";
        if (std::FILE* f = std::fopen(path.c_str(), "w")) {
            std::fprintf(f,
                         "{\"pid\": %d, \"name\": \"sim-cotenant\", \"memory_bytes\": %llu, "
                         "\"utilization_pct\": 98, \"quiet_at\": %.3f}\n",
                         k_cotenant_pid, k_cotenant_memory_bytes, o.cotenant_quiet_at);
            std::fclose(f);
        }
    }
}

}  // namespace gpuconform::sim
