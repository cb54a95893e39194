// One report as its own page: the fingerprint, a verdict line, then every result with its
// summary, remediation, measurements and disturbance in full (nothing collapsed).
#include <fmt/format.h>

#include "fleet.hpp"
#include "render_html.hpp"
#include "report_fields.hpp"
#include "text_escape.hpp"

namespace gpuconform {

namespace {

std::string optional_number(const nlohmann::json& m, const char* key) {
    const auto it = m.find(key);
    return it != m.end() && it->is_number() ? fmt::format("{:.6g}", it->get<double>()) : "";
}

std::string measurements_html(const nlohmann::json& j) {
    const auto it = j.find("measurements");
    if (it == j.end() || !it->is_array() || it->empty()) {
        return "";
    }
    std::string out =
        "<table "
        "class=\"measurements\"><tr><th>measurement</th><th>value</th><th>unit</th><th>n</th><th>min</th><th>max</th></"
        "tr>";
    for (const auto& m : *it) {
        if (!m.is_object()) {
            continue;
        }
        out += fmt::format(
            "<tr><td class=\"check\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            xml_escape(string_at(m, "/name")), optional_number(m, "value"), xml_escape(string_at(m, "/unit")),
            xml_escape(string_at(m, "/n")), optional_number(m, "min"), optional_number(m, "max"));
    }
    return out + "</table>";
}

std::string result_html(const nlohmann::json& j) {
    const CheckResult r = result_from_json_lenient(j);
    const std::string status = to_string(r.status);
    std::string out = fmt::format(
        "<section class=\"result st-{0}\" data-check=\"{1}\" data-status=\"{0}\"><h3>"
        "<span class=\"worst\">{0}</span> <code>{1}</code>{2}</h3>"
        "<p class=\"summary\">{3}</p>",
        status, xml_escape(r.id), r.device ? xml_escape(fmt::format(" on {}:{}", r.backend, *r.device)) : std::string(),
        xml_escape(r.summary.empty() ? "(no summary)" : r.summary));
    if (!r.remediation.empty()) {
        out += "<p class=\"remediation\"><strong>Remediation:</strong> " + xml_escape(r.remediation) + "</p>";
    }
    if (const auto d = j.find("disturbance"); d != j.end() && d->is_object()) {
        out += "<p class=\"disturbance\"><strong>Disturbed:</strong> " + xml_escape(string_at(*d, "/summary")) + "</p>";
    }
    if (!r.attribution.empty()) {
        out += "<p class=\"muted\">attributed to " + xml_escape(r.attribution) + "</p>";
    }
    return out + measurements_html(j) + "</section>\n";
}

}  // namespace

std::string render_report_html(const nlohmann::json& doc, const ReportSet& set) {
    const std::string host = string_at(doc, "/environment/hostname");
    std::array<std::size_t, k_status_count> counts{};
    const auto results = doc.value("results", nlohmann::json::array());
    for (const auto& j : results) {
        if (j.is_object() && j.contains("id")) {
            ++counts[severity(result_from_json_lenient(j).status)];
        }
    }
    std::string tally;
    for (std::size_t s = k_status_count; s-- > 0;) {
        if (counts[s]) {
            tally += fmt::format("{2}<span class=\"st-{1}\">{0} {1}</span>", counts[s],
                                 to_string(status_at_severity(static_cast<int>(s))), tally.empty() ? "" : " · ");
        }
    }
    const Fleet f = build_fleet(set);
    const bool accepted = !f.nodes.empty() && f.nodes.front().accepted;
    std::string body = fmt::format(
        "<header class=\"top\"><div><h1>gpuconform report: {}</h1><p id=\"totals\">{} · {} · driver {} · "
        "run {}</p></div><div id=\"fleet-counts\" class=\"counts-box {}\"><strong id=\"verdict\">{}</strong><br>{}"
        "</div></header>\n",
        xml_escape(host), xml_escape(string_at(doc, "/environment/distro/pretty_name")), xml_escape(gpu_model(doc)),
        xml_escape(string_at(doc, "/backends/0/driver_version")), xml_escape(string_at(doc, "/run/id")),
        accepted ? "good" : "bad", accepted ? "accepted" : "rejected", tally);
    if (!f.nodes.empty()) {
        body += "<p id=\"reason\">" + xml_escape(f.nodes.front().reason) + "</p>\n";
    }
    body += "<h2>Machine</h2>\n" + fingerprint_html(report_detail(doc));
    body += fmt::format("<h2>Results ({})</h2>\n", results.size());
    for (const auto& j : results) {
        if (j.is_object() && j.contains("id")) {
            body += result_html(j);
        }
    }
    const Matrix m = build_matrix(set, {GroupKey::Host});
    body += "<h2>Bandwidth against transfer size</h2>\n" + bandwidth_charts_html(m, set);
    body += "<h2>Copy/compute overlap</h2>\n" + overlap_charts_html(set);
    body += "<h2>Identical GPUs side by side</h2>\n" + sibling_charts_html(set);
    return html_page("gpuconform report: " + host, body);
}

}  // namespace gpuconform
