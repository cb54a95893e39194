#include "render_html.hpp"

#include <fmt/format.h>

#include "report_fields.hpp"
#include "text_escape.hpp"

namespace gpuconform {

namespace {

constexpr std::array<const char*, 7> k_filter_statuses{"pass", "info", "skip", "warn", "fail", "error", "none"};

std::string filters_html(const Matrix& m) {
    std::string out = "<div class=\"filters\">\n<fieldset id=\"status-filter\"><legend>Show checks whose cell is</legend>\n";
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

std::string host_links(const Matrix& m, const ReportSet& set, const Cell& cell) {
    std::string out;
    for (std::size_t i = 0; i < cell.hosts.size() && i < k_html_hosts_per_cell; ++i) {
        const std::uint32_t run = cell.hosts[i];
        const std::string name = xml_escape(m.run_hosts[run]);
        out += set.runs[run].detail.is_null() ? "<li>" + name + "</li>"
                                              : fmt::format("<li><a href=\"#run-{}\">{}</a></li>", run, name);
    }
    if (cell.hosts.size() > k_html_hosts_per_cell) {
        out += fmt::format("<li class=\"muted\">+{} more</li>", cell.hosts.size() - k_html_hosts_per_cell);
    }
    return out;
}

std::string matrix_html(const Matrix& m, const ReportSet& set) {
    std::string out = "<table id=\"matrix\">\n<thead><tr><th>check</th>";
    for (std::size_t c = 0; c < m.columns.size(); ++c) {
        out += fmt::format("<th data-col=\"{}\">{}<br><span class=\"muted\">{} runs</span></th>", c,
                           xml_escape(m.column_title(c, " · ")), m.column_runs[c]);
    }
    out += "</tr></thead>\n<tbody>\n";
    for (std::size_t r = 0; r < m.rows.size(); ++r) {
        out += fmt::format("<tr data-check=\"{0}\"><td class=\"check\">{0}</td>", xml_escape(m.rows[r]));
        for (std::size_t c = 0; c < m.columns.size(); ++c) {
            const Cell& cell = m.cells[r][c];
            if (!cell.total()) {
                out += fmt::format("<td class=\"cell st-none\" data-col=\"{}\" data-status=\"none\">—</td>", c);
                continue;
            }
            const std::string worst = to_string(cell.worst());
            out += fmt::format("<td class=\"cell st-{0}\" data-col=\"{1}\" data-status=\"{0}\"><span class=\"worst\">{0}</span>"
                               "<span class=\"counts\">{2}</span>",
                               worst, c, xml_escape(cell.text()));
            if (!cell.hosts.empty()) {
                out += fmt::format("<details><summary>{} hosts</summary><ul>{}</ul></details>", cell.hosts.size(),
                                   host_links(m, set, cell));
            }
            out += "</td>";
        }
        out += "</tr>\n";
    }
    return out + "</tbody>\n</table>\n";
}

std::string fingerprint_html(const nlohmann::json& d) {
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
        {"GPU", string_at(d, "/devices/0/name") + " " + string_at(d, "/devices/0/arch")},
        {"run id", string_at(d, "/run_id")},
    };
    std::string out = "<table class=\"fingerprint\">";
    for (const auto& [k, v] : rows) {
        out += fmt::format("<tr><th>{}</th><td>{}</td></tr>", xml_escape(k), xml_escape(v));
    }
    return out + "</table>\n";
}

std::string run_html(std::size_t index, const nlohmann::json& d) {
    std::string out = fmt::format("<details class=\"run\" id=\"run-{}\"><summary>{} — {}</summary>\n", index,
                                  xml_escape(string_at(d, "/environment/hostname")),
                                  xml_escape(string_at(d, "/environment/distro/pretty_name")));
    out += fingerprint_html(d) + "<table class=\"results\"><tr><th>status</th><th>check</th><th>device</th>"
                                 "<th>summary</th><th>remediation</th></tr>\n";
    for (const auto& j : d.value("results", nlohmann::json::array())) {
        const CheckResult r = result_from_json_lenient(j);
        const std::string status = to_string(r.status);
        out += fmt::format("<tr><td class=\"st-{0}\">{0}</td><td class=\"check\">{1}</td><td>{2}</td><td>{3}</td><td>{4}</td></tr>\n",
                           status, xml_escape(r.id), r.device ? xml_escape(fmt::format("{}:{}", r.backend, *r.device)) : "",
                           xml_escape(r.summary), xml_escape(r.remediation));
    }
    return out + "</table></details>\n";
}

}  // namespace

std::string render_html(const Matrix& m, const ReportSet& set) {
    std::string body = fmt::format("<h1>gpuconform matrix</h1>\n<p id=\"totals\">{} runs in {} groups, {} checks; {} of {} inputs rejected.</p>\n",
                                   m.run_hosts.size(), m.columns.size(), m.rows.size(), m.rejected.size(), m.files_seen);
    if (!m.rejected.empty()) {
        body += "<h2>Rejected inputs (not rolled up)</h2>\n<ul id=\"rejected\" class=\"rejected\">\n";
        for (const Rejected& r : m.rejected) {
            body += fmt::format("<li><code>{}</code>: {}</li>\n", xml_escape(r.path), xml_escape(r.reason));
        }
        body += "</ul>\n";
    }
    body += filters_html(m) + matrix_html(m, set);
    body += "<h2>Bandwidth against transfer size</h2>\n" + bandwidth_charts_html(m, set);
    body += "<h2>Copy/compute overlap</h2>\n" + timeline_charts_html(set);
    body += "<h2>Hosts</h2>\n";
    std::size_t shown = 0;
    for (std::size_t i = 0; i < set.runs.size(); ++i) {
        if (!set.runs[i].detail.is_null()) {
            body += run_html(i, set.runs[i].detail);
            ++shown;
        }
    }
    if (shown < set.runs.size()) {
        body += fmt::format("<p class=\"muted\">Details shown for the first {} of {} runs; the matrix counts all of them.</p>\n",
                            shown, set.runs.size());
    }
    return html_page("gpuconform matrix", body);
}

}  // namespace gpuconform
