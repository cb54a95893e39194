// amdgpu's sysfs health files, parsed by pure functions (tested on fixtures written from the
// kernel's amdgpu documentation, https://docs.kernel.org/gpu/amdgpu/ras.html and
// https://docs.kernel.org/gpu/amdgpu/driver-misc.html / thermal.html).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace gpuconform {

struct RasCount {
    std::uint64_t uncorrectable = 0;  // "ue: N"
    std::uint64_t correctable = 0;    // "ce: M"
};

// ras/<block>_err_count: lines "ue: N" and "ce: M" (either order; other lines ignored).
std::optional<RasCount> parse_ras_err_count(const std::string& text);

struct BadPages {
    unsigned int reserved = 0;  // flag R: retired
    unsigned int pending = 0;   // flag P: to be retired
    unsigned int failed = 0;    // flag F: could not be retired
};

// ras/gpu_vram_bad_pages: one "pfn : size : flag" line per page, flag R, P or F.
BadPages parse_bad_pages(const std::string& text);

}  // namespace gpuconform
