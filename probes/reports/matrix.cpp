#include "reports/matrix.hpp"

#include <algorithm>
#include <map>
#include <numeric>
#include <stdexcept>

#include "reports/run_problems.hpp"

namespace gpuconform {

std::uint32_t Cell::total() const { return std::accumulate(counts.begin(), counts.end(), 0u); }

Status Cell::worst() const {
    for (int sev = static_cast<int>(k_status_count) - 1; sev > 0; --sev) {
        if (counts[sev] > 0) {
            return status_at_severity(sev);
        }
    }
    return Status::Pass;
}

std::string Cell::text(const char* separator) const {
    std::string out;
    for (std::size_t sev = 0; sev < k_status_count; ++sev) {
        if (counts[sev] > 0) {
            out += (out.empty() ? "" : separator) + std::to_string(counts[sev]) + " " +
                   to_string(status_at_severity(static_cast<int>(sev)));
        }
    }
    return out;
}

std::string Matrix::column_title(std::size_t c, const char* separator) const {
    std::string out;
    for (const std::string& v : columns[c]) {
        out += (out.empty() ? "" : separator) + (v.empty() ? std::string("(unknown)") : v);
    }
    return out;
}

std::string Matrix::cell_causes(const Cell& cell) const {
    std::string out;
    for (const std::uint32_t c : cell.causes) {
        out += (out.empty() ? "" : "; ") + cause_titles[c];
    }
    return out;
}

bool Matrix::any_failing() const {
    for (const auto& row : cells) {
        for (const Cell& cell : row) {
            if (cell.total() > 0 && severity(cell.worst()) >= severity(Status::Fail)) {
                return true;
            }
        }
    }
    return false;
}

std::vector<GroupKey> parse_group_keys(const std::string& csv) {
    std::vector<GroupKey> keys;
    std::size_t start = 0;
    while (start <= csv.size()) {
        const std::size_t end = std::min(csv.find(',', start), csv.size());
        const std::string name = csv.substr(start, end - start);
        const auto key = group_key_from_string(name);
        if (!key) {
            throw std::invalid_argument("unknown group key '" + name +
                                        "' (use distro, kernel, driver, runtime, torch, gpu, host)");
        }
        keys.push_back(*key);
        start = end + 1;
    }
    return keys;
}

namespace {

int layer_rank(const std::string& id) {
    const std::string layer = id.substr(0, id.find('.'));
    const std::array<const char*, 6> order{"host", "health", "runtime", "async", "framework", "acceptance"};
    const auto it = std::find(order.begin(), order.end(), layer);
    return static_cast<int>(it - order.begin());
}

void add_causes(const RunEntry& run, const std::string& label, std::map<std::string, std::uint32_t>& ids, Matrix& m,
                Cell& cell) {
    for (const RunCause& c : run.causes) {
        if (std::none_of(c.results.begin(), c.results.end(),
                         [&](const std::string& r) { return cause_names_label(r, label); })) {
            continue;
        }
        const auto [it, fresh] = ids.emplace(c.title, static_cast<std::uint32_t>(m.cause_titles.size()));
        if (fresh) {
            m.cause_titles.push_back(c.title);
        }
        if (std::find(cell.causes.begin(), cell.causes.end(), it->second) == cell.causes.end()) {
            cell.causes.push_back(it->second);
        }
    }
}

}  // namespace

Matrix build_matrix(const ReportSet& set, const std::vector<GroupKey>& by) {
    Matrix m;
    m.by = by;
    m.rejected = set.rejected;
    m.files_seen = set.files_seen;
    // Column of each distinct fingerprint, and row of each result label, decided once.
    std::map<std::vector<std::string>, std::uint32_t> column_ids;
    std::vector<std::uint32_t> column_of_group(set.group_values.size());
    for (std::size_t g = 0; g < set.group_values.size(); ++g) {
        std::vector<std::string> key;
        for (const GroupKey k : by) {
            key.push_back(set.group_values[g][static_cast<int>(k)]);
        }
        column_of_group[g] = column_ids.emplace(key, 0).first->second;
    }
    std::uint32_t next = 0;
    for (auto& [key, id] : column_ids) {
        id = next++;
        m.columns.push_back(key);
    }
    for (std::size_t g = 0; g < set.group_values.size(); ++g) {
        std::vector<std::string> key;
        for (const GroupKey k : by) {
            key.push_back(set.group_values[g][static_cast<int>(k)]);
        }
        column_of_group[g] = column_ids.at(key);
    }
    std::map<std::pair<int, std::string>, std::uint32_t> row_ids;
    std::vector<std::string> check_of_label(set.labels.size());
    for (std::uint32_t l = 0; l < set.labels.size(); ++l) {
        check_of_label[l] = split_pair(set.labels.at(l)).first;
        row_ids.emplace(std::pair{layer_rank(check_of_label[l]), check_of_label[l]}, 0);
    }
    next = 0;
    for (auto& [key, id] : row_ids) {
        id = next++;
        m.rows.push_back(key.second);
    }
    std::vector<std::uint32_t> row_of_label(set.labels.size());
    for (std::uint32_t l = 0; l < set.labels.size(); ++l) {
        row_of_label[l] = row_ids.at({layer_rank(check_of_label[l]), check_of_label[l]});
    }
    m.cells.assign(m.rows.size(), std::vector<Cell>(m.columns.size()));
    m.column_runs.assign(m.columns.size(), 0);
    std::map<std::string, std::uint32_t> cause_ids;
    for (const RunEntry& run : set.runs) {
        const auto run_index = static_cast<std::uint32_t>(m.run_hosts.size());
        m.run_hosts.push_back(set.groups_of(run)[static_cast<int>(GroupKey::Host)]);
        const std::uint32_t col = column_of_group[run.groups];
        ++m.column_runs[col];
        for (const ResultEntry& r : run.results) {
            Cell& cell = m.cells[row_of_label[r.label]][col];
            ++cell.counts[severity(r.status)];
            // Hosts are listed for results someone should look at; info asks nothing of anyone.
            if (severity(r.status) > severity(Status::Info) && (cell.hosts.empty() || cell.hosts.back() != run_index)) {
                cell.hosts.push_back(run_index);
            }
            if (severity(r.status) > severity(Status::Info)) {
                add_causes(run, set.labels.at(r.label), cause_ids, m, cell);
            }
        }
    }
    return m;
}

int matrix_exit_code(const Matrix& m, std::size_t inconclusive_nodes) {
    if (m.run_hosts.empty()) {
        return 2;
    }
    if (m.any_failing() || inconclusive_nodes > 0) {
        return 1;
    }
    return m.rejected.empty() ? 0 : 3;
}

}  // namespace gpuconform
