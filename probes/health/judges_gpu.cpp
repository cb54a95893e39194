// Clock event reasons, temperature and power (NVML's NvmlClocksEventReasons and device queries,
// https://docs.nvidia.com/deploy/nvml-api/), the PCIe replay counter and NVLink state:
// docs/gpu-health.md, "Clocks, temperature, power" and "Links".
#include <fmt/format.h>

#include <vector>

#include "health/judges.hpp"
#include "nvml/nvml_api.hpp"

namespace gpuconform {

namespace {

struct Reason {
    std::uint64_t bit;
    const char* name;
    Status status;  // what it means when active now
};

// HW slowdown, HW thermal and HW power brake cut the core clocks by half or more (NVML); SW thermal
// slowdown holds the GPU under its maximum operating temperature. Idle, application clocks, the
// SW power cap (clocks held within the power limit), sync boost and display clocks are normal.
constexpr Reason k_reasons[] = {
    {nvml::k_reason_hw_slowdown, "HW slowdown", Status::Fail},
    {nvml::k_reason_hw_thermal, "HW thermal slowdown", Status::Fail},
    {nvml::k_reason_hw_power_brake, "HW power brake slowdown", Status::Fail},
    {nvml::k_reason_sw_thermal, "SW thermal slowdown", Status::Warn},
    {nvml::k_reason_sw_power_cap, "SW power cap", Status::Info},
    {nvml::k_reason_gpu_idle, "idle", Status::Pass},
    {nvml::k_reason_applications_clocks, "application clocks", Status::Pass},
    {nvml::k_reason_sync_boost, "sync boost", Status::Pass},
    {nvml::k_reason_display_clocks, "display clocks", Status::Pass},
};

void worsen(HealthVerdict& v, Status s, const std::string& finding, const std::string& fix) {
    if (severity(s) > severity(v.status)) {
        v.status = s;
    }
    if (!finding.empty() && (s == Status::Fail || s == Status::Warn)) {
        v.finding += (v.finding.empty() ? "" : "; ") + finding;
        v.remediation += (v.remediation.empty() ? "" : "; ") + fix;
    }
}

std::string join(const std::vector<std::string>& parts) {
    std::string out;
    for (const auto& p : parts) {
        out += (out.empty() ? "" : ", ") + p;
    }
    return out;
}

}  // namespace

HealthVerdict judge_clocks(const GpuHealth& g, double slowdown_margin_c) {
    HealthVerdict v;
    std::vector<std::string> said, unread;
    if (g.clock_event_reasons.ok()) {
        std::vector<std::string> active;
        for (const auto& r : k_reasons) {
            if ((*g.clock_event_reasons.value & r.bit) != 0) {
                active.push_back(r.name);
                worsen(v, r.status, std::string(r.name) + " active",
                       "check the GPU's cooling, airflow and power delivery (nvidia-smi -q -d PERFORMANCE)");
            }
        }
        said.push_back("clock event reasons: " + (active.empty() ? std::string("none") : join(active)));
    } else {
        unread.push_back("clock event reasons (" + g.clock_event_reasons.why() + ")");
    }
    if (g.temperature_c.ok()) {
        const unsigned int t = *g.temperature_c.value;
        std::string line = fmt::format("{} °C", t);
        if (g.shutdown_c.ok() && t >= *g.shutdown_c.value) {
            worsen(v, Status::Fail, fmt::format("at {} °C, its shutdown temperature", t), "cool the GPU now");
        } else if (g.slowdown_c.ok() && t >= *g.slowdown_c.value) {
            worsen(v, Status::Fail,
                   fmt::format("at {} °C, past its slowdown temperature {} °C", t, *g.slowdown_c.value),
                   "check the GPU's cooling and airflow");
        } else if (g.slowdown_c.ok() && t + slowdown_margin_c >= *g.slowdown_c.value) {
            worsen(v, Status::Warn, fmt::format("at {} °C, within {} °C of slowdown", t, slowdown_margin_c),
                   "check the GPU's cooling and airflow");
        }
        if (g.slowdown_c.ok()) {
            line += fmt::format(" (slowdown {} °C", *g.slowdown_c.value) +
                    (g.shutdown_c.ok() ? fmt::format(", shutdown {} °C)", *g.shutdown_c.value) : std::string(")"));
        }
        said.push_back(line);
    } else {
        unread.push_back("temperature (" + g.temperature_c.why() + ")");
    }
    if (g.power_limit_mw.ok() && g.default_power_limit_mw.ok()) {
        const double limit_w = *g.power_limit_mw.value / 1000.0;
        const double default_w = *g.default_power_limit_mw.value / 1000.0;
        if (*g.power_limit_mw.value < *g.default_power_limit_mw.value) {
            worsen(v, Status::Warn, fmt::format("power capped at {:.0f} of {:.0f} W", limit_w, default_w),
                   "restore the default power limit (nvidia-smi -pl) unless the cap is intended");
        }
        said.push_back(fmt::format("power limit {:.0f} W (default {:.0f} W)", limit_w, default_w));
    } else {
        unread.push_back("power limit (" + (g.power_limit_mw.ok() ? g.default_power_limit_mw : g.power_limit_mw).why() +
                         ")");
    }
    if (said.empty()) {
        const bool none_supported =
            g.clock_event_reasons.not_supported && g.temperature_c.not_supported && g.power_limit_mw.not_supported;
        return {none_supported ? Status::Skip : Status::Error, "nothing could be read: " + join(unread), "", ""};
    }
    v.summary = (v.finding.empty() ? "" : v.finding + "; ") + join(said) +
                (unread.empty() ? "" : "; not read: " + join(unread));
    return v;
}

HealthVerdict judge_pcie_errors(const GpuHealth& g) {
    if (!g.pcie_replays.ok() && !g.aer.ok()) {
        const bool none = g.pcie_replays.not_supported && g.aer.not_supported;
        return {
            none ? Status::Skip : Status::Error,
            "PCIe error counters could not be read: replays (" + g.pcie_replays.why() + "), AER (" + g.aer.why() + ")",
            "", ""};
    }
    // Recorded, not judged: DCGM's limits are rates over a window; health.error_growth judges the
    // growth between this reading and the one after the device layer.
    const std::string replays =
        g.pcie_replays.ok() ? fmt::format("{} PCIe replay(s) since the GPU was last reset", *g.pcie_replays.value)
                            : "PCIe replays not read (" + g.pcie_replays.why() + ")";
    const std::string aer =
        g.aer.ok() ? fmt::format("AER since the kernel found it: correctable {}, non-fatal {}, fatal {}",
                                 g.aer.value->correctable, g.aer.value->nonfatal, g.aer.value->fatal)
                   : "AER not read (" + (g.aer.not_supported ? std::string("no aer_dev_* files") : g.aer.error) + ")";
    return {Status::Info, replays + "; " + aer, "", ""};
}

HealthVerdict judge_nvlink(const GpuHealth& g) {
    if (!g.nvlinks.ok()) {
        if (g.nvlinks.not_supported) {
            return {Status::Skip, "this GPU has no NVLink (its driver reports none)", "", ""};
        }
        return {Status::Error, "NVLink state could not be read: " + g.nvlinks.error, "", ""};
    }
    std::vector<std::string> down;
    std::uint64_t replay = 0, recovery = 0, crc = 0;
    for (const auto& l : *g.nvlinks.value) {
        if (!l.active) {
            down.push_back(std::to_string(l.link));
        }
        replay += l.replay.value.value_or(0);
        recovery += l.recovery.value.value_or(0);
        crc += l.crc_flit.value.value_or(0) + l.crc_data.value.value_or(0);
    }
    const std::string counters = fmt::format("{} link(s); errors since reset: {} replay, {} recovery, {} CRC",
                                             g.nvlinks.value->size(), replay, recovery, crc);
    if (!down.empty()) {
        return {Status::Fail, "NVLink link(s) " + join(down) + " down; " + counters,
                "check the NVLink bridge or baseboard and the fabric manager (nvidia-smi nvlink -s); reseat or "
                "replace the GPU",
                "NVLink " + join(down) + " down"};
    }
    return {Status::Pass, "every link active; " + counters, "", ""};
}

}  // namespace gpuconform
