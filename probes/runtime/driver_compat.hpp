// The rule the runtime layer applies to driver and runtime versions, as pure functions.
#pragma once

#include <optional>
#include <string>

#include "core/result.hpp"

namespace gpuconform {

struct CompatVerdict {
    Status status;
    std::string summary;
    std::string remediation;
};

// CUDA (CUDA Compatibility guide, "Minor Version Compatibility"; toolkit release notes table 3):
// the driver's CUDA version ≥ the runtime's passes; otherwise a runtime of the same major runs on
// a driver at least that major's minimum kernel-module version (minor-version compatibility);
// anything else fails. Versions are CUDA's encoding (13000 = 13.0); kernel_module is e.g. "580.159.04".
CompatVerdict judge_cuda_compat(int driver_api, int runtime, const std::string& kernel_module);

// The minimum kernel-module version for minor-version compatibility within a CUDA major, or "".
std::string cuda_minor_compat_minimum(int major);

// -1, 0, 1 comparing dotted numeric versions ("580.65.06" vs "580.159.04").
int compare_dotted(const std::string& a, const std::string& b);

}  // namespace gpuconform
