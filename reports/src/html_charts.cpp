#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "render_html.hpp"
#include "report_fields.hpp"
#include "text_escape.hpp"

namespace gpuconform {

namespace {

constexpr std::array<const char*, 8> k_palette{"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
                                               "#9467bd", "#8c564b", "#e377c2", "#17becf"};
constexpr std::size_t k_max_charts = 24;
constexpr double k_width = 460;
constexpr double k_height = 240;
constexpr double k_left = 48;
constexpr double k_bottom = 30;
constexpr double k_top = 10;
constexpr double k_plot_width = 260;

// Splits "h2d_pinned_bw_268435456" into ("h2d_pinned_bw", 268435456) and "bw_pinned_H2D_1MiB"
// into ("bw_pinned_H2D", 1048576); size 0 when the name carries no size.
std::pair<std::string, std::uint64_t> series_and_size(const std::string& name) {
    const std::size_t us = name.rfind('_');
    if (us == std::string::npos) {
        return {name, 0};
    }
    const std::string tail = name.substr(us + 1);
    std::size_t digits = 0;
    while (digits < tail.size() && std::isdigit(static_cast<unsigned char>(tail[digits]))) {
        ++digits;
    }
    const std::string unit = tail.substr(digits);
    const int shift = unit.empty() || unit == "B" ? 0 : unit == "KiB" ? 10 : unit == "MiB" ? 20 : unit == "GiB" ? 30 : -1;
    if (digits == 0 || digits > 12 || shift < 0) {
        return {name, 0};
    }
    return {name.substr(0, us), std::stoull(tail.substr(0, digits)) << shift};
}

std::string size_label(std::uint64_t bytes) {
    if (bytes >= (1ull << 30)) { return fmt::format("{}G", bytes >> 30); }
    if (bytes >= (1ull << 20)) { return fmt::format("{}M", bytes >> 20); }
    if (bytes >= (1ull << 10)) { return fmt::format("{}K", bytes >> 10); }
    return fmt::format("{}B", bytes);
}

using Series = std::map<std::string, std::map<std::uint64_t, std::vector<double>>>;

std::string chart_svg(const std::string& title, const Series& series) {
    std::uint64_t lo = UINT64_MAX;
    std::uint64_t hi = 0;
    double top = 0;
    std::map<std::string, std::map<std::uint64_t, double>> med;
    for (const auto& [name, points] : series) {
        for (const auto& [size, values] : points) {
            med[name][size] = median(values);
            lo = std::min(lo, size);
            hi = std::max(hi, size);
            top = std::max(top, med[name][size]);
        }
    }
    top = top > 0 ? top * 1.1 : 1.0;
    const double span = hi > lo ? std::log2(double(hi)) - std::log2(double(lo)) : 1.0;
    const auto x = [&](std::uint64_t s) { return k_left + (std::log2(double(s)) - std::log2(double(lo))) / span * k_plot_width; };
    const auto y = [&](double v) { return k_top + (1.0 - v / top) * (k_height - k_top - k_bottom); };
    std::string svg = fmt::format("<svg class=\"chart bandwidth\" width=\"{}\" height=\"{}\" role=\"img\"><title>{}</title>"
                                  "<text x=\"{}\" y=\"{}\">GB/s (median) vs transfer size</text>",
                                  k_width, k_height, xml_escape(title), k_left, k_height - 2);
    svg += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"#999\"/>", k_left, k_top, y(0));
    for (int t = 0; t <= 4; ++t) {
        svg += fmt::format("<text x=\"2\" y=\"{:.1f}\">{:.0f}</text>", y(top * t / 4) + 4, top * t / 4);
    }
    std::size_t i = 0;
    for (const auto& [name, points] : med) {
        std::string pts;
        for (const auto& [size, v] : points) {
            pts += fmt::format("{:.1f},{:.1f} ", x(size), y(v));
            svg += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"2.5\" fill=\"{}\"><title>{} {}: {:.2f} GB/s</title></circle>",
                               x(size), y(v), k_palette[i % k_palette.size()], xml_escape(name), size_label(size), v);
        }
        // Pageable dashed, pinned solid: the comparison people look for first.
        const bool pageable = name.find("pageable") != std::string::npos;
        svg += fmt::format("<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"1.5\"{} points=\"{}\"/>",
                           k_palette[i % k_palette.size()], pageable ? " stroke-dasharray=\"5,3\"" : "", pts);
        svg += fmt::format("<text x=\"{}\" y=\"{}\" fill=\"{}\">{}</text>", k_left + k_plot_width + 12, k_top + 14 * (i + 1),
                           k_palette[i % k_palette.size()], xml_escape(name));
        ++i;
    }
    for (std::uint64_t s = lo; s <= hi && s > 0; s *= 16) {
        svg += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\">{}</text>", x(s) - 8, y(0) + 14, size_label(s));
    }
    return svg + "</svg>";
}

}  // namespace

