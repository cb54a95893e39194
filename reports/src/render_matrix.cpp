#include "render_matrix.hpp"

#include <fmt/format.h>

#include "text_escape.hpp"

namespace gpuconform {

namespace {

const char* colour_of(Status s) {
    switch (s) {
    case Status::Pass: return "\x1b[32m";
    case Status::Info: return "\x1b[36m";
    case Status::Skip: return "\x1b[2m";
    case Status::Warn: return "\x1b[33m";
    case Status::Fail: return "\x1b[31m";
    case Status::Error: return "\x1b[1;31m";
    }
    return "";
}

char letter_of(Status s) {
    const std::string name = to_string(s);
    return static_cast<char>(std::toupper(static_cast<unsigned char>(name[0])));
}

std::string rejected_lines(const Matrix& m, const char* prefix) {
    std::string out;
    for (const Rejected& r : m.rejected) {
        out += fmt::format("{}{}: {}\n", prefix, terminal_safe(r.path), terminal_safe(r.reason));
    }
    return out;
}

}  // namespace

std::string host_list(const Matrix& m, const Cell& cell, std::size_t limit) {
    std::string out;
    for (std::size_t i = 0; i < cell.hosts.size() && i < limit; ++i) {
        out += (i ? ", " : "") + m.run_hosts[cell.hosts[i]];
    }
    if (cell.hosts.size() > limit) {
        out += fmt::format(" (+{} more)", cell.hosts.size() - limit);
    }
    return out;
}

std::string render_matrix_terminal(const Matrix& m, bool colour) {
    const auto paint = [&](Status s, const std::string& text) {
        return colour ? colour_of(s) + text + "\x1b[0m" : text;
    };
    std::string out = fmt::format("{} runs in {} groups, {} checks; {} of {} inputs rejected\n", m.run_hosts.size(),
                                  m.columns.size(), m.rows.size(), m.rejected.size(), m.files_seen + 0);
    for (std::size_t c = 0; c < m.columns.size(); ++c) {
        out += fmt::format("  [{}] {} ({} runs)\n", c + 1, terminal_safe(m.column_title(c)), m.column_runs[c]);
    }
    std::size_t width = 5;
    for (const auto& r : m.rows) {
        width = std::max(width, r.size());
    }
    out += fmt::format("\n{:<{}}", "check", width);
    for (std::size_t c = 0; c < m.columns.size(); ++c) {
        out += fmt::format(" {:>3}", c + 1);
    }
    out += "\n";
    for (std::size_t r = 0; r < m.rows.size(); ++r) {
        out += fmt::format("{:<{}}", terminal_safe(m.rows[r]), width);
        for (const Cell& cell : m.cells[r]) {
            out += cell.total() ? "   " + paint(cell.worst(), std::string(1, letter_of(cell.worst()))) : "   -";
        }
        out += "\n";
    }
    out += "(P pass, I info, S skip, W warn, F fail, E error, - no result in that group)\n";
    for (std::size_t c = 0; c < m.columns.size(); ++c) {
        std::string lines;
        for (std::size_t r = 0; r < m.rows.size(); ++r) {
            const Cell& cell = m.cells[r][c];
            if (cell.total() && severity(cell.worst()) > severity(Status::Info)) {
                lines += fmt::format("  {:<5} {} — {}; hosts: {}\n", paint(cell.worst(), to_string(cell.worst())),
                                     terminal_safe(m.rows[r]), cell.text(), terminal_safe(host_list(m, cell, k_hosts_listed)));
            }
        }
        if (!lines.empty()) {
            out += fmt::format("\n[{}] {}\n{}", c + 1, terminal_safe(m.column_title(c)), lines);
        }
    }
    if (!m.rejected.empty()) {
        out += "\nRejected inputs (not rolled up):\n" + rejected_lines(m, "  ");
    }
    return out;
}

std::string render_matrix_markdown(const Matrix& m) {
    std::string out = fmt::format("# gpuconform matrix\n\n{} runs in {} groups; {} of {} inputs rejected.\n\n",
                                  m.run_hosts.size(), m.columns.size(), m.rejected.size(), m.files_seen);
    out += "| check |";
    std::string rule = "|---|";
    for (std::size_t c = 0; c < m.columns.size(); ++c) {
        out += fmt::format(" {} ({} runs) |", markdown_cell(m.column_title(c)), m.column_runs[c]);
        rule += "---|";
    }
    out += "\n" + rule + "\n";
    for (std::size_t r = 0; r < m.rows.size(); ++r) {
        out += "| `" + markdown_cell(m.rows[r]) + "` |";
        for (const Cell& cell : m.cells[r]) {
            out += cell.total() ? fmt::format(" **{}** {} |", to_string(cell.worst()), cell.text()) : " — |";
        }
        out += "\n";
    }
    out += "\n## Hosts behind non-pass cells\n\n";
    for (std::size_t r = 0; r < m.rows.size(); ++r) {
        for (std::size_t c = 0; c < m.columns.size(); ++c) {
            const Cell& cell = m.cells[r][c];
            if (!cell.hosts.empty()) {
                out += fmt::format("- `{}` in {}: {} — {}\n", markdown_cell(m.rows[r]), markdown_cell(m.column_title(c)),
                                   cell.text(), markdown_cell(host_list(m, cell, 20)));
            }
        }
    }
    if (!m.rejected.empty()) {
        out += "\n## Rejected inputs\n\n";
        for (const Rejected& r : m.rejected) {
            out += fmt::format("- `{}`: {}\n", markdown_cell(r.path), markdown_cell(r.reason));
        }
    }
    return out;
}

std::string render_matrix_csv(const Matrix& m) {
    std::string out = "check";
    for (const GroupKey k : m.by) {
        out += std::string(",") + k_group_key_names[static_cast<int>(k)];
    }
    out += ",worst,pass,info,skip,warn,fail,error,hosts\r\n";
    for (std::size_t r = 0; r < m.rows.size(); ++r) {
        for (std::size_t c = 0; c < m.columns.size(); ++c) {
            const Cell& cell = m.cells[r][c];
            out += csv_field(m.rows[r]);
            for (const std::string& v : m.columns[c]) {
                out += "," + csv_field(v);
            }
            out += "," + (cell.total() ? to_string(cell.worst()) : std::string("none"));
            for (const auto n : cell.counts) {
                out += fmt::format(",{}", n);
            }
            out += "," + csv_field(host_list(m, cell, cell.hosts.size())) + "\r\n";
        }
    }
    for (const Rejected& r : m.rejected) {
        out += csv_field(r.path) + std::string(m.by.size(), ',') + ",rejected,0,0,0,0,0,0," + csv_field(r.reason) + "\r\n";
    }
    return out;
}

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
            cells.push_back({{"worst", to_string(cell.worst())}, {"counts", counts}, {"hosts", hosts}});
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
    return {{"schema", "gpuconform-matrix"}, {"schema_version", "1.0"}, {"by", by},
            {"inputs", {{"files", m.files_seen}, {"runs", m.run_hosts.size()}, {"rejected", rejected}}},
            {"columns", columns}, {"rows", rows}};
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
            cases += fmt::format("    <testcase classname=\"{}\" name=\"{}\">\n", xml_escape(m.column_title(c)), xml_escape(m.rows[r]));
            if (severity(cell.worst()) >= severity(Status::Fail)) {
                ++failures;
                cases += fmt::format("      <failure type=\"{}\" message=\"{}\"/>\n", to_string(cell.worst()), xml_escape(msg));
            } else {
                cases += fmt::format("      <system-out>{}</system-out>\n", xml_escape(msg));
            }
            cases += "    </testcase>\n";
        }
        body += fmt::format("  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"0\">\n{}  </testsuite>\n",
                            xml_escape(m.column_title(c)), tests, failures, cases);
        total_tests += tests;
        total_failures += failures;
    }
    if (!m.rejected.empty()) {
        std::string cases;
        for (const Rejected& r : m.rejected) {
            cases += fmt::format("    <testcase classname=\"inputs\" name=\"{}\">\n      <failure type=\"rejected\" message=\"{}\"/>\n    </testcase>\n",
                                 xml_escape(r.path), xml_escape(r.reason));
        }
        body += fmt::format("  <testsuite name=\"rejected inputs\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"0\">\n{}  </testsuite>\n",
                            m.rejected.size(), m.rejected.size(), cases);
        total_tests += static_cast<int>(m.rejected.size());
        total_failures += static_cast<int>(m.rejected.size());
    }
    return fmt::format("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"gpuconform matrix\" tests=\"{}\" failures=\"{}\">\n{}</testsuites>\n",
                       total_tests, total_failures, body);
}

}  // namespace gpuconform
