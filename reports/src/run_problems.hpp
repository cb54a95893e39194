// The parts of a report that explain its problems: each non-pass result's summary and optional
// `disturbance`, and the report's optional top-level `causes`. Old reports lack the optional
// fields; then a run simply has no causes.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "report_set.hpp"

namespace gpuconform {

// Fills entry.problems (labels interned into `labels`) and entry.causes from the parsed document.
void read_run_problems(const nlohmann::json& doc, StringTable& labels, RunEntry& entry);

// Whether a cause's results entry ("id" or "id[cuda:0]") names this result label ("id\x1fcuda:0").
bool cause_names_label(const std::string& cause_result, const std::string& label);

}  // namespace gpuconform
