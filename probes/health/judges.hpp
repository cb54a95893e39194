// The health layer's verdicts: pure functions of one reading and the profile's limits, each
// following the vendor rule docs/gpu-health.md cites. Table-tested (native_tests/health).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "core/result.hpp"
#include "health/health_reading.hpp"

namespace gpuconform {

struct HealthVerdict {
    Status status = Status::Pass;
    std::string summary;
    std::string remediation;  // when not pass
    // A hardware finding in a few words, for the cause the terminal's verdict names
    // ("row remap failure — the GPU needs replacing"); "" when there is none.
    std::string finding;
};

// "cuda:3"
std::string gpu_label(const GpuHealth& g);

HealthVerdict judge_ecc(const GpuHealth& g, std::uint64_t max_uncorrected);
HealthVerdict judge_memory_remap(const GpuHealth& g, unsigned int max_retired_pages);
HealthVerdict judge_clocks(const GpuHealth& g, double slowdown_margin_c);
HealthVerdict judge_pcie_errors(const GpuHealth& g);
HealthVerdict judge_nvlink(const GpuHealth& g);
// How much each counter may grow while we run (profile keys of health.error_growth). Rates are per
// 15 minutes, DCGM's window: a shorter run is allowed one window's worth.
struct GrowthLimits {
    double pcie_replays_per_15min = 80;
    double aer_correctable_per_15min = 480;
    double nvlink_errors = 0;  // CRC, replay and recovery together, over the run
};
// One GPU's error counters read before the device layer (`before`) and after it (`after`):
// growth during our own run is a finding on this GPU.
HealthVerdict judge_error_growth(const GpuHealth& before, const GpuHealth& after, const GrowthLimits& limits);
// The whole set: count against the bus and the profile, sibling uniformity, modes.
HealthVerdict judge_inventory(const NodeHealth& node, std::optional<int> expected_gpus);

}  // namespace gpuconform
