#include "render_prometheus.hpp"

#include <fmt/format.h>

#include "report_fields.hpp"
#include "text_escape.hpp"

namespace gpuconform {

namespace {

constexpr std::array<Status, 6> k_statuses{Status::Pass, Status::Info, Status::Skip,
                                           Status::Warn, Status::Fail, Status::Error};

std::string label(const char* name, const std::string& value) {
    return fmt::format("{}=\"{}\"", name, prometheus_label(value));
}

}  // namespace

std::string render_report_prometheus(const nlohmann::json& report) {
    const std::string node = label("gpu", gpu_model(report)) + "," +
                             label("distro", string_at(report, "/environment/distro/pretty_name")) + "," +
                             label("host", string_at(report, "/environment/hostname"));
    std::string status_lines;
    std::string measurement_lines;
    for (const auto& j : report.at("results")) {
        const CheckResult r = result_from_json_lenient(j);
        const std::string device = r.device ? fmt::format("{}:{}", r.backend, *r.device) : "";
        const std::string where = label("check", r.id) + "," + label("device", device) + "," + node;
        for (const Status s : k_statuses) {
            status_lines += fmt::format("gpuconform_check_status{{{},{}}} {}\n", where, label("status", to_string(s)),
                                        r.status == s ? 1 : 0);
        }
        for (const Measurement& m : r.measurements) {
            if (m.value) {
                measurement_lines += fmt::format("gpuconform_measurement{{{},{},{}}} {}\n", where, label("name", m.name),
                                                 label("unit", m.unit), *m.value);
            }
        }
    }
    return "# HELP gpuconform_check_status 1 for the status a check had in the last gpuconform run, 0 for the others.\n"
           "# TYPE gpuconform_check_status gauge\n" +
           status_lines +
           "# HELP gpuconform_measurement A value measured by a check in the last gpuconform run (median of n samples).\n"
           "# TYPE gpuconform_measurement gauge\n" +
           measurement_lines;
}

std::string render_matrix_prometheus(const Matrix& m) {
    std::string out =
        "# HELP gpuconform_matrix_results How many results of a check had this status in a group of runs.\n"
        "# TYPE gpuconform_matrix_results gauge\n";
    for (std::size_t c = 0; c < m.columns.size(); ++c) {
        std::string group;
        for (std::size_t k = 0; k < m.by.size(); ++k) {
            group += "," + label(k_group_key_names[static_cast<int>(m.by[k])], m.columns[c][k]);
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
    out += "# HELP gpuconform_matrix_rejected_inputs Input files the roll-up could not read.\n"
           "# TYPE gpuconform_matrix_rejected_inputs gauge\n";
    out += fmt::format("gpuconform_matrix_rejected_inputs {}\n", m.rejected.size());
    return out;
}

}  // namespace gpuconform
