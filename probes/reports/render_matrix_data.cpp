// The machine-readable views of a matrix: JSON and JUnit XML.
#include <fmt/format.h>

#include "reports/render_matrix.hpp"
#include "reports/text_escape.hpp"

namespace gpuconform {

nlohmann::json matrix_to_json(const Matrix& m) {
    nlohmann::json columns = nlohmann::json::array();
    for (std::size_t c = 0; c < m.columns.size(); ++c) {
        nlohmann::json key = nlohmann::json::object();
        for (std::size_t k = 0; k < m.by.size(); ++k) {
            key[k_group_key_names[static_cast<int>(m.by[k])]] = m.columns[c][k];
        }
        columns.push_back({{"group", key}, {"title", m.column_title(c)}, {"runs", m.column_runs[c]}});
    }
    nlohmann::json rows = nlohmann::json::array();
    for (std::size_t r = 0; r < m.rows.size(); ++r) {
        nlohmann::json cells = nlohmann::json::array();
        for (const Cell& cell : m.cells[r]) {
            if (!cell.total()) {
                cells.push_back(nullptr);
                continue;
            }
            nlohmann::json counts = nlohmann::json::object();
            for (std::size_t s = 0; s < k_status_count; ++s) {
                counts[to_string(status_at_severity(static_cast<int>(s)))] = cell.counts[s];
            }
            nlohmann::json hosts = nlohmann::json::array();
            for (const auto h : cell.hosts) {
                hosts.push_back(m.run_hosts[h]);
            }
            nlohmann::json j = {{"worst", to_string(cell.worst())}, {"counts", counts}, {"hosts", hosts}};
            if (!cell.causes.empty()) {
                nlohmann::json causes = nlohmann::json::array();
                for (const auto c : cell.causes) {
                    causes.push_back(m.cause_titles[c]);
                }
                j["causes"] = causes;
            }
            cells.push_back(std::move(j));
        }
        rows.push_back({{"check", m.rows[r]}, {"cells", cells}});
    }
    nlohmann::json rejected = nlohmann::json::array();
    for (const Rejected& r : m.rejected) {
        rejected.push_back({{"path", r.path}, {"reason", r.reason}});
    }
    nlohmann::json by = nlohmann::json::array();
    for (const GroupKey k : m.by) {
        by.push_back(k_group_key_names[static_cast<int>(k)]);
    }
    return {{"schema", "gpuconform-matrix"},
            {"schema_version", "1.0"},
            {"by", by},
            {"inputs", {{"files", m.files_seen}, {"runs", m.run_hosts.size()}, {"rejected", rejected}}},
            {"columns", columns},
            {"rows", rows}};
}

std::string render_matrix_junit(const Matrix& m) {
    std::string body;
    int total_tests = 0;
    int total_failures = 0;
    for (std::size_t c = 0; c < m.columns.size(); ++c) {
        std::string cases;
        int tests = 0;
        int failures = 0;
        for (std::size_t r = 0; r < m.rows.size(); ++r) {
            const Cell& cell = m.cells[r][c];
            if (!cell.total()) {
                continue;
            }
            ++tests;
            const std::string msg = cell.text() + "; hosts: " + host_list(m, cell, 20);
            cases += fmt::format("    <testcase classname=\"{}\" name=\"{}\">\n", xml_escape(m.column_title(c)),
                                 xml_escape(m.rows[r]));
            if (severity(cell.worst()) >= severity(Status::Fail)) {
                ++failures;
                cases += fmt::format("      <failure type=\"{}\" message=\"{}\"/>\n", to_string(cell.worst()),
                                     xml_escape(msg));
            } else {
                cases += fmt::format("      <system-out>{}</system-out>\n", xml_escape(msg));
            }
            cases += "    </testcase>\n";
        }
        body += fmt::format(
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"0\">\n{}  </testsuite>\n",
            xml_escape(m.column_title(c)), tests, failures, cases);
        total_tests += tests;
        total_failures += failures;
    }
    if (!m.rejected.empty()) {
        std::string cases;
        for (const Rejected& r : m.rejected) {
            cases += fmt::format(
                "    <testcase classname=\"inputs\" name=\"{}\">\n      <failure type=\"rejected\" message=\"{}\"/>\n  "
                "  </testcase>\n",
                xml_escape(r.path), xml_escape(r.reason));
        }
        body += fmt::format(
            "  <testsuite name=\"rejected inputs\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"0\">\n{}  "
            "</testsuite>\n",
            m.rejected.size(), m.rejected.size(), cases);
        total_tests += static_cast<int>(m.rejected.size());
        total_failures += static_cast<int>(m.rejected.size());
    }
    return fmt::format(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"gpuconform matrix\" tests=\"{}\" "
        "failures=\"{}\">\n{}</testsuites>\n",
        total_tests, total_failures, body);
}

}  // namespace gpuconform
