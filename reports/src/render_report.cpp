#include "render_report.hpp"

#include <filesystem>

#include <fmt/format.h>

#include "junit.hpp"
#include "matrix.hpp"
#include "render_html.hpp"
#include "render_phases.hpp"
#include "render_prometheus.hpp"
#include "report_fields.hpp"
#include "report_scan.hpp"
#include "text_escape.hpp"

namespace gpuconform {

std::string report_header_error(const nlohmann::json& doc) {
    if (!doc.is_object() || doc.value("schema", "") != "gpuconform-report") {
        return "not a gpuconform report";
    }
    const std::string version = doc.value("schema_version", "");
    if (version.substr(0, version.find('.')) != "1") {
        return "unknown schema major version '" + version + "' (this reader knows 1.x)";
    }
    if (!doc.contains("results") || !doc["results"].is_array()) {
        return "report has no results array";
    }
    return "";
}

std::optional<nlohmann::json> load_report(const std::string& path, std::string& error) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) {
        error = "is a folder; render shows one report file (matrix rolls a folder up)";
        return std::nullopt;
    }
    // The same acceptance test as matrix and diff, then the whole document for the views.
    std::string text;
    if (!read_report_file(path, false, text, error)) {
        return std::nullopt;
    }
    try {
        nlohmann::json doc = nlohmann::json::parse(text);
        error = report_header_error(doc);
        if (error.empty()) {
            return doc;
        }
    } catch (const nlohmann::json::exception& e) {
        error = std::string("not valid JSON: ") + e.what();
    }
    return std::nullopt;
}

namespace {

std::string device_of(const CheckResult& r) { return r.device ? fmt::format("{}:{}", r.backend, *r.device) : ""; }

std::string header_line(const nlohmann::json& doc) {
    return fmt::format("{} · {} · {} · run {}", string_at(doc, "/environment/hostname"),
                       string_at(doc, "/environment/distro/pretty_name"), gpu_model(doc), string_at(doc, "/run/id"));
}

}  // namespace

std::string render_report_terminal(const nlohmann::json& doc, bool colour) {
    std::string out = terminal_safe(header_line(doc)) + "\n\n";
    for (const auto& j : doc.at("results")) {
        const CheckResult r = result_from_json_lenient(j);
        const std::string status = fmt::format("{:<5}", to_string(r.status));
        const char* paint = r.status == Status::Pass                                ? "\x1b[32m"
                            : r.status == Status::Fail || r.status == Status::Error ? "\x1b[31m"
                            : r.status == Status::Warn                              ? "\x1b[33m"
                                                                                    : "\x1b[2m";
        out += fmt::format("{} {:<40} {:<8} {}\n", colour ? paint + status + "\x1b[0m" : status, terminal_safe(r.id),
                           terminal_safe(device_of(r)), terminal_safe(r.summary));
        if (r.status != Status::Pass && !r.remediation.empty()) {
            out += fmt::format("      → {}\n", terminal_safe(r.remediation));
        }
    }
    return out;
}

std::string render_report_markdown(const nlohmann::json& doc) {
    std::string out = "# gpuconform report: " + markdown_cell(header_line(doc)) +
                      "\n\n| status | check | device | summary | remediation |\n|---|---|---|---|---|\n";
    for (const auto& j : doc.at("results")) {
        const CheckResult r = result_from_json_lenient(j);
        out += fmt::format("| **{}** | `{}` | {} | {} | {} |\n", to_string(r.status), markdown_cell(r.id),
                           markdown_cell(device_of(r)), markdown_cell(r.summary), markdown_cell(r.remediation));
    }
    return out;
}

std::string render_report_csv(const nlohmann::json& doc) {
    std::string out = "id,layer,backend,device,status,summary,remediation,duration_s\r\n";
    for (const auto& j : doc.at("results")) {
        const CheckResult r = result_from_json_lenient(j);
        out += fmt::format("{},{},{},{},{},{},{},{}\r\n", csv_field(r.id), csv_field(r.layer), csv_field(r.backend),
                           r.device ? std::to_string(*r.device) : "", to_string(r.status), csv_field(r.summary),
                           csv_field(r.remediation), r.duration_s);
    }
    return out;
}

std::string render_report(const nlohmann::json& doc, const std::string& format, bool colour, const std::string& path) {
    if (format == "markdown") {
        return render_report_markdown(doc);
    }
    if (format == "csv") {
        return render_report_csv(doc);
    }
    if (format == "json") {
        return doc.dump(2) + "\n";
    }
    if (format == "junit") {
        return render_junit(doc);
    }
    if (format == "prometheus") {
        return render_report_prometheus(doc);
    }
    if (format == "timings") {
        return render_phases(doc);
    }
    if (format == "html") {
        ReadOptions read;
        read.measurements = true;
        read.detail_runs = 1;
        read.problems = true;
        return render_report_html(doc, read_reports({path}, read));
    }
    return render_report_terminal(doc, colour);
}

}  // namespace gpuconform
