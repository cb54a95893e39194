#include "reports/run_problems.hpp"

#include <algorithm>
#include <cctype>
#include <tuple>

#include <fmt/format.h>

#include "reports/report_fields.hpp"
#include "reports/report_set.hpp"

namespace gpuconform {

bool cause_names_label(const std::string& cause_result, const std::string& label) {
    const auto [id, device] = split_pair(label);
    if (cause_result == id) {
        return true;
    }
    return !device.empty() && cause_result == id + "[" + device + "]";
}

bool is_problem_status(Status s) { return s == Status::Fail || s == Status::Error || s == Status::Warn; }

std::string device_of(const CheckResult& r) { return r.device ? fmt::format("{}:{}", r.backend, *r.device) : ""; }

std::string status_counts_text(const StatusCounts& counts, const char* separator) {
    std::string out;
    for (int sev = 0; sev < static_cast<int>(counts.size()); ++sev) {
        if (counts[sev] > 0) {
            out +=
                fmt::format("{}{} {}", out.empty() ? "" : separator, counts[sev], to_string(status_at_severity(sev)));
        }
    }
    return out;
}

namespace {

std::string text_of(const nlohmann::json& j, const char* key) {
    const auto it = j.find(key);
    return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

std::vector<RunCause> causes_of(const nlohmann::json& doc) {
    std::vector<RunCause> out;
    const auto it = doc.find("causes");
    if (it == doc.end() || !it->is_array()) {
        return out;
    }
    for (const auto& c : *it) {
        if (!c.is_object()) {
            continue;
        }
        RunCause cause{text_of(c, "id"), text_of(c, "kind"), text_of(c, "title"), text_of(c, "fix"), {}};
        if (cause.title.empty()) {
            cause.title = cause.id.empty() ? cause.kind : cause.id;
        }
        if (const auto rs = c.find("results"); rs != c.end() && rs->is_array()) {
            for (const auto& r : *rs) {
                if (r.is_string()) {
                    cause.results.push_back(r.get<std::string>());
                }
            }
        }
        out.push_back(std::move(cause));
    }
    return out;
}

bool run_was(const nlohmann::json& doc, const char* flag) {
    const auto run = doc.find("run");
    if (run == doc.end() || !run->is_object()) {
        return false;
    }
    const auto line = run->find("command_line");
    return line != run->end() && line->is_array() && std::any_of(line->begin(), line->end(), [&](const auto& arg) {
               return arg.is_string() && arg.template get<std::string>() == flag;
           });
}

bool interrupted(const nlohmann::json& doc) {
    const nlohmann::json::json_pointer flag("/run/interrupted");
    return (doc.contains(flag) && doc.at(flag).is_boolean() && doc.at(flag).get<bool>()) ||
           string_at(doc, "/summary/verdict") == "interrupted";
}

// Whether a summary names another check of the report ("see async.launch.returns_early"): then
// the result follows from that one and is not the first thing to fix.
bool names_another_check(const CheckResult& r, const std::vector<CheckResult>& all) {
    const auto id_char = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.'; };
    for (const CheckResult& other : all) {
        if (other.id == r.id || other.id.empty()) {
            continue;
        }
        for (std::size_t at = r.summary.find(other.id); at != std::string::npos;
             at = r.summary.find(other.id, at + 1)) {
            const std::size_t end = at + other.id.size();
            const bool starts = at == 0 || !id_char(r.summary[at - 1]);
            // A trailing '.' ends a sentence, not an id.
            const bool ends = end == r.summary.size() || !id_char(r.summary[end]) ||
                              (r.summary[end] == '.' && (end + 1 == r.summary.size() || r.summary[end + 1] == ' '));
            if (starts && ends) {
                return true;
            }
        }
    }
    return false;
}

// Lower is acted on first.
int weight_of(Status s) { return s == Status::Fail ? 0 : s == Status::Error ? 1 : s == Status::Warn ? 2 : 3; }

void order_causes(ReportProblems& p) {
    std::vector<std::size_t> order(p.causes.size());
    std::vector<int> weight(p.causes.size(), 3);
    for (std::size_t c = 0; c < order.size(); ++c) {
        order[c] = c;
        for (const std::size_t r : p.cause_results[c]) {
            weight[c] = std::min(weight[c], weight_of(p.results[r].status));
        }
    }
    std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return weight[a] < weight[b]; });
    std::vector<RunCause> causes;
    std::vector<std::vector<std::size_t>> named;
    for (const std::size_t c : order) {
        causes.push_back(std::move(p.causes[c]));
        named.push_back(std::move(p.cause_results[c]));
    }
    p.causes = std::move(causes);
    p.cause_results = std::move(named);
}

// The root failure: fail before error, undisturbed before disturbed, a result that does not
// follow from another before one that does, then file order.
void find_headline(ReportProblems& p) {
    std::optional<std::size_t> root;
    std::tuple<int, bool, bool> best{};
    for (std::size_t i = 0; i < p.results.size(); ++i) {
        const CheckResult& r = p.results[i];
        if (r.status != Status::Fail && r.status != Status::Error) {
            continue;
        }
        const std::tuple<int, bool, bool> rank{weight_of(r.status), !r.disturbance.is_null(),
                                               names_another_check(r, p.results)};
        if (!root || rank < best) {
            root = i;
            best = rank;
        }
    }
    if (!root) {
        return;
    }
    p.headline_result = root;
    std::vector<std::size_t> explained{*root};
    for (std::size_t c = 0; c < p.causes.size() && !p.headline_cause; ++c) {
        const auto& named = p.cause_results[c];
        if (std::find(named.begin(), named.end(), *root) != named.end()) {
            p.headline_cause = c;
            explained = named;
        }
    }
    const CheckResult& r = p.results[*root];
    p.headline = p.headline_cause ? p.causes[*p.headline_cause].title
                                  : fmt::format("{} {}: {}", result_label(r.id, device_of(r)), to_string(r.status),
                                                r.summary.empty() ? "(no summary)" : r.summary);
    // Only fail and error are counted, and only those the headline does not already cover.
    StatusCounts more{};
    std::size_t total = 0;
    for (std::size_t i = 0; i < p.results.size(); ++i) {
        const Status s = p.results[i].status;
        if ((s == Status::Fail || s == Status::Error) &&
            std::find(explained.begin(), explained.end(), i) == explained.end()) {
            ++more[severity(s)];
            ++total;
        }
    }
    if (total > 0) {
        p.headline += fmt::format(" (+{} more: {})", total, status_counts_text(more));
    }
}

}  // namespace

