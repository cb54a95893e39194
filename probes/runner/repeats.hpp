// `run --repeat N`: the device checks run N times; each check's N results fold into one so a
// before/after pair carries enough repetitions for `diff` to judge noise (reports/README.md).
#pragma once

#include <vector>

#include "core/result.hpp"

namespace gpuconform {

// Folds results with the same id, backend and device (in order) into the first: the worst
// status (and its summary), each measurement's median of the repetitions' values with the
// outer min..max, n summed, and every repetition's value kept in `samples`.
std::vector<CheckResult> fold_repeats(std::vector<CheckResult> results, int repetitions);

}  // namespace gpuconform
