// Small helpers shared by the occupancy providers.
#pragma once

#include <string>
#include <vector>

#include "occupancy/other_process.hpp"

namespace gpuconform {

// /proc/<pid>/comm without the newline, made valid UTF-8; "" when unreadable (another PID
// namespace, or the process has gone).
std::string process_name(const std::string& root, int pid);

// Adds `p` to `list`, or fills in what an entry for the same pid lacks.
void merge_process(std::vector<OtherProcess>& list, const OtherProcess& p);

}  // namespace gpuconform