ReportProblems read_report_problems(const nlohmann::json& doc) {
    ReportProblems p;
    if (const auto rs = doc.find("results"); rs != doc.end() && rs->is_array()) {
        for (const auto& j : *rs) {
            if (!j.is_object() || !j.contains("id") || !j["id"].is_string()) {
                continue;
            }
            CheckResult r = result_from_json_lenient(j);
            if (const auto d = j.find("disturbance"); d != j.end() && d->is_object()) {
                r.disturbance = *d;
            }
            ++p.counts[severity(r.status)];
            p.results.push_back(std::move(r));
        }
    }
    p.tally = tally_results(p.results, interrupted(doc), run_was(doc, "--strict"));
    p.verdict = verdict_of(p.tally);
    p.reason = verdict_reason(p.tally);
    // The report's own verdict knows what its results alone do not (a node with GPUs whose device
    // checks never ran, schema 1.3): it can only make a pass inconclusive, never a failure a pass.
    if (p.verdict == Verdict::Pass && string_at(doc, "/summary/verdict") == "inconclusive") {
        p.verdict = Verdict::Inconclusive;
        const std::string why = string_at(doc, "/summary/reason");
        p.reason = why.empty() ? "the run could not judge" : why;
    }
    p.causes = causes_of(doc);
    for (const RunCause& c : p.causes) {
        std::vector<std::size_t> named;
        for (std::size_t i = 0; i < p.results.size(); ++i) {
            const std::string label = join_pair(p.results[i].id, device_of(p.results[i]));
            if (std::any_of(c.results.begin(), c.results.end(),
                            [&](const std::string& ref) { return cause_names_label(ref, label); })) {
                named.push_back(i);
            }
        }
        p.cause_results.push_back(std::move(named));
    }
    order_causes(p);
    for (const Status s : {Status::Fail, Status::Error, Status::Warn}) {
        for (std::size_t i = 0; i < p.results.size(); ++i) {
            if (p.results[i].status == s) {
                p.problems.push_back(i);
            }
        }
    }
    for (std::size_t i = 0; i < p.results.size(); ++i) {
        if (!is_problem_status(p.results[i].status)) {
            p.rest.push_back(i);
            ++p.rest_counts[severity(p.results[i].status)];
        }
    }
    find_headline(p);
    return p;
}

}  // namespace gpuconform
