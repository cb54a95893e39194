// Prometheus text exposition (format 0.0.4) for node_exporter's textfile collector.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "matrix.hpp"

namespace gpuconform {

// One run: gpuconform_check_status{check,device,gpu,distro,host,status} 0/1 per status (the
// state-set pattern, so alerts can match status="fail"), and gpuconform_measurement{check,
// device,name,unit,gpu,distro,host} per measured value.
std::string render_report_prometheus(const nlohmann::json& report);

// A roll-up: gpuconform_matrix_results{check,<group keys>,status} = how many results, for
// each status seen (absent means none).
std::string render_matrix_prometheus(const Matrix& m);

}  // namespace gpuconform
