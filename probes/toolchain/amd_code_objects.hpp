// Each AMD GPU's gfx target against the targets the installed rocBLAS carries code objects for.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "host/verdict.hpp"

namespace gpuconform {

// KFD's "gfx_target_version 90402" -> "gfx942" (major*10000 + minor*100 + stepping; minor and
// stepping print in hex: 90010 -> gfx90a); "" for 0 (a CPU node).
std::string gfx_name_from_target_version(long version);

// The gfx targets of the GPU nodes in /sys/class/kfd/kfd/topology/nodes/*/properties.
std::vector<std::string> scan_kfd_targets(const std::string& root);

// gfx tokens in library file names ("TensileLibrary_lazy_gfx90a.dat", "Kernels.so-000-gfx1030.hsaco").
std::set<std::string> targets_in_file_names(const std::vector<std::string>& names);

struct RocmLibrary {
    std::string dir;  // ".../rocblas/library"
    std::set<std::string> targets;
};
// rocBLAS library folders below `root`: Debian's /usr/lib/x86_64-linux-gnu/rocblas/*/library and
// AMD's /opt/rocm*/lib/rocblas/library.
std::vector<RocmLibrary> scan_rocblas(const std::string& root);

Verdict judge_amd_code_objects(const std::vector<std::string>& gpu_targets, const std::vector<RocmLibrary>& libs);

}  // namespace gpuconform
