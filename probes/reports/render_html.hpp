// Self-contained HTML pages (inline CSS, JS and SVG; no network). Everything from the reports is
// escaped; pages render fully without JS, JS only filters and sorts.
// - The fleet page (render_html): failures first (counts by verdict; root causes, each with what its
//   nodes share and its nodes folded; the nodes that fail or are inconclusive), then the matrix
//   (sticky header and check column, "problems only" on by default when there are problems),
//   charts, and drill-down per host.
// - The acceptance record (render_acceptance_html): a verdict per node, sortable, printable.
// - One report (render_report_html): host, distro, driver, GPUs; every result in full.
#pragma once

#include <string>

#include "reports/fleet.hpp"
#include "reports/matrix.hpp"
#include "reports/report_set.hpp"

namespace gpuconform {

// Runs whose fingerprint and results the page carries for drill-down; beyond this the
// page lists host names only, so a 100,000-run page stays a size a browser opens.
inline constexpr std::size_t k_html_detail_runs = 500;
// Host names listed per cell, and nodes listed per root cause.
inline constexpr std::size_t k_html_hosts_per_cell = 50;
inline constexpr std::size_t k_html_nodes_per_cause = 200;

std::string render_html(const Matrix& m, const ReportSet& set);
std::string render_acceptance_html(const Fleet& f, const Matrix& m, const ReportSet& set);
// `set` holds the one report, read with detail and measurements.
std::string render_report_html(const nlohmann::json& doc, const ReportSet& set);

// The fingerprint table of a drill-down detail (report_detail()).
std::string fingerprint_html(const nlohmann::json& detail);

// Charts (html_charts.cpp). A bandwidth series is every measurement with unit "GB/s" whose
// name ends in "_<size>", size in bytes or with a KiB/MiB/GiB suffix:
// bw_pinned_H2D_256MiB and bw_pinned_H2D_268435456 are both series "bw_pinned_H2D" at 256 MiB.
// The PCIe link's raw per-direction rate, from the first detailed run of the group, is a line.
std::string bandwidth_charts_html(const Matrix& m, const ReportSet& set);
// The overlap checks' copy/kernel alone and together (copy_alone_ms, kernel_alone_ms, both_ms,
// or kernel_a/b_alone_ms) on one time axis, for the first runs that carry them.
std::string overlap_charts_html(const ReportSet& set);
// Per-GPU bars of each GB/s figure measured on two or more devices of one run (the sibling rule).
std::string sibling_charts_html(const ReportSet& set);
// Key figures over several runs of one host (nightly runs), in run order.
std::string trend_charts_html(const ReportSet& set);
// The store's slow declines (ReportSet::declines): one row and a small chart of the nightly
// values and their trend line per node and figure.
std::string declines_html(const nlohmann::json& declines);

// "1, 2, 5 × 10^k" step that splits [0, top] into about `ticks` intervals.
double nice_step(double top, int ticks);

// The static parts of the page (html_page.cpp).
std::string html_page(const std::string& title, const std::string& body);

}  // namespace gpuconform
