// Views of a single run report (`gpuconform render`).
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace gpuconform {

// Reads and checks one report: JSON, schema "gpuconform-report", major version 1.
// On failure returns nullopt and says why in `error`.
std::optional<nlohmann::json> load_report(const std::string& path, std::string& error);

// Same check on a parsed document; "" when it is a report this reader understands.
std::string report_header_error(const nlohmann::json& doc);

// terminal, markdown, csv, json, junit, prometheus, html. `path` is read again for html.
std::string render_report(const nlohmann::json& doc, const std::string& format, bool colour, const std::string& path);

std::string render_report_terminal(const nlohmann::json& doc, bool colour);
std::string render_report_markdown(const nlohmann::json& doc);
// One line per result: id,layer,backend,device,status,summary,remediation,duration_s.
std::string render_report_csv(const nlohmann::json& doc);

}  // namespace gpuconform
