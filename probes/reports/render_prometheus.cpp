#include "reports/render_prometheus.hpp"

#include <ctime>
#include <map>
#include <set>

#include <fmt/format.h>

#include "reports/prometheus_names.hpp"
#include "reports/report_fields.hpp"
#include "reports/text_escape.hpp"

namespace gpuconform {

namespace {

constexpr std::array<Status, 6> k_statuses{Status::Pass, Status::Info, Status::Skip,
                                           Status::Warn, Status::Fail, Status::Error};

std::string label(const char* name, const std::string& value) {
    return fmt::format("{}=\"{}\"", name, bounded_label_value(value));
}

// One metric family: HELP, TYPE, then its samples, so each name appears in one block.
struct Family {
    std::string help;
    std::string samples;
};

class Exposition {
public:
    void add(const std::string& metric, const std::string& help, const std::string& labels, double value) {
        const std::string series = labels.empty() ? metric : metric + "{" + labels + "}";
        if (!m_seen.insert(series).second) {
            return;  // two measurements that map to one series: the first is kept
        }
        auto& f = m_families[metric];
        if (f.help.empty()) {
            f.help = help;
        }
        f.samples += fmt::format("{} {}\n", series, value);
    }
    std::string text() const {
        std::string out;
        for (const auto& [metric, f] : m_families) {
            out += fmt::format("# HELP {} {}\n# TYPE {} gauge\n{}", metric, prometheus_help(f.help), metric, f.samples);
        }
        return out;
    }

private:
    std::map<std::string, Family> m_families;
    std::set<std::string> m_seen;
};

// "2026-11-29T16:32:31Z" -> seconds since the epoch; nullopt when it does not parse.
std::optional<double> epoch_seconds(const std::string& utc) {
    std::tm tm{};
    if (utc.size() < 20 || strptime(utc.c_str(), "%Y-%m-%dT%H:%M:%S", &tm) == nullptr) {
        return std::nullopt;
    }
    return static_cast<double>(timegm(&tm));
}

std::string first_driver(const nlohmann::json& report) {
    for (std::size_t i = 0; report.contains("backends") && i < report["backends"].size(); ++i) {
        if (auto d = string_at(report, fmt::format("/backends/{}/driver_version", i)); !d.empty()) {
            return d;
        }
    }
    return "";
}

void add_run_metrics(const nlohmann::json& report, Exposition& out) {
    // Host facts in one info metric: a distro or driver upgrade renames no other series.
    out.add("gpuconform_info", "Facts about the node of the last gpuconform run (value always 1).",
            label("host", string_at(report, "/environment/hostname")) + "," +
                label("distro", string_at(report, "/environment/distro/pretty_name")) + "," +
                label("kernel", string_at(report, "/environment/kernel")) + "," +
                label("driver", first_driver(report)) + "," + label("gpu", gpu_model(report)),
            1);
    out.add("gpuconform_build_info", "The gpuconform that wrote the last report (value always 1).",
            label("version", string_at(report, "/tool/version")), 1);
    if (const auto t = epoch_seconds(string_at(report, "/run/finished"))) {
        out.add("gpuconform_last_run_timestamp_seconds", "When the last gpuconform run finished (Unix time).", "", *t);
    }
    if (report.contains("run") && report["run"].value("duration_s", nlohmann::json()).is_number()) {
        out.add("gpuconform_last_run_duration_seconds", "How long the last gpuconform run took.", "",
                report["run"]["duration_s"].get<double>());
    }
    if (report.contains("run") && report["run"].value("exit_status", nlohmann::json()).is_number()) {
        out.add("gpuconform_last_run_exit_status",
                "Exit status of the last gpuconform run (0 passed, 1 a check failed or erred, 130 interrupted).", "",
                report["run"]["exit_status"].get<double>());
    }
}

}  // namespace

std::string render_report_prometheus(const nlohmann::json& report) {
    Exposition out;
    add_run_metrics(report, out);
    for (const auto& j : report.at("results")) {
        const CheckResult r = result_from_json_lenient(j);
        const std::string device = r.device ? label("device", fmt::format("{}:{}", r.backend, *r.device)) : "";
        const std::string check = label("check", r.id);
        for (const Status s : k_statuses) {
            out.add("gpuconform_check_status",
                    "1 for the status a check had in the last gpuconform run, 0 for the others.",
                    check + (device.empty() ? "" : "," + device) + "," + label("status", to_string(s)),
                    r.status == s ? 1 : 0);
        }
        for (const Measurement& m : r.measurements) {
            if (!m.value) {
                continue;
            }
            const auto q = prometheus_quantity(m.name, m.unit);
            std::string labels = check + (device.empty() ? "" : "," + device);
            for (const auto& [name, value] : q.labels) {
                labels += ',';  // piecewise: "," + string trips GCC 12's false -Wrestrict (PR 105651)
                labels += label(name.c_str(), value);
            }
            out.add(q.metric,
                    fmt::format("{} in the last gpuconform run, in base units; the check label names the check, the "
                                "others what its measurement name says (gpuconform docs/prometheus.md).",
                                q.metric.substr(std::string_view("gpuconform_").size())),
                    labels, *m.value * q.scale);
        }
    }
    return out.text();
}

std::string render_matrix_prometheus(const Matrix& m) {
    std::string out =
        "# HELP gpuconform_matrix_results How many results of a check had this status in a group of runs.\n"
        "# TYPE gpuconform_matrix_results gauge\n";
    for (std::size_t c = 0; c < m.columns.size(); ++c) {
        std::string group;
        for (std::size_t k = 0; k < m.by.size(); ++k) {
            group += ',';  // piecewise: "," + string trips GCC 12's false -Wrestrict (PR 105651)
            group += label(k_group_key_names[static_cast<int>(m.by[k])], m.columns[c][k]);
        }
        for (std::size_t r = 0; r < m.rows.size(); ++r) {
            const Cell& cell = m.cells[r][c];
            if (!cell.total()) {
                continue;
            }
            for (const Status s : k_statuses) {
                // Only statuses seen: with 6 statuses × checks × groups, zeros would be most of the file.
                if (cell.counts[severity(s)] > 0) {
                    out += fmt::format("gpuconform_matrix_results{{{}{},{}}} {}\n", label("check", m.rows[r]), group,
                                       label("status", to_string(s)), cell.counts[severity(s)]);
                }
            }
        }
    }
    out +=
        "# HELP gpuconform_matrix_rejected_inputs Input files the roll-up could not read.\n"
        "# TYPE gpuconform_matrix_rejected_inputs gauge\n";
    out += fmt::format("gpuconform_matrix_rejected_inputs {}\n", m.rejected.size());
    return out;
}

}  // namespace gpuconform
