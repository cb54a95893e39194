#include "reports/render_html.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "reports/report_fields.hpp"
#include "reports/text_escape.hpp"

namespace gpuconform {

namespace {

constexpr std::array<const char*, 7> k_filter_statuses{"pass", "info", "skip", "warn", "fail", "error", "none"};

bool is_problem(const Cell& cell) { return cell.total() > 0 && severity(cell.worst()) >= severity(Status::Warn); }

std::string filters_html(const Matrix& m, bool problems) {
    std::string out = fmt::format(
        "<div class=\"filters\">\n<label class=\"toggle\"><input type=\"checkbox\" id=\"problems-only\"{}> "
        "problems only (warn, fail, error)</label>\n"
        "<fieldset id=\"status-filter\"><legend>Show checks whose cell is</legend>\n",
        problems ? " checked" : "");
    for (const char* s : k_filter_statuses) {
        out += fmt::format("<label class=\"st-{0}\"><input type=\"checkbox\" value=\"{0}\" checked> {1}</label>\n", s,
                           std::string(s) == "none" ? "no result" : s);
    }
    out += "</fieldset>\n<label>Group <select id=\"group-filter\"><option value=\"all\">all groups</option>\n";
    for (std::size_t c = 0; c < m.columns.size(); ++c) {
        out += fmt::format("<option value=\"{}\">{}</option>\n", c, xml_escape(m.column_title(c)));
    }
    return out + "</select></label>\n<span><span id=\"shown-count\">" + std::to_string(m.rows.size()) +
           "</span> checks shown</span>\n</div>\n";
}

std::string host_href(const ReportSet& set, std::uint32_t run) {
    return set.runs[run].detail.is_null() ? fmt::format("#node-{}", run) : fmt::format("#run-{}", run);
}

std::string host_links(const Matrix& m, const ReportSet& set, const Cell& cell) {
    std::string out;
    for (std::size_t i = 0; i < cell.hosts.size() && i < k_html_hosts_per_cell; ++i) {
        const std::uint32_t run = cell.hosts[i];
        out += fmt::format("<li><a href=\"{}\">{}</a></li>", host_href(set, run), xml_escape(m.run_hosts[run]));
    }
    if (cell.hosts.size() > k_html_hosts_per_cell) {
        out += fmt::format("<li class=\"muted\">+{} more</li>", cell.hosts.size() - k_html_hosts_per_cell);
    }
    return out;
}

// Counts of the statuses that ask something of someone; the rest fold into "N ok".
std::string problem_counts(const Cell& cell) {
    std::string out;
    std::uint32_t ok = 0;
    for (std::size_t sev = 0; sev < k_status_count; ++sev) {
        const Status s = status_at_severity(static_cast<int>(sev));
        if (cell.counts[sev] == 0) {
            continue;
        }
        if (severity(s) >= severity(Status::Warn)) {
            out += fmt::format("{}{} {}", out.empty() ? "" : " · ", cell.counts[sev], to_string(s));
        } else {
            ok += cell.counts[sev];
        }
    }
    return out.empty() ? fmt::format("{} ok", ok)
                       : out + (ok ? fmt::format(" <span class=\"muted\">/ {} ok</span>", ok) : "");
}

// Two short lines and the run count, which never wraps: a column of narrow cells stays one header high.
std::string column_head(const Matrix& m, std::size_t c, bool problem) {
    std::string lines;
    for (const std::string& v : m.columns[c]) {
        lines += "<span>" + xml_escape(v.empty() ? "(unknown)" : v) + "</span>";
    }
    return fmt::format(
        "<th data-col=\"{}\" data-problem=\"{}\" title=\"{} ({} runs)\"><div class=\"colhead\">{}</div>"
        "<span class=\"muted\">{}&nbsp;runs</span></th>",
        c, problem ? 1 : 0, xml_escape(m.column_title(c)), m.column_runs[c], lines, m.column_runs[c]);
}

std::string matrix_html(const Matrix& m, const ReportSet& set) {
    std::vector<bool> column_problem(m.columns.size(), false);
    for (const auto& row : m.cells) {
        for (std::size_t c = 0; c < row.size(); ++c) {
            column_problem[c] = column_problem[c] || is_problem(row[c]);
        }
    }
    std::string out =
        "<div class=\"matrix-wrap\" id=\"matrix-wrap\"><table id=\"matrix\">\n<thead><tr><th "
        "class=\"corner\">check</th>";
    for (std::size_t c = 0; c < m.columns.size(); ++c) {
        out += column_head(m, c, column_problem[c]);
    }
    out += "</tr></thead>\n<tbody>\n";
    for (std::size_t r = 0; r < m.rows.size(); ++r) {
        const bool row_problem = std::any_of(m.cells[r].begin(), m.cells[r].end(), is_problem);
        out += fmt::format("<tr data-check=\"{0}\" data-problem=\"{1}\"><th class=\"check\" scope=\"row\">{0}</th>",
                           xml_escape(m.rows[r]), row_problem ? 1 : 0);
        for (std::size_t c = 0; c < m.columns.size(); ++c) {
            const Cell& cell = m.cells[r][c];
            if (!cell.total()) {
                out += fmt::format("<td class=\"cell st-none\" data-col=\"{}\" data-status=\"none\">—</td>", c);
                continue;
            }
            const std::string worst = to_string(cell.worst());
            const std::string causes = m.cell_causes(cell);
            out +=
                fmt::format("<td class=\"cell st-{0}\" data-col=\"{1}\" data-status=\"{0}\" title=\"{2}\">", worst, c,
                            xml_escape(m.rows[r] + " in " + m.column_title(c) + ": " + cell.text() +
                                       (causes.empty() ? "" : "; causes: " + causes)));
            if (cell.hosts.empty()) {
                out += "<span class=\"counts\">" + problem_counts(cell) + "</span>";
            } else {
                out += fmt::format("<details><summary class=\"counts\">{}</summary>{}<ul>{}</ul></details>",
                                   problem_counts(cell),
                                   causes.empty() ? "" : "<p class=\"cause\">" + xml_escape(causes) + "</p>",
                                   host_links(m, set, cell));
            }
            out += "</td>";
        }
        out += "</tr>\n";
    }
    return out + "</tbody>\n</table></div>\n";
}

}  // namespace

std::string fingerprint_html(const nlohmann::json& d) {
    std::string gpus;
    for (const auto& dev : d.value("devices", nlohmann::json::array())) {
        gpus += (gpus.empty() ? "" : "; ") + fmt::format("{} {} {}",
                                                         string_at(dev, "/backend") + ":" + string_at(dev, "/index"),
                                                         string_at(dev, "/name"), string_at(dev, "/arch"));
    }
    const std::vector<std::pair<const char*, std::string>> rows = {
        {"host", string_at(d, "/environment/hostname")},
        {"distro", string_at(d, "/environment/distro/pretty_name")},
        {"kernel", string_at(d, "/environment/kernel")},
        {"glibc", string_at(d, "/environment/glibc")},
        {"CPU", string_at(d, "/environment/cpu/model")},
        {"memlock soft (bytes; empty = unlimited)", string_at(d, "/environment/limits/memlock_soft_bytes")},
        {"container", string_at(d, "/environment/container")},
        {"backend", string_at(d, "/backends/0/name")},
        {"driver", string_at(d, "/backends/0/driver_version")},
        {"runtime", string_at(d, "/backends/0/runtime_version")},
        {"torch", string_at(d, "/environment/torch/version")},
        {"GPUs", gpus.empty() ? "none" : gpus},
        {"run id", string_at(d, "/run_id")},
    };
    std::string out = "<table class=\"fingerprint\">";
    for (const auto& [k, v] : rows) {
        out += fmt::format("<tr><th>{}</th><td>{}</td></tr>", xml_escape(k), xml_escape(v));
    }
    return out + "</table>\n";
}

namespace {

std::string run_html(std::size_t index, const nlohmann::json& d) {
    std::string out = fmt::format("<details class=\"run\" id=\"run-{}\"><summary>{} — {}</summary>\n", index,
                                  xml_escape(string_at(d, "/environment/hostname")),
                                  xml_escape(string_at(d, "/environment/distro/pretty_name")));
    out += fingerprint_html(d) +
           "<table class=\"results\"><tr><th>status</th><th>check</th><th>device</th>"
           "<th>summary</th><th>remediation</th></tr>\n";
    for (const auto& j : d.value("results", nlohmann::json::array())) {
        const CheckResult r = result_from_json_lenient(j);
        const std::string status = to_string(r.status);
        out += fmt::format(
            "<tr><td class=\"st-{0}\">{0}</td><td class=\"check\">{1}</td><td>{2}</td><td>{3}</td><td>{4}</td></tr>\n",
            status, xml_escape(r.id), r.device ? xml_escape(fmt::format("{}:{}", r.backend, *r.device)) : "",
            xml_escape(r.summary), xml_escape(r.remediation));
    }
    return out + "</table></details>\n";
}

// The fleet page's own rules; the shared ones are in html_page.cpp.
constexpr const char* k_fleet_css =
    "<style>ol.causes .traits { margin: 0.15em 0; color: #124; } ol.causes summary { cursor: pointer; color: #036; }\n"
    "ol.causes .nodes { display: block; margin: 0.3em 0 0.3em 1em; }\n"
    "td.verdict-fail { color: #a00; font-weight: 700; } td.verdict-inconclusive { color: #a50; font-weight: 700; }\n"
    "td.verdict-pass { color: #060; } td.causes .traits { color: #555; font-size: 0.9em; }\n"
    "#fleet-counts { white-space: nowrap; }</style>\n";

// The counts that open every fleet page, top right: each verdict, out of how many nodes.
std::string fleet_counts_html(const Fleet& f) {
    return fmt::format(
        "<div id=\"fleet-counts\" class=\"counts-box{}\"><strong><span id=\"count-fail\">{}</span> fail · "
        "<span id=\"count-inconclusive\">{}</span> inconclusive · <span id=\"count-pass\">{}</span> pass</strong>"
        "<br>of <span id=\"count-nodes\">{}</span> nodes; <span id=\"count-disturbed\">{}</span> disturbed by "
        "another GPU user</div>\n",
        f.failed + f.inconclusive ? " bad" : " good", f.failed, f.inconclusive, f.passed(), f.nodes.size(),
        f.disturbed);
}

// Each cause: its title and fix, what its nodes share, and the nodes folded behind it.
std::string causes_html(const Fleet& f) {
    if (f.causes.empty()) {
        return "<p id=\"no-causes\">No node has a failing or erroring result.</p>\n";
    }
    std::string out = "<ol id=\"causes\" class=\"causes\">\n";
    for (std::size_t c = 0; c < f.causes.size(); ++c) {
        const FleetCause& cause = f.causes[c];
        out += fmt::format(
            "<li id=\"cause-{0}\" data-cause=\"{0}\"><strong>{1}</strong> <span class=\"muted\">({2})</span>", c,
            xml_escape(cause.title), xml_escape(cause.kind));
        if (!cause.fix.empty()) {
            out += "<br>Fix: " + xml_escape(cause.fix);
        }
        if (!cause.traits.empty()) {
            out += "<p class=\"traits\"><span class=\"muted\">Where:</span> " + xml_escape(cause.traits) + "</p>";
        }
        out += fmt::format("<details class=\"hosts\"><summary>{} host{}</summary><span class=\"nodes\">",
                           cause.runs.size(), cause.runs.size() == 1 ? "" : "s");
        for (std::size_t i = 0; i < cause.runs.size() && i < k_html_nodes_per_cause; ++i) {
            out += fmt::format("<a class=\"node\" href=\"#node-{}\">{}</a> ", cause.runs[i],
                               xml_escape(f.nodes[cause.runs[i]].host));
        }
        if (cause.runs.size() > k_html_nodes_per_cause) {
            out += fmt::format("<a href=\"#nodes\">+{} more in the node list</a>",
                               cause.runs.size() - k_html_nodes_per_cause);
        }
        out += "</span></details></li>\n";
    }
    return out + "</ol>\n";
}

// Sorts descending to fail first (the table's sort reads data-key).
int verdict_key(Verdict v) { return v == Verdict::Fail ? 2 : v == Verdict::Inconclusive ? 1 : 0; }

// Node table rows: the acceptance record, or on the fleet page the nodes that do not pass.
std::string node_table_html(const Fleet& f, const ReportSet& set, bool all) {
    std::string out =
        "<table id=\"nodes\" class=\"nodes sortable\"><thead><tr><th data-sort=\"text\">host</th>"
        "<th data-sort=\"text\">group</th><th data-sort=\"severity\">verdict</th><th data-sort=\"severity\">worst</th>"
        "<th data-sort=\"text\">reason</th><th data-sort=\"text\">root causes</th></tr></thead>\n<tbody>\n";
    std::size_t rows = 0;
    // Fail first, then inconclusive, then by host: the printed record leads with what to act on.
    std::vector<const NodeVerdict*> order;
    for (const NodeVerdict& v : f.nodes) {
        order.push_back(&v);
    }
    std::stable_sort(order.begin(), order.end(), [](const NodeVerdict* a, const NodeVerdict* b) {
        const int ka = verdict_key(a->verdict);
        const int kb = verdict_key(b->verdict);
        return ka != kb ? ka > kb : a->host < b->host;
    });
    for (const NodeVerdict* vp : order) {
        const NodeVerdict& v = *vp;
        if (!all && v.verdict == Verdict::Pass && !v.disturbed) {
            continue;
        }
        std::string causes;
        for (const std::uint32_t c : v.causes) {
            causes += fmt::format("<div><a href=\"#cause-{}\">{}</a>{}</div>", c, xml_escape(f.causes[c].title),
                                  !all || f.causes[c].traits.empty()  // the fleet page has them in its causes
                                      ? ""
                                      : "<br><span class=\"traits\">" + xml_escape(f.causes[c].traits) + "</span>");
        }
        const std::string host = set.runs[v.run].detail.is_null()
                                     ? xml_escape(v.host)
                                     : fmt::format("<a href=\"#run-{}\">{}</a>", v.run, xml_escape(v.host));
        out += fmt::format(
            "<tr id=\"node-{0}\" data-verdict=\"{1}\"><td class=\"host\">{2}</td><td>{3}</td>"
            "<td class=\"verdict verdict-{1}\" data-key=\"{8}\">{1}</td><td class=\"st-{4}\" "
            "data-key=\"{5}\">{4}</td><td>{6}</td><td class=\"causes\">{7}</td></tr>\n",
            v.run, to_string(v.verdict), host, xml_escape(v.group), to_string(v.worst), severity(v.worst),
            xml_escape(v.reason), causes, verdict_key(v.verdict));
        ++rows;
    }
    if (rows == 0) {
        return "<p class=\"muted\">Every node passes.</p>\n";
    }
    return out + "</tbody></table>\n";
}

std::string rejected_inputs_html(const std::vector<Rejected>& rejected) {
    if (rejected.empty()) {
        return "";
    }
    std::string out = "<h2>Rejected inputs (not rolled up)</h2>\n<ul id=\"rejected\" class=\"rejected\">\n";
    for (const Rejected& r : rejected) {
        out += fmt::format("<li><code>{}</code>: {}</li>\n", xml_escape(r.path), xml_escape(r.reason));
    }
    return out + "</ul>\n";
}

std::string hosts_html(const ReportSet& set) {
    std::string out = "<h2>Hosts</h2>\n";
    std::size_t shown = 0;
    for (std::size_t i = 0; i < set.runs.size(); ++i) {
        if (!set.runs[i].detail.is_null()) {
            out += run_html(i, set.runs[i].detail);
            ++shown;
        }
    }
    if (shown < set.runs.size()) {
        out += fmt::format(
            "<p class=\"muted\">Details shown for the first {} of {} runs; the matrix counts all of them.</p>\n", shown,
            set.runs.size());
    }
    return out;
}

bool has_problem_cell(const Matrix& m) {
    return std::any_of(m.cells.begin(), m.cells.end(),
                       [](const auto& row) { return std::any_of(row.begin(), row.end(), is_problem); });
}

}  // namespace

std::string render_html(const Matrix& m, const ReportSet& set) {
    const Fleet f = build_fleet(set);
    std::string body =
        "<header class=\"top\"><div><h1>gpuconform fleet</h1>\n" +
        fmt::format("<p id=\"totals\">{} runs in {} groups, {} checks; {} of {} inputs rejected.</p></div>\n",
                    m.run_hosts.size(), m.columns.size(), m.rows.size(), m.rejected.size(), m.files_seen) +
        fleet_counts_html(f) + "</header>\n" + k_fleet_css;
    body += rejected_inputs_html(m.rejected);
    body += "<h2>Root causes</h2>\n" + causes_html(f);
    body += "<h2>Nodes that fail or are inconclusive</h2>\n" + node_table_html(f, set, false);
    if (!set.declines.is_null()) {
        body += "<h2>Slow declines</h2>\n" + declines_html(set.declines);
    }
    body += "<h2>Matrix</h2>\n" + filters_html(m, has_problem_cell(m)) + matrix_html(m, set);
    body += "<h2>Bandwidth against transfer size</h2>\n" + bandwidth_charts_html(m, set);
    body += "<h2>Copy/compute overlap</h2>\n" + overlap_charts_html(set);
    body += "<h2>Identical GPUs side by side</h2>\n" + sibling_charts_html(set);
    body += "<h2>Night over night</h2>\n" + trend_charts_html(set);
    body += hosts_html(set);
    return html_page("gpuconform fleet", body);
}

std::string render_acceptance_html(const Fleet& f, const Matrix& m, const ReportSet& set) {
    std::string body =
        "<header class=\"top\"><div><h1>gpuconform acceptance record</h1>\n" +
        fmt::format("<p id=\"totals\">{} nodes; {} of {} inputs rejected.</p></div>\n", f.nodes.size(),
                    m.rejected.size(), m.files_seen) +
        fleet_counts_html(f) + "</header>\n" + k_fleet_css +
        "<p id=\"rule\">A node fails when a check failed on an undisturbed measurement; it is inconclusive when its "
        "run was interrupted, a check could not run (error), a failure was measured on a busy GPU, or nothing was "
        "judged; else it passes (a warn passes).</p>\n";
    body += rejected_inputs_html(m.rejected);
    body += "<p class=\"noprint muted\">Click a column header to sort.</p>\n" + node_table_html(f, set, true);
    body += "<h2>Root causes</h2>\n" + causes_html(f);
    body +=
        "<p class=\"signature\">Checked by: ____________________ &nbsp; Date: ____________ &nbsp; Rack: "
        "____________</p>\n";
    return html_page("gpuconform acceptance record", body);
}

}  // namespace gpuconform
