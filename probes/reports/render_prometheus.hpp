// Prometheus text exposition (format 0.0.4) for node_exporter's textfile collector.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "reports/matrix.hpp"

namespace gpuconform {

// One run: gpuconform_info{host,distro,kernel,driver,gpu} 1 (host facts in one series),
// gpuconform_build_info{version}, gpuconform_last_run_{timestamp_seconds,duration_seconds,
// exit_status}, gpuconform_check_status{check,device,status} 0/1 per status (the state-set
// pattern, so alerts can match status="fail"), and one metric per measured quantity in base
// units, labelled by check, device and what the measurement's name says (prometheus_names.hpp).
std::string render_report_prometheus(const nlohmann::json& report);

// A roll-up: gpuconform_matrix_results{check,<group keys>,status} = how many results, for
// each status seen (absent means none).
std::string render_matrix_prometheus(const Matrix& m);

}  // namespace gpuconform
