// `render -f verdict`: one report's verdict as one JSON object, for scripts (the Slurm health
// check, the Kubernetes marker). The report was accepted by read_report_file (unknown statuses,
// wrong types and broken JSON are refused before this) and judged by the one rule
// (core/run_verdict.hpp) through read_report_problems, as every other view of one report.
#include <fmt/format.h>

#include "render_report.hpp"
#include "report_fields.hpp"
#include "run_problems.hpp"

namespace gpuconform {

namespace {

// "async.copy.bandwidth cuda:0", or the id alone for a host or backend-wide result.
std::string result_name(const CheckResult& r) {
    const std::string device = device_of(r);
    return device.empty() ? r.id : r.id + " " + device;
}

bool disturbed(const CheckResult& r) { return !r.disturbance.is_null() && !r.disturbance.empty(); }

// The title of the first cause naming result `i`, else null.
nlohmann::json cause_title(const ReportProblems& p, std::size_t i) {
    for (std::size_t c = 0; c < p.causes.size(); ++c) {
        for (const std::size_t named : p.cause_results[c]) {
            if (named == i) {
                return p.causes[c].title;
            }
        }
    }
    return nullptr;
}

nlohmann::json result_json(const ReportProblems& p, std::size_t i) {
    const CheckResult& r = p.results[i];
    nlohmann::json disturbance = nullptr;
    if (disturbed(r)) {
        const auto s = r.disturbance.is_object() ? r.disturbance.find("summary") : r.disturbance.end();
        disturbance = s != r.disturbance.end() && s->is_string() ? *s : nlohmann::json("another GPU user");
    }
    return {{"name", result_name(r)},        {"check", r.id},        {"device", device_of(r)},
            {"status", to_string(r.status)}, {"summary", r.summary}, {"disturbance", disturbance},
            {"cause", cause_title(p, i)}};
}

}  // namespace

nlohmann::json report_verdict_json(const nlohmann::json& doc) {
    const ReportProblems p = read_report_problems(doc);
    std::vector<std::size_t> failed, unsure;
    for (std::size_t i = 0; i < p.results.size(); ++i) {
        const CheckResult& r = p.results[i];
        if (r.status == Status::Fail && !disturbed(r)) {
            failed.push_back(i);
        } else if (r.status == Status::Error || r.status == Status::Fail) {
            unsure.push_back(i);
        }
    }
    // The result that decided: the first undisturbed failure, else the first error or disturbed one.
    nlohmann::json deciding = nullptr;
    if (p.verdict == Verdict::Fail && !failed.empty()) {
        deciding = result_json(p, failed.front());
    } else if (p.verdict == Verdict::Inconclusive && !unsure.empty()) {
        deciding = result_json(p, unsure.front());
    }
    nlohmann::json failing = nlohmann::json::array();
    for (const std::size_t i : failed) {
        failing.push_back(result_name(p.results[i]));
    }
    nlohmann::json inconclusive = nlohmann::json::array();
    for (const std::size_t i : unsure) {
        inconclusive.push_back(result_name(p.results[i]));
    }
    return {{"schema", "gpuconform-verdict"},
            {"schema_version", "1.0"},
            {"verdict", to_string(p.verdict)},
            {"reason", p.reason},
            {"host", string_at(doc, "/environment/hostname")},
            {"run_id", string_at(doc, "/run/id")},
            {"interrupted", p.tally.interrupted},
            {"judged", p.tally.judged},
            {"deciding", deciding},
            {"failing", failing},
            {"inconclusive", inconclusive}};
}

}  // namespace gpuconform
