// The health layer's checks, one `make_health_...()` each (docs/gpu-health.md).
#pragma once

#include "core/check.hpp"

namespace gpuconform {

CheckDef make_health_inventory();     // inventory.cpp
CheckDef make_health_ecc();           // ecc.cpp
CheckDef make_health_memory_remap();  // memory_remap.cpp
CheckDef make_health_clocks();        // clocks.cpp
CheckDef make_health_pcie_errors();   // pcie_errors.cpp
CheckDef make_health_nvlink();        // nvlink.cpp
CheckDef make_health_xid();           // xid_events.cpp
CheckDef make_health_error_growth();  // error_growth.cpp

// True for a check judged from a second reading made after the device layer against the first
// (NodeHealth::before), not from the first alone: health.error_growth.
bool after_device_layer(const CheckDef& def);

}  // namespace gpuconform
