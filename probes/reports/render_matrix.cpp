#include "reports/render_matrix.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "reports/text_escape.hpp"

namespace gpuconform {

namespace {

const char* colour_of(Status s) {
    switch (s) {
        case Status::Pass:
            return "\x1b[32m";
        case Status::Info:
            return "\x1b[36m";
        case Status::Skip:
            return "\x1b[2m";
        case Status::Warn:
            return "\x1b[33m";
        case Status::Fail:
            return "\x1b[31m";
        case Status::Error:
            return "\x1b[1;31m";
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
    // Several runs of one host show once, with how many runs: "vm ×2".
    std::vector<std::pair<std::string, int>> names;
    for (const auto run : cell.hosts) {
        const std::string& name = m.run_hosts[run];
        const auto it = std::find_if(names.begin(), names.end(), [&](const auto& n) { return n.first == name; });
        if (it == names.end()) {
            names.emplace_back(name, 1);
        } else {
            ++it->second;
        }
    }
    std::string out;
    for (std::size_t i = 0; i < names.size() && i < limit; ++i) {
        out += (i ? ", " : "") + names[i].first + (names[i].second > 1 ? fmt::format(" ×{}", names[i].second) : "");
    }
    if (names.size() > limit) {
        out += fmt::format(" (+{} more)", names.size() - limit);
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
                lines += fmt::format("  {:<5} {} — {}; hosts: {}{}\n", paint(cell.worst(), to_string(cell.worst())),
                                     terminal_safe(m.rows[r]), cell.text(),
                                     terminal_safe(host_list(m, cell, k_hosts_listed)),
                                     cell.causes.empty() ? "" : "; causes: " + terminal_safe(m.cell_causes(cell)));
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
                out += fmt::format("- `{}` in {}: {} — {}{}\n", markdown_cell(m.rows[r]),
                                   markdown_cell(m.column_title(c)), cell.text(), markdown_cell(host_list(m, cell, 20)),
                                   cell.causes.empty() ? "" : "; causes: " + markdown_cell(m.cell_causes(cell)));
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
        out += ',';  // appended piecewise throughout: "," + string trips GCC 12's false -Wrestrict (PR 105651)
        out += k_group_key_names[static_cast<int>(k)];
    }
    out += ",worst,pass,info,skip,warn,fail,error,hosts,causes\r\n";
    for (std::size_t r = 0; r < m.rows.size(); ++r) {
        for (std::size_t c = 0; c < m.columns.size(); ++c) {
            const Cell& cell = m.cells[r][c];
            out += csv_field(m.rows[r]);
            for (const std::string& v : m.columns[c]) {
                out += ',';
                out += csv_field(v);
            }
            out += ',';
            out += cell.total() ? to_string(cell.worst()) : std::string("none");
            for (const auto n : cell.counts) {
                out += fmt::format(",{}", n);
            }
            out += ',';
            out += csv_field(host_list(m, cell, cell.hosts.size()));
            out += ',';
            out += csv_field(m.cell_causes(cell));
            out += "\r\n";
        }
    }
    for (const Rejected& r : m.rejected) {
        out += csv_field(r.path) + std::string(m.by.size(), ',') + ",rejected,0,0,0,0,0,0," + csv_field(r.reason) +
               ",\r\n";
    }
    return out;
}

}  // namespace gpuconform
