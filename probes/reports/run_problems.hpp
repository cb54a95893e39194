// How one run's problems read: the causes that name them, the verdict (core/run_verdict.hpp), the
// order a person acts on them in, and the headline (the root failure). The views of one report
// (render: terminal, markdown, html) are all built from read_report_problems(); the fleet's
// problems and causes are read by the report scan (report_scan.hpp).
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/result.hpp"
#include "core/run_verdict.hpp"
#include "reports/report_scan.hpp"

namespace gpuconform {

// Whether a cause's results entry ("id" or "id[cuda:0]") names this result label (join_pair(id, "cuda:0")).
bool cause_names_label(const std::string& cause_result, const std::string& label);

// fail, error and warn ask something of someone; pass, info and skip do not.
bool is_problem_status(Status s);

// Counts indexed by severity() (pass, info, skip, warn, fail, error).
using StatusCounts = std::array<std::size_t, 6>;

// "13 pass · 18 info · 24 skip": the statuses with a count, mildest first, and only those.
std::string status_counts_text(const StatusCounts& counts, const char* separator = " · ");

struct ReportProblems {
    std::vector<CheckResult> results;  // file order; `disturbance` read too
    VerdictTally tally;
    Verdict verdict = Verdict::Inconclusive;
    std::string reason;  // verdict_reason()
    // The report's causes, those naming a fail first, then an error, then a warn, then the rest;
    // with the results each names, as indices into `results`.
    std::vector<RunCause> causes;
    std::vector<std::vector<std::size_t>> cause_results;
    std::vector<std::size_t> problems;  // fail, then error, then warn; file order within each
    std::vector<std::size_t> rest;      // pass, info, skip: file order
    StatusCounts counts{};
    StatusCounts rest_counts{};
    // The root failure: one line naming its cause when one does, else the result itself, and
    // how many other fail and error results it does not explain. Empty when nothing failed or errored.
    std::string headline;
    std::optional<std::size_t> headline_cause;   // into causes
    std::optional<std::size_t> headline_result;  // into results
};

// Reads one parsed report (render's document). Tolerant: a cause or result of an odd shape is
// left out rather than refused. A result entry without a string id is skipped.
ReportProblems read_report_problems(const nlohmann::json& doc);

// "cuda:0", or "" for a host or backend-wide result.
std::string device_of(const CheckResult& r);

}  // namespace gpuconform
