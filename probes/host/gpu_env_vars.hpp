// Every environment variable that changes GPU behaviour and that gpuconform records and judges:
// one table (docs/environment-variables.md cites each vendor source). A check whose outcome a set
// variable can change gets an attribution naming the variable instead of blaming the install.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace gpuconform {

struct GpuEnvVar {
    std::string_view name;                 // exact name, or a family ending in '*' ("HSA_*")
    std::string_view vendor;               // "nvidia", "amd", "pytorch", "nccl", "glibc"
    std::string_view kind;                 // a cause kind: "debugger", "env_var", "hidden_gpus"
    bool warn;                             // host.env warns when it is set (DCGM's list, interposers, serializing)
    std::string_view effect;               // what it changes, one line
    std::vector<std::string_view> checks;  // check id globs whose outcome it can change, or the word below
    std::string_view source;               // the vendor's documentation
};

// In GpuEnvVar::checks: every check whose CheckDef sets timing_sensitive (what changes timing).
inline constexpr std::string_view k_timing_sensitive_checks = "@timing_sensitive";
// Likewise: every check whose CheckDef says its verdict rests on asynchrony, or on error
// reporting, and every check that runs on a GPU (a device layer: runtime, async, acceptance).
inline constexpr std::string_view k_asynchrony_checks = "@asynchrony";
inline constexpr std::string_view k_error_reporting_checks = "@error_reporting";
inline constexpr std::string_view k_device_checks = "@device";

const std::vector<GpuEnvVar>& gpu_env_vars();

// The table entry that covers `name` (exact match first, then a family), or nullptr.
const GpuEnvVar* find_gpu_env_var(std::string_view name);

// The entries of LD_LIBRARY_PATH (a ':'-separated list) that hold a GPU driver or runtime library
// (libcuda.so.1, libnvidia-ml.so.1, libamdhip64.so*, libhsa-runtime64.so.1) ahead of the system's,
// each as "dir/lib". `root` prefixes the paths (tests).
std::vector<std::string> shadowing_library_dirs(const std::string& ld_library_path, const std::string& root = "/");

}  // namespace gpuconform
