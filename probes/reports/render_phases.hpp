// Where a run's time went: the report's run.phases as a terminal table (`run --timings`,
// `render -f timings`), with the slowest checks and the overlap of the framework layer's
// start-up with the device checks.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace gpuconform {

// A report without run.phases (before schema 1.2) gets a line saying so, not an error.
std::string render_phases(const nlohmann::json& report);

// Seconds in which the framework layer's start-up (framework.python_start, framework.torch_import;
// the GPU's, framework.gpu_start, once gpuconform allowed it) ran while the device checks did
// (device.checks); 0 when either is missing. framework.driver_start is left out: it runs beside
// the import, which already counts.
double framework_overlap_s(const nlohmann::json& phases);

}  // namespace gpuconform
