// Times as reports and kept files write them: UTC, ISO 8601, to the second ("2026-12-04T15:24:13Z").
#pragma once

#include <ctime>
#include <string>

namespace gpuconform {

std::string utc_iso(std::time_t t);

}  // namespace gpuconform
