// `--sim-devices N` within what the host can hold: every simulated GPU is host memory (its worker
// keeps its copy buffers, pinned host and simulated device memory, across checks), so 64 of them
// once filled a 24 GB machine until the kernel killed processes. The run refuses what would not
// fit, before any check, saying how much it needs and how much there is.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace gpuconform {

// What one simulated GPU's worker held in a full run (256 MiB copy buffers, on the host and in
// simulated device memory): about 0.8 GB each with --sim-devices 64.
inline constexpr std::uint64_t k_sim_bytes_per_device = std::uint64_t{800} << 20;

// /proc/meminfo's MemAvailable in bytes; nullopt when it cannot be read.
std::optional<std::uint64_t> mem_available_bytes();

// "" when `devices` simulated GPUs fit in `available` bytes (unknown: not refused, the kernel
// knows best); otherwise why not, in words for the operator.
std::string sim_capacity_problem(int devices, std::optional<std::uint64_t> available);

}  // namespace gpuconform
