// Upgrade-readiness checks (host layer): GPU compilers, the next boot's kernel module, the driver
// against every CUDA runtime. Each `make_...()` is one line in toolchain_checks.cpp's table.
#pragma once

#include <string>

#include "core/check.hpp"
#include "host/verdict.hpp"

namespace gpuconform {

CheckDef make_toolchain_cuda_compile();                                 // cuda_compile.cpp
CheckDef make_toolchain_hip_compile();                                  // hip_compile.cpp
CheckDef make_upgrade_next_boot(const std::string& root = "/");         // next_boot.cpp
CheckDef make_upgrade_cuda_runtimes(const std::string& root = "/");     // cuda_runtimes.cpp
CheckDef make_upgrade_amd_code_objects(const std::string& root = "/");  // amd_code_objects.cpp

}  // namespace gpuconform
