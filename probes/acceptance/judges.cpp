#include "acceptance/judges.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "nvml/nvml_api.hpp"

namespace gpuconform::acceptance {

double peak_memory_gbps(int memory_clock_khz, int bus_bits) {
    return 2.0 * memory_clock_khz * 1e3 * (bus_bits / 8.0) / 1e9;
}

Verdict judge_hbm(double triad_gbps, std::optional<double> peak_gbps, double min_ratio) {
    if (!peak_gbps || *peak_gbps <= 0) {
        return {Status::Skip, fmt::format("triad {:.0f} GB/s; the runtime reports no memory clock or bus width, so "
                                          "there is no peak to judge it against",
                                          triad_gbps)};
    }
    const double ratio = triad_gbps / *peak_gbps;
    const std::string text = fmt::format("triad {:.0f} GB/s, {:.0f}% of the {:.0f} GB/s theoretical peak", triad_gbps,
                                         ratio * 100, *peak_gbps);
    if (ratio < min_ratio) {
        return {Status::Fail, fmt::format("{}: below the {:.0f}% floor", text, min_ratio * 100)};
    }
    return {Status::Pass, text};
}

Verdict judge_matmul_rate(double sustained_tflops, std::optional<double> peak_tflops, double min_ratio,
                          const std::string& arch) {
    if (!peak_tflops || *peak_tflops <= 0) {
        return {Status::Pass, fmt::format("{:.1f} TFLOP/s sustained; no FP16 peak for {} in the profile, so the "
                                          "rate is recorded, not judged",
                                          sustained_tflops, arch)};
    }
    const double ratio = sustained_tflops / *peak_tflops;
    const std::string text = fmt::format("{:.4g} TFLOP/s sustained, {:.0f}% of the {:.4g} TFLOP/s dense FP16 peak",
                                         sustained_tflops, ratio * 100, *peak_tflops);
    if (ratio < min_ratio) {
        return {Status::Fail, fmt::format("{}: below the {:.0f}% floor", text, min_ratio * 100)};
    }
    return {Status::Pass, text};
}

std::string throttle_reason_names(std::uint64_t reasons) {
    static const std::pair<std::uint64_t, const char*> k_names[]{
        {nvml::k_reason_sw_power_cap, "software power cap"},
        {nvml::k_reason_hw_slowdown, "hardware slowdown"},
        {nvml::k_reason_sw_thermal, "software thermal slowdown"},
        {nvml::k_reason_hw_thermal, "hardware thermal slowdown"},
        {nvml::k_reason_hw_power_brake, "hardware power brake"},
    };
    std::string out;
    for (const auto& [bit, name] : k_names) {
        if ((reasons & bit) != 0) {
            out += (out.empty() ? "" : ", ") + std::string(name);
        }
    }
    return out;
}

bool is_thermal_or_brake(std::uint64_t reasons) {
    return (reasons & (nvml::k_reason_hw_slowdown | nvml::k_reason_sw_thermal | nvml::k_reason_hw_thermal |
                       nvml::k_reason_hw_power_brake)) != 0;
}

namespace {
double median_of(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}
}  // namespace

Verdict judge_clocks(const std::vector<LoadSample>& samples, double clock_min_ratio) {
    std::vector<double> clocks;
    double max_clock = -1;
    std::uint64_t seen = 0;
    std::uint64_t serious = 0;
    std::size_t throttled = 0;
    std::size_t capped = 0;
    double hottest = -1;
    for (const auto& s : samples) {
        if (s.sm_clock_mhz >= 0) {
            clocks.push_back(s.sm_clock_mhz);
        }
        max_clock = std::max(max_clock, s.max_sm_clock_mhz);
        hottest = std::max(hottest, s.temperature_c);
        if (s.reasons_read) {
            seen |= s.clock_event_reasons;
            if (is_thermal_or_brake(s.clock_event_reasons)) {
                serious |= s.clock_event_reasons;
                ++throttled;
            }
            capped += (s.clock_event_reasons & nvml::k_reason_sw_power_cap) != 0 ? 1 : 0;
        }
    }
    if (clocks.empty()) {
        return {Status::Skip, "no clock could be read under load: throttling not judged"};
    }
    const double mid = median_of(clocks);
    std::string text = fmt::format("SM clock median {:.0f} MHz", mid);
    if (max_clock > 0) {
        text += fmt::format(" of {:.0f} MHz ({:.0f}%)", max_clock, mid / max_clock * 100);
    }
    if (hottest >= 0) {
        text += fmt::format(", up to {:.0f} C", hottest);
    }
    text += fmt::format(" over {} samples", samples.size());
    if (capped > 0) {
        text += fmt::format("; at its software power cap in {} of them", capped);
    }
    if (serious != 0) {
        return {Status::Fail, fmt::format("{} in {} of {} samples under load: {}", throttle_reason_names(serious),
                                          throttled, samples.size(), text)};
    }
    if (max_clock > 0 && mid < max_clock * clock_min_ratio) {
        return {Status::Fail,
                fmt::format("{}: below {:.0f}% of the maximum{}", text, clock_min_ratio * 100,
                            seen != 0 ? " (reasons seen: " + throttle_reason_names(seen) + ")" : std::string())};
    }
    return {Status::Pass, text};
}

Verdict judge_soak_counters(const std::vector<CounterGrowth>& counters, const std::string& not_read) {
    std::string grew;
    for (const auto& c : counters) {
        if (c.after > c.before) {
            grew += fmt::format("{}{} +{} ({} -> {})", grew.empty() ? "" : ", ", c.name, c.after - c.before, c.before,
                                c.after);
        }
    }
    if (!grew.empty()) {
        return {Status::Warn, "error counters grew during the soak: " + grew};
    }
    if (counters.empty()) {
        return {Status::Pass, "link error counters not read" + (not_read.empty() ? "" : ": " + not_read)};
    }
    return {Status::Pass, fmt::format("{} link error counters unchanged", counters.size())};
}

}  // namespace gpuconform::acceptance
