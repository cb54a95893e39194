// The key figures of each stored report, one row per figure and device (schema migration 2):
// what baselines, outliers and drift read, indexed, instead of parsing every report again.
#pragma once

#include <string>
#include <vector>

#include "store/database.hpp"
#include "reports/report_scan.hpp"

namespace gpuconform::store {

// "580" from "580.95.05": the part of a driver version before its first dot.
std::string driver_branch(const std::string& driver_version);

// Writes the key figures (today's declaration in core/measure_meaning, else the report's own
// `role`) of `report`, stored under its run id. `report` must have been scanned with measurements.
void insert_figures(Database& db, const ScannedReport& report);
// The same for many reports, their figures in as few statements as SQLite's parameter limit allows.
void insert_figures(Database& db, const std::vector<const ScannedReport*>& reports);

}  // namespace gpuconform::store
