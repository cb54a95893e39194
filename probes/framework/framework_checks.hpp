// The framework layer's checks as rows of declarations: id, description, profile keys and
// measurement meanings. They have no `run`: pytest runs them (framework_layer.hpp).
#pragma once

#include <vector>

#include "core/check.hpp"

namespace gpuconform {

// framework.torch (the layer itself: its calibration key) first, then each pytest check in run order.
std::vector<CheckDef> framework_checks();

}  // namespace gpuconform
