#include "host/pcie_link.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "host/host_checks.hpp"
#include "host/environment_reader.hpp"

namespace gpuconform {

namespace {

std::string per_direction(double speed_gts, int width) {
    const auto bytes = pcie_link_bytes_per_s(speed_gts, width);
    return bytes ? fmt::format("{:.1f} GB/s", *bytes / 1e9) : "unknown";
}

constexpr const char* k_reseat = "re-seat the card / check the riser / BIOS link settings (slot speed, bifurcation)";

}  // namespace

std::string describe_link(double speed_gts, int width) {
    const int gen = pcie_generation(speed_gts);
    return gen > 0 ? fmt::format("Gen{} ({:g} GT/s) x{}", gen, speed_gts, width)
                   : fmt::format("{:g} GT/s x{}", speed_gts, width);
}

LinkJudgement judge_pcie_link(const PciGpu& g, bool fail_on_speed_downshift) {
    LinkJudgement j;
    j.bdf = g.bdf;
    if (!g.current_speed_gts || !g.max_speed_gts || !g.current_width || !g.max_width) {
        j.summary = fmt::format("{}: link speed/width not readable in sysfs", g.bdf);
        return j;
    }
    const auto now = describe_link(*g.current_speed_gts, *g.current_width);
    const auto cap = describe_link(*g.max_speed_gts, *g.max_width);
    const auto rates = fmt::format("{} of {} per direction", per_direction(*g.current_speed_gts, *g.current_width),
                                   per_direction(*g.max_speed_gts, *g.max_width));
    const bool narrow = *g.current_width < *g.max_width;
    const bool slow = *g.current_speed_gts + 1e-6 < *g.max_speed_gts;
    if (narrow) {
        j.status = Status::Fail;
        j.summary = fmt::format("{} trained at {}, capable of {} ({}): lanes are missing", g.bdf, now, cap, rates);
    } else if (slow) {
        j.status = fail_on_speed_downshift ? Status::Fail : Status::Warn;
        j.summary = fmt::format(
            "{} running at {}, capable of {} ({}): idle GPUs lower the link speed to save "
            "power; if it stays there under load the slot or riser limits it",
            g.bdf, now, cap, rates);
    } else {
        j.status = Status::Pass;
        j.summary = fmt::format("{} at {} as capable", g.bdf, now);
    }
    return j;
}

Verdict judge_pcie_links(const std::vector<PciGpu>& gpus, bool fail_on_speed_downshift) {
    if (gpus.empty()) {
        return {Status::Skip, "no NVIDIA or AMD GPU on the PCI bus", ""};
    }
    std::vector<LinkJudgement> all;
    for (const auto& g : gpus) {
        all.push_back(judge_pcie_link(g, fail_on_speed_downshift));
    }
    // Worst first; skip ranks below pass here so one unreadable GPU does not hide the others.
    auto rank = [](Status s) { return s == Status::Skip ? -1 : severity(s); };
    std::stable_sort(all.begin(), all.end(),
                     [&](const LinkJudgement& a, const LinkJudgement& b) { return rank(a.status) > rank(b.status); });
    const Status worst = all.front().status;
    if (worst == Status::Skip) {
        return {Status::Skip,
                fmt::format("sysfs has no link speed/width for the {} GPU(s) (common in VMs)", gpus.size()), ""};
    }
    std::vector<std::string> lines;
    for (const auto& j : all) {
        if (j.status == worst) {
            lines.push_back(j.summary);
        }
    }
    const auto others = all.size() - lines.size();
    auto summary = fmt::format("{}", fmt::join(lines, "; "));
    if (others > 0) {
        summary += fmt::format(" ({} other GPU(s) better or unreadable)", others);
    }
    std::string remediation;
    if (worst == Status::Fail) {
        remediation = k_reseat;
    } else if (worst == Status::Warn) {
        remediation = fmt::format(
            "read current_link_speed again while the GPU is busy (nvidia-smi -q -d PCIE or "
            "lspci -vv under load); if it stays low, {}",
            k_reseat);
    }
    return {worst, summary, remediation};
}

CheckDef make_host_pcie_link() {
    CheckDef d =
        host_check("host.pcie.link", "each GPU's PCIe link trained (current) against capable (max)",
                   [](CheckContext& ctx, CheckResult& r) {
                       const bool strict = ctx.expect_optional(r, "fail_on_speed_downshift_flag").value_or(0) != 0;
                       nlohmann::json per_gpu = nlohmann::json::object();
                       for (const auto& g : ctx.env.pci_gpus) {
                           auto add = [&](const char* what, const auto& v, const char* unit) {
                               if (v) {
                                   r.measurements.push_back(
                                       single(fmt::format("{} {}", g.bdf, what), static_cast<double>(*v), unit));
                               }
                           };
                           add("current_speed", g.current_speed_gts, "GT/s");
                           add("max_speed", g.max_speed_gts, "GT/s");
                           add("current_width", g.current_width, "lanes");
                           add("max_width", g.max_width, "lanes");
                           per_gpu[g.bdf] = g;
                       }
                       r.facts = {{"gpus", per_gpu}};
                       apply(judge_pcie_links(ctx.env.pci_gpus, strict), r);
                   });
    d.profile_keys = {
        keys::range("fail_on_speed_downshift_flag", 0, 1, true),
    };
    d.measurements = {
        measure::diagnostic("* current_*", Direction::Higher, 0.00),
        measure::diagnostic("* max_*", Direction::None, 0.00),
    };
    return d;
}

}  // namespace gpuconform
