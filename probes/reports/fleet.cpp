#include "reports/fleet.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "reports/fleet_traits.hpp"
#include "reports/run_problems.hpp"
#include "reports/text_escape.hpp"

namespace gpuconform {

namespace {

std::string group_of(const ReportSet& set, const RunEntry& run) {
    const GroupValues& g = set.groups_of(run);
    const std::string& distro = g[static_cast<int>(GroupKey::Distro)];
    const std::string& gpu = g[static_cast<int>(GroupKey::Gpu)];
    return (distro.empty() ? "(unknown)" : distro) + " · " + (gpu.empty() ? "(unknown)" : gpu);
}

// The order a node's problems are told in: what decided its verdict first (core/run_verdict.hpp).
int rank(const RunProblem& p) {
    switch (p.status) {
        case Status::Fail:
            return p.disturbance.empty() ? 0 : 2;
        case Status::Error:
            return 1;
        case Status::Warn:
            return 3;
        default:
            return 4;  // skip
    }
}

bool blocks(Status s) { return s == Status::Fail || s == Status::Error; }

// Problems of a run in that order: the full ones when read, else the statuses alone.
std::vector<RunProblem> problems_of(const RunEntry& run) {
    std::vector<RunProblem> out = run.problems;
    if (out.empty()) {
        for (const ResultEntry& r : run.results) {
            if (severity(r.status) > severity(Status::Info)) {
                out.push_back({r.label, r.status, "", r.disturbed ? "another GPU user" : "", ""});
            }
        }
    }
    std::stable_sort(out.begin(), out.end(),
                     [](const RunProblem& a, const RunProblem& b) { return rank(a) < rank(b); });
    return out;
}

VerdictTally tally_of(const ReportSet& set, const RunEntry& run) {
    VerdictTally t;
    t.interrupted = run.interrupted;
    for (const ResultEntry& r : run.results) {
        // The id matters only to a skip (an acceptance part skipped): split only those.
        const std::string id = r.status == Status::Skip ? split_pair(set.labels.at(r.label)).first : std::string();
        t.add(id, r.status, r.disturbed);
    }
    return t;
}

// The result's own words, once: its summary less a leading restatement of its id ("id: fail").
std::string own_words(const std::string& id, Status status, std::string_view summary) {
    if (summary.starts_with(id)) {
        summary.remove_prefix(id.size());
        while (!summary.empty() && (summary.front() == ':' || summary.front() == ' ')) {
            summary.remove_prefix(1);
        }
    }
    return summary == to_string(status) ? "" : std::string(summary);
}

std::string reason_of(const ReportSet& set, const RunEntry& run, const std::vector<RunProblem>& problems,
                      const VerdictTally& tally) {
    if (run.results.empty()) {
        return "the report holds no results";
    }
    std::size_t blocking = 0;
    std::size_t warnings = 0;  // skips are neither: nothing was judged, nothing is asked
    for (const RunProblem& p : problems) {
        blocking += blocks(p.status) ? 1 : 0;
        warnings += p.status == Status::Warn ? 1 : 0;
    }
    if (blocking + warnings == 0) {
        if (tally.judged == 0 || tally.interrupted || tally.acceptance_skipped > 0) {
            return verdict_reason(tally);
        }
        const std::size_t skipped = run.results.size() - tally.judged;
        return (tally.judged == 1 ? std::string("the one judged result is pass or info")
                                  : fmt::format("all {} judged results pass or info", tally.judged)) +
               (skipped ? fmt::format(" ({} skipped)", skipped) : "");
    }
    const RunProblem& first = problems.front();
    const auto [id, device] = split_pair(set.labels.at(first.label));
    std::string out = (tally.interrupted ? "the run was interrupted; " : "") + result_label(id, device) + " " +
                      to_string(first.status);
    if (const std::string words = own_words(id, first.status, first.summary); !words.empty()) {
        out += ": " + words;
    }
    if (!first.disturbance.empty()) {
        out += " (disturbed: " + first.disturbance + ")";
    }
    const bool first_blocks = blocks(first.status);
    std::vector<std::string> more;
    if (blocking > 1) {
        more.push_back(fmt::format("+{} more fail/error", blocking - 1));
    }
    if (warnings > (first_blocks ? 0 : 1)) {
        more.push_back(fmt::format("+{} {}warn", warnings - (first_blocks ? 0 : 1), first_blocks ? "" : "more "));
    }
    for (std::size_t i = 0; i < more.size(); ++i) {
        out += (i == 0 ? " (" : ", ") + more[i] + (i + 1 == more.size() ? ")" : "");
    }
    return out;
}

// What the check-grouped causes learn from their results: a title in the status's words, and a fix.
struct CheckEvidence {
    bool failed = false;
    bool errored = false;
    std::map<std::string, std::size_t> fixes;  // remediation -> results that gave it
};

std::string check_title(const std::string& check, const CheckEvidence& e) {
    return check + (e.failed && e.errored ? " failed or could not run (error)"
                    : e.failed            ? " failed"
                                          : " could not run (error)");
}

std::string most_common(const std::map<std::string, std::size_t>& counts) {
    const auto it = std::max_element(counts.begin(), counts.end(),
                                     [](const auto& a, const auto& b) { return a.second < b.second; });
    return it == counts.end() ? "" : it->first;
}

// Each cause's traits line, from the runs' fingerprints interned once: a fleet has few distinct ones.
void describe_causes(const ReportSet& set, std::vector<FleetCause>& causes) {
    std::map<Fingerprint, std::uint32_t> ids;
    std::vector<std::uint32_t> print_of_group(set.group_values.size());
    std::vector<Fingerprint> prints;
    for (std::size_t g = 0; g < set.group_values.size(); ++g) {
        Fingerprint fp;
        for (std::size_t k = 0; k < k_trait_keys.size(); ++k) {
            fp[k] = set.group_values[g][static_cast<int>(k_trait_keys[k])];
        }
        const auto [it, fresh] = ids.emplace(fp, static_cast<std::uint32_t>(prints.size()));
        if (fresh) {
            prints.push_back(std::move(fp));
        }
        print_of_group[g] = it->second;
    }
    std::vector<std::size_t> fleet(prints.size(), 0);
    for (const RunEntry& run : set.runs) {
        ++fleet[print_of_group[run.groups]];
    }
    for (FleetCause& c : causes) {
        std::vector<std::size_t> in_cause(prints.size(), 0);
        for (const std::uint32_t r : c.runs) {
            ++in_cause[print_of_group[set.runs[r].groups]];
        }
        std::vector<FingerprintCount> counts;
        for (std::size_t p = 0; p < prints.size(); ++p) {
            counts.push_back({prints[p], fleet[p], in_cause[p]});
        }
        c.traits = traits_line(cause_traits(counts));
    }
}

}  // namespace

Fleet build_fleet(const ReportSet& set) {
    Fleet f;
    std::map<std::string, std::uint32_t> cause_ids;   // kind + id, or "check" + check id
    std::map<std::uint32_t, CheckEvidence> evidence;  // of the causes grouped by check
    const auto cause_index = [&](const std::string& key, FleetCause proto) {
        const auto [it, fresh] = cause_ids.emplace(key, static_cast<std::uint32_t>(f.causes.size()));
        if (fresh) {
            f.causes.push_back(std::move(proto));
        }
        return it->second;
    };
    for (std::uint32_t i = 0; i < set.runs.size(); ++i) {
        const RunEntry& run = set.runs[i];
        NodeVerdict v;
        v.run = i;
        v.host = set.groups_of(run)[static_cast<int>(GroupKey::Host)];
        v.group = group_of(set, run);
        const std::vector<RunProblem> problems = problems_of(run);
        const VerdictTally tally = tally_of(set, run);
        v.verdict = verdict_of(tally);
        v.worst = run.results.empty() ? Status::Error : Status::Pass;
        for (const ResultEntry& r : run.results) {
            v.worst = severity(r.status) > severity(v.worst) ? r.status : v.worst;
        }
        v.disturbed =
            std::any_of(problems.begin(), problems.end(), [](const RunProblem& p) { return !p.disturbance.empty(); });
        v.reason = reason_of(set, run, problems, tally);
        f.failed += v.verdict == Verdict::Fail ? 1 : 0;
        f.inconclusive += v.verdict == Verdict::Inconclusive ? 1 : 0;
        f.disturbed += v.disturbed ? 1 : 0;
        // Each fail or error goes to the causes that name it, else to its check.
        for (const RunProblem& p : problems) {
            if (!blocks(p.status)) {
                continue;
            }
            bool explained = false;
            for (const RunCause& c : run.causes) {
                const bool names = std::any_of(c.results.begin(), c.results.end(), [&](const std::string& r) {
                    return cause_names_label(r, set.labels.at(p.label));
                });
                if (names) {
                    v.causes.push_back(cause_index(join_pair(c.kind, c.id.empty() ? c.title : c.id),
                                                   {c.id, c.kind, c.title, c.fix, "", {}}));
                    explained = true;
                }
            }
            if (!explained) {
                const std::string check = split_pair(set.labels.at(p.label)).first;
                const std::uint32_t c = cause_index(join_pair("check", check), {check, "check", "", "", "", {}});
                CheckEvidence& e = evidence[c];
                (p.status == Status::Fail ? e.failed : e.errored) = true;
                if (!p.remediation.empty()) {
                    ++e.fixes[p.remediation];
                }
                v.causes.push_back(c);
            }
        }
        std::sort(v.causes.begin(), v.causes.end());
        v.causes.erase(std::unique(v.causes.begin(), v.causes.end()), v.causes.end());
        for (const std::uint32_t c : v.causes) {
            f.causes[c].runs.push_back(i);
        }
        f.nodes.push_back(std::move(v));
    }
    for (const auto& [c, e] : evidence) {
        f.causes[c].title = check_title(f.causes[c].id, e);
        f.causes[c].fix = most_common(e.fixes);
    }
    describe_causes(set, f.causes);
    // Most nodes first; the node lists keep run order. Nodes point at causes by index, so remap.
    std::vector<std::uint32_t> order(f.causes.size());
    for (std::uint32_t c = 0; c < order.size(); ++c) {
        order[c] = c;
    }
    std::stable_sort(order.begin(), order.end(),
                     [&](auto a, auto b) { return f.causes[a].runs.size() > f.causes[b].runs.size(); });
    std::vector<std::uint32_t> new_index(order.size());
    std::vector<FleetCause> sorted;
    for (std::uint32_t k = 0; k < order.size(); ++k) {
        new_index[order[k]] = k;
        sorted.push_back(std::move(f.causes[order[k]]));
    }
    f.causes = std::move(sorted);
    for (NodeVerdict& v : f.nodes) {
        for (auto& c : v.causes) {
            c = new_index[c];
        }
        std::sort(v.causes.begin(), v.causes.end());
    }
    return f;
}

std::string cause_text(const FleetCause& c) { return c.traits.empty() ? c.title : c.title + " — " + c.traits; }

namespace {

// Fail first, then inconclusive, then pass; by host within each: the lines to act on lead.
int verdict_rank(Verdict v) { return v == Verdict::Fail ? 0 : v == Verdict::Inconclusive ? 1 : 2; }

}  // namespace

std::string render_acceptance_terminal(const Fleet& f, const std::vector<Rejected>& rejected, bool colour) {
    std::string out =
        fmt::format("Acceptance of {} nodes: {} fail, {} inconclusive, {} pass ({} disturbed by another GPU user)\n\n",
                    f.nodes.size(), f.failed, f.inconclusive, f.passed(), f.disturbed);
    std::size_t width = 4;
    for (const NodeVerdict& v : f.nodes) {
        width = std::max(width, terminal_safe(v.host).size());
    }
    std::vector<const NodeVerdict*> order;
    for (const NodeVerdict& v : f.nodes) {
        order.push_back(&v);
    }
    std::stable_sort(order.begin(), order.end(), [](const NodeVerdict* a, const NodeVerdict* b) {
        const int ra = verdict_rank(a->verdict);
        const int rb = verdict_rank(b->verdict);
        return ra != rb ? ra < rb : a->host < b->host;
    });
    out += fmt::format("{:<12} {:<{}} {}\n", "verdict", "host", width, "reason");
    for (const NodeVerdict* v : order) {
        const std::string verdict = fmt::format("{:<12}", to_string(v->verdict));
        const char* paint = v->verdict == Verdict::Fail           ? "\x1b[31m"
                            : v->verdict == Verdict::Inconclusive ? "\x1b[35m"
                            : v->worst == Status::Warn            ? "\x1b[33m"
                                                                  : "\x1b[32m";
        out += fmt::format("{} {:<{}} {}\n", colour ? paint + verdict + "\x1b[0m" : verdict, terminal_safe(v->host),
                           width, terminal_safe(v->reason));
    }
    if (!f.causes.empty()) {
        out += "\nRoot causes:\n";
        for (const FleetCause& c : f.causes) {
            out += fmt::format("  {} node{}: {}{}\n", c.runs.size(), c.runs.size() == 1 ? "" : "s",
                               terminal_safe(c.title), c.fix.empty() ? "" : " — fix: " + terminal_safe(c.fix));
            if (!c.traits.empty()) {
                out += "      " + terminal_safe(c.traits) + "\n";
            }
        }
    }
    if (!rejected.empty()) {
        out += "\nRejected inputs (no verdict):\n";
        for (const Rejected& r : rejected) {
            out += fmt::format("  {}: {}\n", terminal_safe(r.path), terminal_safe(r.reason));
        }
    }
    return out;
}

std::string render_acceptance_csv(const Fleet& f, const std::vector<Rejected>& rejected) {
    std::string out = "host,group,verdict,worst,disturbed,causes,reason\r\n";
    for (const NodeVerdict& v : f.nodes) {
        std::string causes;  // causes' own lines hold "; ", so causes are kept apart by " | "
        for (const std::uint32_t c : v.causes) {
            causes += (causes.empty() ? "" : " | ") + cause_text(f.causes[c]);
        }
        out += fmt::format("{},{},{},{},{},{},{}\r\n", csv_field(v.host), csv_field(v.group), to_string(v.verdict),
                           to_string(v.worst), v.disturbed ? "yes" : "no", csv_field(causes), csv_field(v.reason));
    }
    for (const Rejected& r : rejected) {
        out += fmt::format("{},,unreadable,,,,{}\r\n", csv_field(r.path), csv_field(r.reason));
    }
    return out;
}

}  // namespace gpuconform