std::string bandwidth_charts_html(const Matrix& m, const ReportSet& set) {
    std::map<std::vector<std::string>, std::size_t> column_of;
    for (std::size_t c = 0; c < m.columns.size(); ++c) {
        column_of[m.columns[c]] = c;
    }
    std::vector<Series> per_column(m.columns.size());
    for (const RunEntry& run : set.runs) {
        std::vector<std::string> key;
        for (const GroupKey k : m.by) {
            key.push_back(set.groups_of(run)[static_cast<int>(k)]);
        }
        for (const MeasurementEntry& e : run.measurements) {
            const auto [name, unit] = split_pair(set.measures.at(e.name));
            const auto [series, size] = series_and_size(name);
            if (unit == "GB/s" && size > 0) {
                per_column[column_of.at(key)][series][size].push_back(e.value);
            }
        }
    }
    std::string out;
    std::size_t charts = 0;
    for (std::size_t c = 0; c < m.columns.size() && charts < k_max_charts; ++c) {
        if (!per_column[c].empty()) {
            out += fmt::format("<figure class=\"chart\" data-col=\"{}\"><figcaption>{}</figcaption>{}</figure>\n", c,
                               xml_escape(m.column_title(c)), chart_svg(m.column_title(c), per_column[c]));
            ++charts;
        }
    }
    return out.empty() ? "<p class=\"muted\">No GB/s measurements named &lt;series&gt;_&lt;bytes&gt; in these reports.</p>\n" : out;
}

std::string timeline_charts_html(const ReportSet& set) {
    std::string out;
    std::size_t charts = 0;
    for (const RunEntry& run : set.runs) {
        if (run.detail.is_null() || charts >= 6) {
            continue;
        }
        for (const auto& r : run.detail.value("results", nlohmann::json::array())) {
            if (!r.contains("timeline") || !r["timeline"].is_array() || r["timeline"].empty()) {
                continue;
            }
            double lo = 1e300;
            double hi = -1e300;
            for (const auto& iv : r["timeline"]) {
                lo = std::min(lo, iv.value("start_ms", 0.0));
                hi = std::max(hi, iv.value("end_ms", 0.0));
            }
            const double span = hi > lo ? hi - lo : 1.0;
            const auto& ivs = r["timeline"];
            std::string svg = fmt::format("<svg class=\"chart timeline\" width=\"{}\" height=\"{}\" role=\"img\">", k_width,
                                          22 * ivs.size() + 24);
            for (std::size_t i = 0; i < ivs.size(); ++i) {
                const double s = ivs[i].value("start_ms", 0.0);
                const double e = ivs[i].value("end_ms", 0.0);
                const double x0 = 120 + (s - lo) / span * 320;
                svg += fmt::format("<text x=\"2\" y=\"{}\">{}</text><rect x=\"{:.1f}\" y=\"{}\" width=\"{:.1f}\" height=\"14\" fill=\"{}\">"
                                   "<title>{}: {:.3f}–{:.3f} ms</title></rect>",
                                   22 * i + 15, xml_escape(ivs[i].value("label", "")), x0, 22 * i + 4,
                                   std::max(1.0, (e - s) / span * 320), k_palette[i % k_palette.size()],
                                   xml_escape(ivs[i].value("label", "")), s, e);
            }
            svg += fmt::format("<text x=\"120\" y=\"{}\">{:.3f} ms</text><text x=\"400\" y=\"{}\">{:.3f} ms</text></svg>",
                               22 * ivs.size() + 18, lo, 22 * ivs.size() + 18, hi);
            out += fmt::format("<figure class=\"chart\"><figcaption>{} — {} {}</figcaption>{}</figure>\n",
                               xml_escape(string_at(run.detail, "/environment/hostname")), xml_escape(r.value("id", "")),
                               xml_escape(r.contains("device") && r["device"].is_number() ? fmt::format("[device {}]", r["device"].get<int>()) : ""),
                               svg);
            ++charts;
        }
    }
    return out.empty() ? "<p class=\"muted\">No facts.timeline intervals in the runs shown.</p>\n" : out;
}

}  // namespace gpuconform
