#include "reports/render_report.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>

#include <fmt/format.h>

#include "reports/junit.hpp"
#include "reports/matrix.hpp"
#include "reports/render_html.hpp"
#include "reports/render_phases.hpp"
#include "reports/render_prometheus.hpp"
#include "reports/report_fields.hpp"
#include "reports/report_scan.hpp"
#include "reports/run_problems.hpp"
#include "reports/text_escape.hpp"

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

std::string header_line(const nlohmann::json& doc) {
    return fmt::format("{} · {} · {} · run {}", string_at(doc, "/environment/hostname"),
                       string_at(doc, "/environment/distro/pretty_name"), gpu_model(doc), string_at(doc, "/run/id"));
}

std::string name_of(const CheckResult& r) { return result_label(r.id, device_of(r)); }

// The first few results a cause explains, then how many more.
std::string explained_names(const ReportProblems& p, std::size_t cause, std::string (*safe)(std::string_view)) {
    constexpr std::size_t k_listed = 4;
    const auto& named = p.cause_results[cause];
    std::string out;
    for (std::size_t k = 0; k < named.size() && k < k_listed; ++k) {
        out += (k ? ", " : "") + safe(name_of(p.results[named[k]]));
    }
    if (named.size() > k_listed) {
        out += fmt::format(" and {} more", named.size() - k_listed);
    }
    return out.empty() ? "(no result of this report)" : out;
}

std::string others_line(const ReportProblems& p) {
    return fmt::format("{} other result{}: {}", p.rest.size(), p.rest.size() == 1 ? "" : "s",
                       status_counts_text(p.rest_counts));
}

std::string terminal_line(const CheckResult& r, bool colour) {
    const std::string status = fmt::format("{:<5}", to_string(r.status));
    const char* paint = r.status == Status::Pass                                ? "\x1b[32m"
                        : r.status == Status::Fail || r.status == Status::Error ? "\x1b[31m"
                        : r.status == Status::Warn                              ? "\x1b[33m"
                                                                                : "\x1b[2m";
    std::string out = fmt::format("{} {:<40} {:<8} {}\n", colour ? paint + status + "\x1b[0m" : status,
                                  terminal_safe(r.id), terminal_safe(device_of(r)), terminal_safe(r.summary));
    if (r.status != Status::Pass && !r.remediation.empty()) {
        out += fmt::format("      → {}\n", terminal_safe(r.remediation));
    }
    return out;
}

std::string markdown_table(const ReportProblems& p, const std::vector<std::size_t>& rows) {
    std::string out = "| status | check | device | summary | remediation |\n|---|---|---|---|---|\n";
    for (const std::size_t i : rows) {
        const CheckResult& r = p.results[i];
        out += fmt::format("| **{}** | `{}` | {} | {} | {} |\n", to_string(r.status), markdown_cell(r.id),
                           markdown_cell(device_of(r)), markdown_cell(r.summary), markdown_cell(r.remediation));
    }
    return out;
}

}  // namespace

std::string render_report_terminal(const nlohmann::json& doc, bool colour, bool only_problems) {
    const ReportProblems p = read_report_problems(doc);
    std::string out = terminal_safe(header_line(doc)) + "\n\n";
    std::string verdict = to_string(p.verdict);
    std::transform(verdict.begin(), verdict.end(), verdict.begin(), ::toupper);
    const char* paint = p.verdict == Verdict::Pass ? "\x1b[32m" : p.verdict == Verdict::Fail ? "\x1b[31m" : "\x1b[33m";
    out += fmt::format("verdict: {} — {}\n", colour ? paint + verdict + "\x1b[0m" : verdict, terminal_safe(p.reason));
    if (!p.headline.empty()) {
        out += "root failure: " + terminal_safe(p.headline) + "\n";
    }
    if (!p.causes.empty()) {
        out += fmt::format("\nCauses ({}):\n", p.causes.size());
        for (std::size_t c = 0; c < p.causes.size(); ++c) {
            const RunCause& cause = p.causes[c];
            out += fmt::format("  * {}{}\n    explains: {}\n", terminal_safe(cause.title),
                               cause.kind.empty() ? "" : " [" + terminal_safe(cause.kind) + "]",
                               explained_names(p, c, terminal_safe));
            if (!cause.fix.empty()) {
                out += "    fix: " + terminal_safe(cause.fix) + "\n";
            }
        }
    }
    if (!p.problems.empty()) {
        out += fmt::format("\nFailures, errors and warnings ({}):\n", p.problems.size());
        for (const std::size_t i : p.problems) {
            out += terminal_line(p.results[i], colour);
        }
    }
    if (only_problems) {
        return p.rest.empty() ? out : out + "\n" + others_line(p) + " (not shown: --only-problems)\n";
    }
    if (!p.rest.empty()) {
        out += fmt::format("\nOther results ({}):\n", status_counts_text(p.rest_counts));
        for (const std::size_t i : p.rest) {
            out += terminal_line(p.results[i], colour);
        }
    }
    return out;
}

