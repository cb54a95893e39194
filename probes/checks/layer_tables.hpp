// One table per layer; each returns that layer's checks in run order.
#pragma once

#include <vector>

#include "core/check.hpp"

namespace gpuconform {

std::vector<CheckDef> host_checks();        // host/host_checks.cpp
std::vector<CheckDef> health_checks();      // health/health_checks.cpp
std::vector<CheckDef> runtime_checks();     // runtime/runtime_checks.cpp
std::vector<CheckDef> async_checks();       // async/async_checks.cpp
std::vector<CheckDef> toolchain_checks();   // toolchain/toolchain_checks.cpp (host-layer checks)
std::vector<CheckDef> acceptance_checks();  // acceptance/acceptance_checks.cpp (opt-in: --layer acceptance)

}  // namespace gpuconform
