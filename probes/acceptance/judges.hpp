// The acceptance layer's verdicts as pure functions of what was measured, so each is table-tested
// (native_tests/acceptance). Sources for the peaks: docs/acceptance.md.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "backend/acceptance_ops.hpp"
#include "core/result.hpp"

namespace gpuconform::acceptance {

struct Verdict {
    Status status = Status::Error;
    std::string summary;
};

// The memory interface's theoretical peak in GB/s: two transfers a clock (double data rate) over
// the bus width, as CUDA's bandwidthTest and NVIDIA's blog derive it.
double peak_memory_gbps(int memory_clock_khz, int bus_bits);

// Triad's best rate against the peak: below min_ratio fails. No peak (the runtime reported none):
// recorded, not judged (skip).
Verdict judge_hbm(double triad_gbps, std::optional<double> peak_gbps, double min_ratio);

// The sustained rate against the profile's peak for the type; none for this arch: not judged,
// the checked answers still are (pass names what was not judged).
Verdict judge_matmul_rate(double sustained_tflops, std::optional<double> peak_tflops, double min_ratio,
                          const std::string& arch);

// Clock-event reasons that mean the GPU slowed itself for heat or a power emergency (NVML's
// nvmlClocksEventReason bits); a software power cap is named but is the GPU working as configured.
std::string throttle_reason_names(std::uint64_t reasons);
bool is_thermal_or_brake(std::uint64_t reasons);

// Samples taken under load: any thermal or brake reason fails naming it; a median clock below
// clock_min_ratio of the maximum fails; no sample read: not judged (skip).
Verdict judge_clocks(const std::vector<LoadSample>& samples, double clock_min_ratio);

// An error counter before and after the soak: growth warns naming the counter (replays are
// corrected errors: the link works and retries; DCGM's PCIe test likewise).
struct CounterGrowth {
    std::string name;
    std::uint64_t before = 0;
    std::uint64_t after = 0;
};
Verdict judge_soak_counters(const std::vector<CounterGrowth>& counters, const std::string& not_read);

}  // namespace gpuconform::acceptance