std::string render_report_markdown(const nlohmann::json& doc, bool only_problems) {
    const ReportProblems p = read_report_problems(doc);
    std::string out = "# gpuconform report: " + markdown_cell(header_line(doc)) + "\n\n";
    out += fmt::format("**Verdict: {}** — {}\n", to_string(p.verdict), markdown_cell(p.reason));
    if (!p.headline.empty()) {
        out += "\n**Root failure:** " + markdown_cell(p.headline) + "\n";
    }
    if (!p.causes.empty()) {
        out += "\n## Causes\n\n";
        for (std::size_t c = 0; c < p.causes.size(); ++c) {
            const RunCause& cause = p.causes[c];
            out += fmt::format("{}. **{}**{}<br>explains: {}", c + 1, markdown_cell(cause.title),
                               cause.kind.empty() ? "" : " (" + markdown_cell(cause.kind) + ")",
                               explained_names(p, c, markdown_cell));
            out += cause.fix.empty() ? "\n" : "<br>fix: " + markdown_cell(cause.fix) + "\n";
        }
    }
    if (!p.problems.empty()) {
        out += fmt::format("\n## Failures, errors and warnings ({})\n\n", p.problems.size()) +
               markdown_table(p, p.problems);
    }
    if (only_problems) {
        return p.rest.empty() ? out : out + "\n" + others_line(p) + " (not shown: `--only-problems`)\n";
    }
    if (!p.rest.empty()) {
        out +=
            fmt::format("\n## Other results ({})\n\n", status_counts_text(p.rest_counts)) + markdown_table(p, p.rest);
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

nlohmann::json only_problem_results(const nlohmann::json& doc) {
    nlohmann::json out = doc;
    nlohmann::json kept = nlohmann::json::array();
    for (const auto& j : doc.at("results")) {
        // An unknown status reads as error (result_from_json_lenient), so it is kept.
        const auto status = j.is_object() && j.contains("status") && j["status"].is_string()
                                ? status_from_string(j["status"].get<std::string>())
                                : std::nullopt;
        if (!status || is_problem_status(*status)) {
            kept.push_back(j);
        }
    }
    out["results"] = std::move(kept);
    return out;
}

std::string render_report(const nlohmann::json& doc, const std::string& format, bool colour, const std::string& path,
                          bool only_problems) {
    if (format == "terminal") {
        return render_report_terminal(doc, colour, only_problems);
    }
    if (format == "markdown") {
        return render_report_markdown(doc, only_problems);
    }
    if (format == "html") {
        ReadOptions read;
        read.measurements = true;
        read.detail_runs = 1;
        read.problems = true;
        return render_report_page(doc, read_reports({path}, read), only_problems);
    }
    if (format == "timings") {  // phases, not results: nothing to leave out
        return render_phases(doc);
    }
    if (format == "verdict") {  // the whole run's verdict: nothing to leave out either
        return report_verdict_json(doc).dump() + "\n";
    }
    // The other views list results; the summary (and its verdict) stays that of the whole run.
    const nlohmann::json shown = only_problems ? only_problem_results(doc) : nlohmann::json();
    const nlohmann::json& d = only_problems ? shown : doc;
    if (format == "csv") {
        return render_report_csv(d);
    }
    if (format == "json") {
        return d.dump(2) + "\n";
    }
    if (format == "junit") {
        return render_junit(d);
    }
    if (format == "prometheus") {
        return render_report_prometheus(d);
    }
    return render_report_terminal(doc, colour, only_problems);
}

}  // namespace gpuconform
