// The roll-up matrix: rows are checks (devices folded together), columns are groups of runs
// (distro × GPU by default), each cell the worst status and the count of each status.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "reports/report_set.hpp"

namespace gpuconform {

inline constexpr std::size_t k_status_count = 6;

struct Cell {
    std::array<std::uint32_t, k_status_count> counts{};  // indexed by severity()
    std::vector<std::uint32_t> hosts;   // runs behind skip/warn/fail/error results, into Matrix::run_hosts
    std::vector<std::uint32_t> causes;  // reports' root causes naming these results, into Matrix::cause_titles

    std::uint32_t total() const;
    Status worst() const;  // only meaningful when total() > 0
    // "11 pass · 1 fail": each status seen, mildest first.
    std::string text(const char* separator = " · ") const;
};

struct Matrix {
    std::vector<GroupKey> by;
    std::vector<std::string> rows;                  // check ids: layer order, then by name
    std::vector<std::vector<std::string>> columns;  // one value per `by` key
    std::vector<std::uint32_t> column_runs;         // how many runs each column holds
    std::vector<std::vector<Cell>> cells;           // [row][column]; total() == 0 means no result
    std::vector<std::string> run_hosts;             // host name of each run
    std::vector<Rejected> rejected;
    std::size_t files_seen = 0;
    std::vector<std::string> cause_titles;  // read only with ReadOptions::problems

    std::string cell_causes(const Cell& cell) const;  // "GPU busy; …", "" when none

    std::string column_title(std::size_t c, const char* separator = " · ") const;
    bool any_failing() const;  // some cell's worst status is fail or error
};

std::vector<GroupKey> parse_group_keys(const std::string& csv);  // throws std::invalid_argument
inline const std::vector<GroupKey> k_default_group_keys{GroupKey::Distro, GroupKey::Gpu};

Matrix build_matrix(const ReportSet& set, const std::vector<GroupKey>& by);

// Roll-up exit status: 0 clean, 1 a failing cell or a node that could not be judged (its verdict
// inconclusive: interrupted, device layer never ran, every check skipped), 2 nothing readable,
// 3 partial input. A partial run is never read as a pass, so it is never exit 0.
int matrix_exit_code(const Matrix& m, std::size_t inconclusive_nodes = 0);

}  // namespace gpuconform
