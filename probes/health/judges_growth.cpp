// Error counters that grew during our own run (docs/gpu-health.md, "health.error_growth"): the PCIe
// replay counter (NVML, amdgpu pcie_replay_count), the kernel's AER totals and every NVLink's CRC,
// replay and recovery counters, read before and after the device layer. Our copies are the
// traffic; a counter that moves under them is the link failing under load.
#include <fmt/format.h>

#include <algorithm>
#include <tuple>
#include <vector>

#include "health/judges.hpp"

namespace gpuconform {

namespace {

constexpr double k_window_s = 15 * 60;  // DCGM's rate window

struct Growth {
    HealthVerdict v;
    std::vector<std::string> said, unread, findings, fixes;
    bool any_compared = false;
    bool all_unsupported = true;

    void worsen(Status s, const std::string& finding, const std::string& fix) {
        if (severity(s) > severity(v.status)) {
            v.status = s;
        }
        findings.push_back(finding);
        if (std::find(fixes.begin(), fixes.end(), fix) == fixes.end()) {
            fixes.push_back(fix);
        }
    }
    template <typename T>
    bool both(const Read<T>& a, const Read<T>& b, const char* what) {
        if (a.ok() && b.ok()) {
            any_compared = true;
            all_unsupported = false;
            return true;
        }
        const Read<T>& bad = a.ok() ? b : a;
        all_unsupported = all_unsupported && bad.not_supported;
        if (!bad.not_supported) {
            unread.push_back(fmt::format("{} ({})", what, bad.why()));
        }
        return false;
    }
};

std::string join(const std::vector<std::string>& parts, const char* sep = ", ") {
    std::string out;
    for (const auto& p : parts) {
        out += (out.empty() ? "" : sep) + p;
    }
    return out;
}

const char* k_link_fix =
    "reseat the GPU, check its slot or riser and the link (host.pcie.link); replace the GPU if it persists";

// A counter that went back: the GPU was reset, or the kernel's device re-enumerated, during the run.
bool went_back(Growth& g, std::uint64_t before, std::uint64_t after, const char* what) {
    if (after >= before) {
        return false;
    }
    g.worsen(Status::Warn, fmt::format("{} went back from {} to {} (a reset during the run?)", what, before, after),
             "look for a GPU reset in the kernel log (health.xid)");
    return true;
}

void pcie_replays(Growth& g, const GpuHealth& a, const GpuHealth& b, double allowed_windows,
                  const GrowthLimits& limits) {
    if (!g.both(a.pcie_replays, b.pcie_replays, "PCIe replay counter")) {
        return;
    }
    const std::uint64_t before = *a.pcie_replays.value, after = *b.pcie_replays.value;
    if (went_back(g, before, after, "the PCIe replay counter")) {
        return;
    }
    const std::uint64_t grew = after - before;
    g.said.push_back(fmt::format("PCIe replays +{}", grew));
    const double allowed = limits.pcie_replays_per_15min * allowed_windows;
    if (grew > allowed) {
        g.worsen(Status::Fail, fmt::format("PCIe replays +{} during the run (limit {:g})", grew, allowed), k_link_fix);
    } else if (grew > 0) {
        g.worsen(Status::Warn, fmt::format("PCIe replays +{} during the run", grew), k_link_fix);
    }
}

void pcie_aer(Growth& g, const GpuHealth& a, const GpuHealth& b, double allowed_windows, const GrowthLimits& limits) {
    if (!g.both(a.aer, b.aer, "PCIe AER counters")) {
        return;
    }
    const AerCounts &before = *a.aer.value, &after = *b.aer.value;
    if (went_back(g, before.correctable, after.correctable, "the AER correctable total") ||
        went_back(g, before.fatal, after.fatal, "the AER fatal total") ||
        went_back(g, before.nonfatal, after.nonfatal, "the AER non-fatal total")) {
        return;
    }
    const std::uint64_t cor = after.correctable - before.correctable;
    const std::uint64_t fatal = after.fatal - before.fatal, nonfatal = after.nonfatal - before.nonfatal;
    g.said.push_back(fmt::format("AER correctable +{}, non-fatal +{}, fatal +{}", cor, nonfatal, fatal));
    if (fatal + nonfatal > 0) {
        // An uncorrectable error on the link: data was lost or the device was reset by the kernel.
        g.worsen(
            Status::Fail,
            fmt::format("PCIe AER uncorrectable errors during the run (non-fatal +{}, fatal +{})", nonfatal, fatal),
            k_link_fix);
    }
    const double allowed = limits.aer_correctable_per_15min * allowed_windows;
    if (cor > allowed) {
        g.worsen(Status::Fail, fmt::format("PCIe AER correctable errors +{} during the run (limit {:g})", cor, allowed),
                 k_link_fix);
    } else if (cor > 0) {
        g.worsen(Status::Warn, fmt::format("PCIe AER correctable errors +{} during the run", cor), k_link_fix);
    }
}

void nvlink(Growth& g, const GpuHealth& a, const GpuHealth& b, const GrowthLimits& limits) {
    if (!g.both(a.nvlinks, b.nvlinks, "NVLink counters")) {
        return;
    }
    std::uint64_t total = 0;
    std::vector<std::string> grown;
    for (const auto& after : *b.nvlinks.value) {
        const auto it = std::find_if(a.nvlinks.value->begin(), a.nvlinks.value->end(),
                                     [&](const NvLinkState& l) { return l.link == after.link; });
        if (it == a.nvlinks.value->end()) {
            continue;
        }
        std::vector<std::string> parts;
        for (const auto& [name, x, y] :
             {std::tuple{"CRC flit", &it->crc_flit, &after.crc_flit},
              std::tuple{"CRC data", &it->crc_data, &after.crc_data}, std::tuple{"replay", &it->replay, &after.replay},
              std::tuple{"recovery", &it->recovery, &after.recovery}}) {
            if (x->ok() && y->ok() && *y->value > *x->value) {
                total += *y->value - *x->value;
                parts.push_back(fmt::format("{} +{}", name, *y->value - *x->value));
            }
        }
        if (!parts.empty()) {
            grown.push_back(fmt::format("link {}: {}", after.link, join(parts)));
        }
    }
    g.said.push_back(fmt::format("NVLink errors +{} on {} link(s)", total, b.nvlinks.value->size()));
    if (total == 0) {
        return;
    }
    const std::string fix = "check the NVLink bridge or baseboard and the fabric manager (nvidia-smi nvlink -e)";
    g.worsen(total > limits.nvlink_errors ? Status::Fail : Status::Warn,
             "NVLink errors during the run (" + join(grown, "; ") + ")", fix);
}

}  // namespace

HealthVerdict judge_error_growth(const GpuHealth& before, const GpuHealth& after, const GrowthLimits& limits) {
    Growth g;
    const double elapsed_s = std::max(0.0, after.read_at_unix_s - before.read_at_unix_s);
    const double allowed_windows = std::max(1.0, elapsed_s / k_window_s);  // a short run: one window's worth
    pcie_replays(g, before, after, allowed_windows, limits);
    pcie_aer(g, before, after, allowed_windows, limits);
    nvlink(g, before, after, limits);
    if (!g.any_compared) {
        return {g.all_unsupported ? Status::Skip : Status::Error,
                g.all_unsupported ? "this GPU has none of the error counters (PCIe replays, AER, NVLink)"
                                  : "no error counter could be read twice: " + join(g.unread),
                "", ""};
    }
    HealthVerdict v = g.v;
    v.finding = join(g.findings, "; ");
    v.remediation = join(g.fixes, "; ");
    v.summary = (v.finding.empty() ? "no error counter grew" : v.finding) + fmt::format(" over {:.0f} s: ", elapsed_s) +
                join(g.said) + (g.unread.empty() ? "" : "; not compared: " + join(g.unread));
    return v;
}

}  // namespace gpuconform
