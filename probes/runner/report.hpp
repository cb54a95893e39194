// Assembles the JSON report (reports/schema/report-v1.schema.json) from one run's parts.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/backend_info.hpp"
#include "core/environment.hpp"
#include "core/phase_log.hpp"
#include "core/result.hpp"

namespace gpuconform {

// 1.1: causes, gpu_occupancy, disturbance, timing_sensitive; measurement direction, role, samples
// 1.2: run.phases
// 1.3: summary.verdict "inconclusive" (core/run_verdict.hpp; was "interrupted" for a stopped run,
//      and "fail" for a run that only errored) and summary.reason; environment.framework_python
constexpr const char* k_report_schema_version = "1.3";

struct RunRecord {
    std::string run_id;
    std::string started;  // ISO 8601 UTC
    std::string finished;
    double duration_s = 0;
    std::vector<std::string> command_line;
    std::vector<std::string> layers;
    std::vector<std::string> profile_sources;
    bool interrupted = false;
    bool strict = false;                // --strict: a warn fails the run
    bool device_layer_missing = false;  // GPUs on the bus, the async layer chosen, none of its checks judged
    int exit_status = 0;
    Environment env;
    nlohmann::json torch;             // null when the framework layer did not run
    nlohmann::json framework_python;  // which Python ran the framework layer and why; null when it did not
    std::vector<BackendInfo> backends;
    std::vector<CheckResult> results;
    nlohmann::json gpu_occupancy;  // per GPU, the first reading of its other users; null when not read
    nlohmann::json causes;         // group_causes(); null when not grouped
    std::vector<Phase> phases;     // where the time went, in the order stamped
};

nlohmann::json build_report(const RunRecord& run);

// Exit status of `gpuconform run`: 0 nothing failed, 1 a check failed or errored (or warned,
// with strict), 130 interrupted.
int exit_status_for(const std::vector<CheckResult>& results, bool strict, bool interrupted);

std::string utc_now_iso();
std::string utc_now_compact();  // 20261129T151500Z, for file names
std::string new_run_id();

}  // namespace gpuconform
