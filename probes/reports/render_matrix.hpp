// Text views of a roll-up matrix. Every view names the rejected inputs with their reasons.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "reports/matrix.hpp"

namespace gpuconform {

// A legend of groups, a grid of one-letter statuses, then each group's non-pass cells with hosts.
std::string render_matrix_terminal(const Matrix& m, bool colour);
std::string render_matrix_markdown(const Matrix& m);
// Long form, one line per (check, group) cell, RFC 4180 quoting; rejected inputs as `rejected` lines.
std::string render_matrix_csv(const Matrix& m);
nlohmann::json matrix_to_json(const Matrix& m);
// One <testsuite> per group, one <testcase> per check, failing when the cell's worst is fail/error.
std::string render_matrix_junit(const Matrix& m);

// How many host names a text view lists per cell before "+N more".
inline constexpr std::size_t k_hosts_listed = 5;
std::string host_list(const Matrix& m, const Cell& cell, std::size_t limit);

}  // namespace gpuconform
