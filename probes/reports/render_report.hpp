// Views of a single run report (`gpuconform render`).
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "reports/report_set.hpp"

namespace gpuconform {

// Reads and checks one report: JSON, schema "gpuconform-report", major version 1.
// On failure returns nullopt and says why in `error`.
std::optional<nlohmann::json> load_report(const std::string& path, std::string& error);

// Same check on a parsed document; "" when it is a report this reader understands.
std::string report_header_error(const nlohmann::json& doc);

// terminal, markdown, csv, json, junit, prometheus, html, timings, verdict. `path` is read again for html.
// `only_problems`: only fail, error and warn results are shown; the verdict and causes are still
// those of the whole run (timings shows phases and is the same either way).
std::string render_report(const nlohmann::json& doc, const std::string& format, bool colour, const std::string& path,
                          bool only_problems = false);

// Terminal and Markdown open with the verdict, the root failure and the causes with their fixes,
// then failures, errors and warnings, then the other results (only counted with `only_problems`).
std::string render_report_terminal(const nlohmann::json& doc, bool colour, bool only_problems = false);
std::string render_report_markdown(const nlohmann::json& doc, bool only_problems = false);
// The single-report page (html_report.cpp); `set` holds the one report, read with detail and
// measurements. `only_problems` leaves out the folded other results and the charts.
std::string render_report_page(const nlohmann::json& doc, const ReportSet& set, bool only_problems);
// The document with only its fail, error and warn results (and those of unknown status).
nlohmann::json only_problem_results(const nlohmann::json& doc);
// `-f verdict`: {verdict, reason, host, run_id, interrupted, judged, deciding, failing,
// inconclusive}, the one verdict rule's answer for scripts (ci/fleet/gpuconform_verdict.py).
nlohmann::json report_verdict_json(const nlohmann::json& doc);
// One line per result: id,layer,backend,device,status,summary,remediation,duration_s.
std::string render_report_csv(const nlohmann::json& doc);

}  // namespace gpuconform
