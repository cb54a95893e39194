#include "fleet.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "run_problems.hpp"
#include "text_escape.hpp"

namespace gpuconform {

namespace {

std::string label_text(const ReportSet& set, std::uint32_t label) {
    const auto [id, device] = split_pair(set.labels.at(label));
    return result_label(id, device);
}

std::string group_of(const ReportSet& set, const RunEntry& run) {
    const GroupValues& g = set.groups_of(run);
    const std::string& distro = g[static_cast<int>(GroupKey::Distro)];
    const std::string& gpu = g[static_cast<int>(GroupKey::Gpu)];
    return (distro.empty() ? "(unknown)" : distro) + " · " + (gpu.empty() ? "(unknown)" : gpu);
}

// Problems of a run, most severe first: the full ones when read, else the statuses alone.
std::vector<RunProblem> problems_of(const RunEntry& run) {
    std::vector<RunProblem> out = run.problems;
    if (out.empty()) {
        for (const ResultEntry& r : run.results) {
            if (severity(r.status) > severity(Status::Info)) {
                out.push_back({r.label, r.status, "", ""});
            }
        }
    }
    std::stable_sort(out.begin(), out.end(),
                     [](const RunProblem& a, const RunProblem& b) { return severity(a.status) > severity(b.status); });
    return out;
}

std::string reason_of(const ReportSet& set, const RunEntry& run, const std::vector<RunProblem>& problems) {
    if (run.results.empty()) {
        return "the report holds no results";
    }
    std::size_t blocking = 0;
    std::size_t warnings = 0;
    for (const RunProblem& p : problems) {
        (severity(p.status) >= severity(Status::Fail) ? blocking : warnings) += 1;
    }
    if (problems.empty()) {
        return fmt::format("all {} results pass or info", run.results.size());
    }
    const RunProblem& first = problems.front();
    std::string out = fmt::format("{} {}", label_text(set, first.label), to_string(first.status));
    if (!first.summary.empty()) {
        out += ": " + first.summary;
    }
    if (!first.disturbance.empty()) {
        out += " (disturbed: " + first.disturbance + ")";
    }
    const std::size_t more = (blocking ? blocking : warnings) - 1;
    if (more > 0) {
        out += fmt::format(" (+{} more {})", more, blocking ? "fail/error" : "warn");
    }
    return out;
}

}  // namespace

Fleet build_fleet(const ReportSet& set) {
    Fleet f;
    std::map<std::string, std::uint32_t> cause_ids;  // kind + id, or "check" + check id
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
        v.worst = run.results.empty() ? Status::Error : problems.empty() ? Status::Pass : problems.front().status;
        v.accepted = !run.results.empty() && severity(v.worst) < severity(Status::Fail);
        v.disturbed =
            std::any_of(problems.begin(), problems.end(), [](const RunProblem& p) { return !p.disturbance.empty(); });
        v.reason = reason_of(set, run, problems);
        f.failed += v.worst == Status::Fail ? 1 : 0;
        f.errored += v.worst == Status::Error ? 1 : 0;
        f.disturbed += v.disturbed ? 1 : 0;
        // Each blocking problem goes to the causes that name it, else to its check.
        for (const RunProblem& p : problems) {
            if (severity(p.status) < severity(Status::Fail)) {
                continue;
            }
            bool explained = false;
            for (const RunCause& c : run.causes) {
                const bool names = std::any_of(c.results.begin(), c.results.end(), [&](const std::string& r) {
                    return cause_names_label(r, set.labels.at(p.label));
                });
                if (names) {
                    v.causes.push_back(cause_index(c.kind + '\x1f' + (c.id.empty() ? c.title : c.id),
                                                   {c.id, c.kind, c.title, c.fix, {}}));
                    explained = true;
                }
            }
            if (!explained) {
                const std::string check = split_pair(set.labels.at(p.label)).first;
                v.causes.push_back(
                    cause_index("check\x1f" + check, {check, "check", check + " failed or errored", "", {}}));
            }
        }
        std::sort(v.causes.begin(), v.causes.end());
        v.causes.erase(std::unique(v.causes.begin(), v.causes.end()), v.causes.end());
        for (const std::uint32_t c : v.causes) {
            f.causes[c].runs.push_back(i);
        }
        f.nodes.push_back(std::move(v));
    }
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

std::string render_acceptance_terminal(const Fleet& f, const std::vector<Rejected>& rejected, bool colour) {
    std::string out =
        fmt::format("Acceptance: {} of {} nodes rejected ({} failed, {} errored; {} disturbed by another GPU user)\n\n",
                    f.rejected_nodes(), f.nodes.size(), f.failed, f.errored, f.disturbed);
    std::size_t width = 4;
    for (const NodeVerdict& v : f.nodes) {
        width = std::max(width, terminal_safe(v.host).size());
    }
    std::vector<const NodeVerdict*> order;
    for (const NodeVerdict& v : f.nodes) {
        order.push_back(&v);
    }
    // Rejected first, then by host name: the lines that need action lead.
    std::stable_sort(order.begin(), order.end(), [](const NodeVerdict* a, const NodeVerdict* b) {
        return a->accepted != b->accepted ? !a->accepted : a->host < b->host;
    });
    out += fmt::format("{:<8} {:<{}} {}\n", "verdict", "host", width, "reason");
    for (const NodeVerdict* v : order) {
        const std::string verdict = fmt::format("{:<8}", v->accepted ? "accepted" : "rejected");
        const char* paint = v->accepted ? (v->worst == Status::Warn ? "\x1b[33m" : "\x1b[32m") : "\x1b[31m";
        out += fmt::format("{} {:<{}} {}\n", colour ? paint + verdict + "\x1b[0m" : verdict, terminal_safe(v->host),
                           width, terminal_safe(v->reason));
    }
    if (!f.causes.empty()) {
        out += "\nRoot causes:\n";
        for (const FleetCause& c : f.causes) {
            out += fmt::format("  {} node{}: {}{}\n", c.runs.size(), c.runs.size() == 1 ? "" : "s",
                               terminal_safe(c.title), c.fix.empty() ? "" : " — fix: " + terminal_safe(c.fix));
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
        std::string causes;
        for (const std::uint32_t c : v.causes) {
            causes += (causes.empty() ? "" : "; ") + f.causes[c].title;
        }
        out += fmt::format("{},{},{},{},{},{},{}\r\n", csv_field(v.host), csv_field(v.group),
                           v.accepted ? "accepted" : "rejected", to_string(v.worst), v.disturbed ? "yes" : "no",
                           csv_field(causes), csv_field(v.reason));
    }
    for (const Rejected& r : rejected) {
        out += fmt::format("{},,unreadable,,,,{}\r\n", csv_field(r.path), csv_field(r.reason));
    }
    return out;
}

}  // namespace gpuconform
