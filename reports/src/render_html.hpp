// One self-contained HTML page (inline CSS, JS and SVG; no network): the matrix with coloured
// cells, filters by status and group, drill-down to each host, bandwidth and overlap charts.
// Everything from the reports is escaped; the page renders fully without JS, JS only filters.
#pragma once

#include <string>

#include "matrix.hpp"
#include "report_set.hpp"

namespace gpuconform {

// Runs whose fingerprint and results the page carries for drill-down; beyond this the
// page lists host names only, so a 100,000-run page stays a size a browser opens.
inline constexpr std::size_t k_html_detail_runs = 500;
// Host names listed per cell.
inline constexpr std::size_t k_html_hosts_per_cell = 50;

std::string render_html(const Matrix& m, const ReportSet& set);

// Charts (html_charts.cpp). A bandwidth series is every measurement with unit "GB/s" whose
// name ends in "_<size>", size in bytes or with a KiB/MiB/GiB suffix:
// bw_pinned_H2D_256MiB and bw_pinned_H2D_268435456 are both series "bw_pinned_H2D" at 256 MiB.
std::string bandwidth_charts_html(const Matrix& m, const ReportSet& set);
// facts.timeline intervals [{label,start_ms,end_ms}] of the first runs that carry them.
std::string timeline_charts_html(const ReportSet& set);

// The static parts of the page (html_page.cpp).
std::string html_page(const std::string& title, const std::string& body);

}  // namespace gpuconform
