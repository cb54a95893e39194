// One report as its own page, in the order a person acts on it: the verdict and the root failure,
// the causes with their fixes, the failures, errors and warnings, then every other result folded
// away. A status filter hides cards in the browser; without JS everything is there to read.
#include <algorithm>

#include <fmt/format.h>

#include "reports/render_html.hpp"
#include "reports/render_report.hpp"
#include "reports/report_fields.hpp"
#include "reports/run_problems.hpp"
#include "reports/text_escape.hpp"

namespace gpuconform {

namespace {

// Statuses in the order the filter offers them: what needs attention first.
// Results linked from one cause; a cause of hundreds of skips names the rest by count.
constexpr std::size_t k_html_links_per_cause = 30;

constexpr std::array<Status, 6> k_filter_order{Status::Fail, Status::Error, Status::Warn,
                                               Status::Skip, Status::Info,  Status::Pass};

std::string number_or_blank(const std::optional<double>& v) { return v ? fmt::format("{:.6g}", *v) : ""; }

std::string measurements_html(const CheckResult& r) {
    if (r.measurements.empty()) {
        return "";
    }
    std::string out =
        "<table class=\"measurements\"><tr><th>measurement</th><th>value</th><th>unit</th><th>n</th><th>min</th>"
        "<th>max</th></tr>";
    for (const Measurement& m : r.measurements) {
        out +=
            fmt::format("<tr><td class=\"check\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                        xml_escape(m.name), number_or_blank(m.value), xml_escape(m.unit), m.n, number_or_blank(m.min),
                        number_or_blank(m.max));
    }
    return out + "</table>";
}

// The line a card carries when a cause names it: a link to the cause, by its title, or by the
// result it was first seen on when the cause is a failing check of its own.
std::string cause_line(const ReportProblems& p, std::size_t i) {
    for (std::size_t c = 0; c < p.causes.size(); ++c) {
        const auto& named = p.cause_results[c];
        if (std::find(named.begin(), named.end(), i) == named.end()) {
            continue;
        }
        if (p.causes[c].kind == "check" && named.front() == i) {
            return "";  // its own summary and remediation say it
        }
        const CheckResult& first = p.results[named.front()];
        const std::string name =
            p.causes[c].kind == "check" ? "as " + result_label(first.id, device_of(first)) : p.causes[c].title;
        return fmt::format("<p class=\"caused-by\"><strong>Cause:</strong> <a href=\"#cause-{}\">{}. {}</a></p>", c,
                           c + 1, xml_escape(name));
    }
    return "";
}

std::string result_html(const ReportProblems& p, std::size_t i) {
    const CheckResult& r = p.results[i];
    const std::string status = to_string(r.status);
    const std::string device = device_of(r);
    std::string out = fmt::format(
        "<section class=\"result st-{0}\" id=\"result-{4}\" data-check=\"{1}\" data-status=\"{0}\"><h3>"
        "<span class=\"worst\">{0}</span> <code>{1}</code>{2}</h3>"
        "<p class=\"summary\">{3}</p>",
        status, xml_escape(r.id), device.empty() ? std::string() : " on " + xml_escape(device),
        xml_escape(r.summary.empty() ? "(no summary)" : r.summary), i);
    out += cause_line(p, i);
    if (!r.remediation.empty()) {
        out += "<p class=\"remediation\"><strong>Remediation:</strong> " + xml_escape(r.remediation) + "</p>";
    }
    if (r.disturbance.is_object()) {
        out += "<p class=\"disturbance\"><strong>Disturbed:</strong> " +
               xml_escape(string_at(r.disturbance, "/summary")) + "</p>";
    }
    if (!r.attribution.empty()) {
        out += "<p class=\"muted\">attributed to " + xml_escape(r.attribution) + "</p>";
    }
    return out + measurements_html(r) + "</section>\n";
}

std::string verdict_html(const ReportProblems& p) {
    const std::string v = to_string(p.verdict);
    std::string out = fmt::format(
        "<p id=\"verdict-line\" class=\"verdict-line v-{0}\"><strong>Verdict: <span id=\"verdict\">{0}</span></strong>"
        " — <span id=\"reason\">{1}</span></p>\n",
        v, xml_escape(p.reason));
    if (!p.headline.empty()) {
        const std::string target = p.headline_cause ? fmt::format("cause-{}", *p.headline_cause)
                                                    : fmt::format("result-{}", *p.headline_result);
        out += fmt::format(
            "<p id=\"headline\" class=\"headline\"><strong>Root failure:</strong> <span id=\"headline-text\">{}</span> "
            "<a href=\"#{}\">({})</a>",
            xml_escape(p.headline), target,
            p.headline_cause ? fmt::format("cause {}", *p.headline_cause + 1) : std::string("the result"));
        if (p.headline_cause && !p.causes[*p.headline_cause].fix.empty()) {
            out += " <span class=\"fix\">— fix: " + xml_escape(p.causes[*p.headline_cause].fix) + "</span>";
        }
        out += "</p>\n";
    }
    return out;
}

std::string causes_html(const ReportProblems& p) {
    if (p.causes.empty()) {
        return "";
    }
    std::string out = fmt::format("<h2>Causes ({})</h2>\n<ol id=\"causes\" class=\"causes\">\n", p.causes.size());
    for (std::size_t c = 0; c < p.causes.size(); ++c) {
        const RunCause& cause = p.causes[c];
        out += fmt::format("<li id=\"cause-{}\" data-kind=\"{}\"><strong class=\"cause-title\">{}</strong>", c,
                           xml_escape(cause.kind), xml_escape(cause.title));
        if (!cause.kind.empty()) {
            out += " <span class=\"muted\">[" + xml_escape(cause.kind) + "]</span>";
        }
        if (!cause.fix.empty()) {
            out += "<br><span class=\"fix\"><strong>Fix:</strong> " + xml_escape(cause.fix) + "</span>";
        }
        const auto& named = p.cause_results[c];
        out += fmt::format("<br><span class=\"explains\">explains {}:", named.size());
        for (std::size_t k = 0; k < named.size() && k < k_html_links_per_cause; ++k) {
            const CheckResult& r = p.results[named[k]];
            out += fmt::format(" <a href=\"#result-{}\" class=\"st-{}\">{}</a>", named[k], to_string(r.status),
                               xml_escape(result_label(r.id, device_of(r))));
        }
        if (named.size() > k_html_links_per_cause) {
            out += fmt::format(" and {} more", named.size() - k_html_links_per_cause);
        }
        out += "</span></li>\n";
    }
    return out + "</ol>\n";
}

// One checkbox per status present, worst first, each with its count.
std::string filter_html(const ReportProblems& p, bool only_problems) {
    std::string out =
        "<div class=\"filters noprint\"><fieldset id=\"result-filter\"><legend>Show results that are</legend>\n";
    std::size_t shown = 0;
    for (const Status s : k_filter_order) {
        const std::size_t n = p.counts[severity(s)];
        if (n == 0 || (only_problems && !is_problem_status(s))) {
            continue;
        }
        shown += n;
        out +=
            fmt::format("<label class=\"st-{0}\"><input type=\"checkbox\" value=\"{0}\" checked> {0} ({1})</label>\n",
                        to_string(s), n);
    }
    return out +
           fmt::format("</fieldset><span><span id=\"results-shown\">{0}</span> of {0} results shown</span></div>\n",
                       shown);
}

std::string results_html(const ReportProblems& p, bool only_problems) {
    std::string out = filter_html(p, only_problems);
    out += fmt::format("<h2 id=\"problems-heading\">Failures, errors and warnings ({})</h2>\n<div id=\"problems\">\n",
                       p.problems.size());
    if (p.problems.empty()) {
        out += "<p id=\"no-problems\">No result failed, errored or warned.</p>\n";
    }
    for (const std::size_t i : p.problems) {
        out += result_html(p, i);
    }
    out += "</div>\n";
    if (p.rest.empty()) {
        return out;
    }
    const std::string counted = fmt::format("{} other result{}: {}", p.rest.size(), p.rest.size() == 1 ? "" : "s",
                                            status_counts_text(p.rest_counts));
    if (only_problems) {
        return out + "<p id=\"not-shown\" class=\"muted\">" + counted + " (not shown: --only-problems)</p>\n";
    }
    out += "<details id=\"other-results\"><summary>" + counted + "</summary>\n";
    for (const std::size_t i : p.rest) {
        out += result_html(p, i);
    }
    return out + "</details>\n";
}

}  // namespace

std::string render_report_page(const nlohmann::json& doc, const ReportSet& set, bool only_problems) {
    const std::string host = string_at(doc, "/environment/hostname");
    const ReportProblems p = read_report_problems(doc);
    const char* box = p.verdict == Verdict::Pass ? "good" : p.verdict == Verdict::Fail ? "bad" : "unsure";
    std::string body = fmt::format(
        "<header class=\"top\"><div><h1>gpuconform report: {}</h1><p id=\"totals\">{} · {} · driver {} · "
        "run {}</p></div><div id=\"fleet-counts\" class=\"counts-box {}\"><strong>{}</strong><br>"
        "<span id=\"tally\">{}</span></div></header>\n",
        xml_escape(host), xml_escape(string_at(doc, "/environment/distro/pretty_name")), xml_escape(gpu_model(doc)),
        xml_escape(string_at(doc, "/backends/0/driver_version")), xml_escape(string_at(doc, "/run/id")), box,
        to_string(p.verdict), status_counts_text(p.counts));
    body += verdict_html(p) + causes_html(p) + results_html(p, only_problems);
    body += "<h2>Machine</h2>\n" + fingerprint_html(report_detail(doc));
    if (!only_problems) {
        const Matrix m = build_matrix(set, {GroupKey::Host});
        body += "<h2>Bandwidth against transfer size</h2>\n" + bandwidth_charts_html(m, set);
        body += "<h2>Copy/compute overlap</h2>\n" + overlap_charts_html(set);
        body += "<h2>Identical GPUs side by side</h2>\n" + sibling_charts_html(set);
    }
    return html_page("gpuconform report: " + host, body);
}

std::string render_report_html(const nlohmann::json& doc, const ReportSet& set) {
    return render_report_page(doc, set, false);
}

}  // namespace gpuconform
