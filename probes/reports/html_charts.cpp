#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include <fmt/format.h>

#include "core/byte_sizes.hpp"
#include "reports/render_html.hpp"
#include "reports/report_fields.hpp"
#include "reports/text_escape.hpp"

namespace gpuconform {

namespace {

// Colour and dash both vary, so series stay apart in grey print and for colour-blind readers.
constexpr std::array<const char*, 8> k_palette{"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
                                               "#9467bd", "#8c564b", "#e377c2", "#17becf"};
constexpr std::array<const char*, 4> k_dashes{"", "6,3", "2,2", "9,3,2,3"};
constexpr std::size_t k_max_charts = 24;
constexpr std::size_t k_max_small_charts = 6;
constexpr double k_width = 520;
constexpr double k_height = 250;
constexpr double k_left = 48;
constexpr double k_bottom = 30;
constexpr double k_top = 12;
constexpr double k_plot_width = 280;

const char* colour_of(std::size_t i) { return k_palette[i % k_palette.size()]; }
const char* dash_of(std::size_t i) { return k_dashes[(i + i / k_palette.size()) % k_dashes.size()]; }
std::string dash_attr(std::size_t i) {
    return *dash_of(i) ? fmt::format(" stroke-dasharray=\"{}\"", dash_of(i)) : std::string();
}

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
    const int shift = unit.empty() || unit == "B" ? 0
                      : unit == "KiB"             ? 10
                      : unit == "MiB"             ? 20
                      : unit == "GiB"             ? 30
                                                  : -1;
    if (digits == 0 || digits > 12 || shift < 0) {
        return {name, 0};
    }
    return {name.substr(0, us), std::stoull(tail.substr(0, digits)) << shift};
}

// One legend entry: a short line drawn like the series, then its name in the series' colour.
std::string legend_entry(double x, double y, std::size_t i, const std::string& name) {
    return fmt::format(
        "<g class=\"legend\"><line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"{3}\" stroke-width=\"2\"{4}/>"
        "<text x=\"{5}\" y=\"{6}\" fill=\"{3}\">{7}</text></g>",
        x, y - 4, x + 22, colour_of(i), dash_attr(i), x + 26, y, xml_escape(name));
}

// Horizontal grid and labels at round values from 0 to `top` (a multiple of `step`).
std::string value_axis(double top, double step, double left, double right, const auto& y, const std::string& unit) {
    std::string out =
        fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"#999\"/>", left, y(top), y(0));
    for (double v = 0; v <= top + step / 2; v += step) {
        out += fmt::format(
            "<line class=\"grid\" x1=\"{}\" y1=\"{:.1f}\" x2=\"{}\" y2=\"{:.1f}\" stroke=\"#eee\"/>"
            "<text class=\"tick\" x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\">{:g}</text>",
            left, y(v), right, y(v), left - 4, y(v) + 4, v);
    }
    return out + fmt::format("<text x=\"2\" y=\"{}\">{}</text>", k_top - 2 + 0, xml_escape(unit));
}

double rounded_top(double max_value, double& step) {
    step = nice_step(max_value > 0 ? max_value * 1.05 : 1.0, 5);
    return std::ceil((max_value > 0 ? max_value * 1.05 : 1.0) / step) * step;
}

using Series = std::map<std::string, std::map<std::uint64_t, std::vector<double>>>;

struct Ceiling {
    double gbps = 0;
    std::string label;
};

// The PCIe link's raw per-direction rate: GT/s × lanes × line-encoding efficiency / 8 (8b/10b up to
// Gen2, 128b/130b for Gen3–5, FLIT 242/256 for Gen6), as host.pcie.link reads it from sysfs.
Ceiling link_ceiling(const nlohmann::json& detail) {
    Ceiling best;
    for (const auto& g : detail.value("/environment/pci_gpus"_json_pointer, nlohmann::json::array())) {
        const double speed = g.value("current_speed_gts", 0.0);
        const int width = g.value("current_width", 0);
        if (speed <= 0 || width <= 0) {
            continue;
        }
        const double efficiency = speed < 8.0 ? 0.8 : speed > 40.0 ? 242.0 / 256.0 : 128.0 / 130.0;
        const double gbps = speed * width * efficiency / 8.0;
        if (best.gbps == 0 || gbps < best.gbps) {
            best = {gbps, fmt::format("PCIe {:g} GT/s x{} raw: {:.1f} GB/s", speed, width, gbps)};
        }
    }
    return best;
}

std::string chart_svg(const std::string& title, const Series& series, const Ceiling& ceiling) {
    std::uint64_t lo = UINT64_MAX;
    std::uint64_t hi = 0;
    double max_value = ceiling.gbps;
    std::map<std::string, std::map<std::uint64_t, double>> med;
    for (const auto& [name, points] : series) {
        for (const auto& [size, values] : points) {
            med[name][size] = median(values);
            lo = std::min(lo, size);
            hi = std::max(hi, size);
            max_value = std::max(max_value, med[name][size]);
        }
    }
    double step = 1;
    const double top = rounded_top(max_value, step);
    const double span = hi > lo ? std::log2(double(hi)) - std::log2(double(lo)) : 1.0;
    const auto x = [&](std::uint64_t s) {
        return k_left + (std::log2(double(s)) - std::log2(double(lo))) / span * k_plot_width;
    };
    const auto y = [&](double v) { return k_top + (1.0 - v / top) * (k_height - k_top - k_bottom); };
    std::string svg = fmt::format(
        "<svg class=\"chart bandwidth\" width=\"{}\" height=\"{}\" role=\"img\"><title>{}</title>"
        "<text x=\"{}\" y=\"{}\">median GB/s against transfer size (log scale)</text>",
        k_width, k_height, xml_escape(title), k_left, k_height - 2);
    svg += value_axis(top, step, k_left, k_left + k_plot_width, y, "GB/s");
    std::size_t i = 0;
    for (const auto& [name, points] : med) {
        std::string pts;
        for (const auto& [size, v] : points) {
            pts += fmt::format("{:.1f},{:.1f} ", x(size), y(v));
            svg += fmt::format(
                "<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"2.5\" fill=\"{}\"><title>{} {}: {:.2f} GB/s</title></circle>",
                x(size), y(v), colour_of(i), xml_escape(name), size_label(size), v);
        }
        svg += fmt::format(
            "<polyline class=\"series\" data-series=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"1.8\"{} "
            "points=\"{}\"/>",
            xml_escape(name), colour_of(i), dash_attr(i), pts);
        svg += legend_entry(k_left + k_plot_width + 14, k_top + 14 * (i + 1), i, name);
        ++i;
    }
    if (ceiling.gbps > 0) {
        svg += fmt::format(
            "<line class=\"ceiling\" x1=\"{0}\" y1=\"{1:.1f}\" x2=\"{2}\" y2=\"{1:.1f}\" stroke=\"#555\" "
            "stroke-width=\"1.2\" "
            "stroke-dasharray=\"1,3\"><title>{3}</title></line><text x=\"{4}\" y=\"{5:.1f}\" fill=\"#555\">{3}</text>",
            k_left, y(ceiling.gbps), k_left + k_plot_width, xml_escape(ceiling.label), k_left + 4, y(ceiling.gbps) - 3);
    }
    // Sizes are powers of two; label every fourth power (×16), which is round in binary units.
    for (std::uint64_t s = lo; s <= hi && s > 0; s *= 16) {
        svg += fmt::format("<text class=\"tick\" x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>", x(s),
                           y(0) + 14, size_label(s));
    }
    return svg + "</svg>";
}

// A measurement's value by name, or -1 when the result has none (these are all durations).
double value_of(const nlohmann::json& result, const char* name) {
    const auto list = result.find("measurements");
    if (list == result.end() || !list->is_array()) {
        return -1.0;
    }
    for (const auto& m : *list) {
        if (m.is_object() && m.value("name", "") == name && m.contains("value") && m["value"].is_number()) {
            return m["value"].get<double>();
        }
    }
    return -1.0;
}

struct Lane {
    std::string label;
    double start = 0;
    double end = 0;
    std::size_t colour = 0;
};

// Lanes on one time axis; a dashed line marks where running one after the other would end.
std::string lanes_svg(const std::vector<Lane>& lanes, double serial_ms, const std::string& note) {
    double max_value = serial_ms;
    for (const Lane& l : lanes) {
        max_value = std::max(max_value, l.end);
    }
    double step = 1;
    const double top = rounded_top(max_value, step);
    constexpr double left = 130;
    constexpr double width = 340;
    const double height = 22.0 * static_cast<double>(lanes.size()) + 44;
    const auto x = [&](double v) { return left + v / top * width; };
    std::string svg =
        fmt::format("<svg class=\"chart timeline overlap\" width=\"{}\" height=\"{}\" role=\"img\">", k_width, height);
    for (std::size_t i = 0; i < lanes.size(); ++i) {
        const Lane& l = lanes[i];
        svg += fmt::format(
            "<text x=\"2\" y=\"{}\">{}</text><rect x=\"{:.1f}\" y=\"{}\" width=\"{:.1f}\" height=\"14\" fill=\"{}\">"
            "<title>{}: {:.3f}–{:.3f} ms</title></rect>",
            22 * i + 15, xml_escape(l.label), x(l.start), 22 * i + 4, std::max(1.0, x(l.end) - x(l.start)),
            colour_of(l.colour), xml_escape(l.label), l.start, l.end);
    }
    const double axis_y = 22.0 * static_cast<double>(lanes.size()) + 6;
    for (double v = 0; v <= top + step / 2; v += step) {
        svg += fmt::format(
            "<line x1=\"{0:.1f}\" y1=\"0\" x2=\"{0:.1f}\" y2=\"{1}\" stroke=\"#eee\"/>"
            "<text class=\"tick\" x=\"{0:.1f}\" y=\"{2}\" text-anchor=\"middle\">{3:g}</text>",
            x(v), axis_y, axis_y + 13, v);
    }
    if (serial_ms > 0) {
        svg += fmt::format(
            "<line class=\"serial\" x1=\"{0:.1f}\" y1=\"0\" x2=\"{0:.1f}\" y2=\"{1}\" stroke=\"#333\" "
            "stroke-dasharray=\"4,3\">"
            "<title>one after the other: {2:.3f} ms</title></line>",
            x(serial_ms), axis_y, serial_ms);
    }
    return svg + fmt::format("<text x=\"{}\" y=\"{}\">ms · {}</text></svg>", left, axis_y + 30, xml_escape(note));
}

// The lanes of one overlap result: each piece alone (measurements), then together (facts.timeline
// intervals, else both_ms).
std::vector<Lane> overlap_lanes(const nlohmann::json& r, double& serial) {
    std::vector<Lane> lanes;
    serial = 0;
    std::size_t colour = 0;
    for (const auto& [name, label] :
         std::vector<std::pair<const char*, const char*>>{{"copy_alone_ms", "copy alone"},
                                                          {"kernel_alone_ms", "kernel alone"},
                                                          {"kernel_a_alone_ms", "kernel A alone"},
                                                          {"kernel_b_alone_ms", "kernel B alone"}}) {
        const double v = value_of(r, name);
        if (v >= 0) {
            lanes.push_back({label, 0, v, colour++});
            serial += v;
        }
    }
    const auto facts = r.find("timeline");
    if (facts != r.end() && facts->is_array() && !facts->empty()) {
        colour = 0;
        for (const auto& iv : *facts) {
            lanes.push_back(
                {"together: " + iv.value("label", ""), iv.value("start_ms", 0.0), iv.value("end_ms", 0.0), colour++});
        }
    } else if (const double both = value_of(r, "both_ms"); both >= 0) {
        lanes.push_back({"together", 0, both, 4});
    }
    return lanes;
}

}  // namespace

double nice_step(double top, int ticks) {
    const double raw = top / std::max(1, ticks);
    if (!(raw > 0) || !std::isfinite(raw)) {
        return 1.0;
    }
    const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
    const double norm = raw / magnitude;
    return (norm <= 1.0 ? 1.0 : norm <= 2.0 ? 2.0 : norm <= 5.0 ? 5.0 : 10.0) * magnitude;
}

std::string bandwidth_charts_html(const Matrix& m, const ReportSet& set) {
    std::map<std::vector<std::string>, std::size_t> column_of;
    for (std::size_t c = 0; c < m.columns.size(); ++c) {
        column_of[m.columns[c]] = c;
    }
    std::vector<Series> per_column(m.columns.size());
    std::vector<Ceiling> ceiling(m.columns.size());
    for (const RunEntry& run : set.runs) {
        std::vector<std::string> key;
        for (const GroupKey k : m.by) {
            key.push_back(set.groups_of(run)[static_cast<int>(k)]);
        }
        const std::size_t c = column_of.at(key);
        if (ceiling[c].gbps == 0 && !run.detail.is_null()) {
            ceiling[c] = link_ceiling(run.detail);
        }
        for (const MeasurementEntry& e : run.measurements) {
            const auto [name, unit] = split_pair(set.measures.at(e.name));
            const auto [series, size] = series_and_size(name);
            if (unit == "GB/s" && size > 0) {
                per_column[c][series][size].push_back(e.value);
            }
        }
    }
    std::string out;
    std::size_t charts = 0;
    for (std::size_t c = 0; c < m.columns.size() && charts < k_max_charts; ++c) {
        if (!per_column[c].empty()) {
            out += fmt::format("<figure class=\"chart\" data-col=\"{}\"><figcaption>{}</figcaption>{}</figure>\n", c,
                               xml_escape(m.column_title(c)), chart_svg(m.column_title(c), per_column[c], ceiling[c]));
            ++charts;
        }
    }
    return out.empty()
               ? "<p class=\"muted\">No GB/s measurements named &lt;series&gt;_&lt;bytes&gt; in these reports.</p>\n"
               : "<div id=\"group-charts\">" + out + "</div>\n";
}

std::string overlap_charts_html(const ReportSet& set) {
    std::string out;
    std::size_t charts = 0;
    for (const RunEntry& run : set.runs) {
        if (run.detail.is_null() || charts >= k_max_small_charts) {
            continue;
        }
        for (const auto& r : run.detail.value("results", nlohmann::json::array())) {
            double serial = 0;
            const std::vector<Lane> lanes = overlap_lanes(r, serial);
            if (lanes.empty() || charts >= k_max_small_charts) {
                continue;
            }
            const double ratio = value_of(r, "overlap_ratio");
            const std::string note = ratio >= 0
                                         ? fmt::format("overlap_ratio {:.2f}; dashed: one after the other", ratio)
                                         : std::string("dashed: one after the other");
            out +=
                fmt::format("<figure class=\"chart\"><figcaption>{} — {} {}</figcaption>{}</figure>\n",
                            xml_escape(string_at(run.detail, "/environment/hostname")), xml_escape(r.value("id", "")),
                            xml_escape(r.contains("device") && r["device"].is_number()
                                           ? fmt::format("[device {}]", r["device"].get<int>())
                                           : ""),
                            lanes_svg(lanes, lanes.size() > 1 ? serial : 0, note));
            ++charts;
        }
    }
    return out.empty() ? "<p class=\"muted\">No overlap measurements (copy_alone_ms, kernel_alone_ms, both_ms) or "
                         "facts.timeline "
                         "in the runs shown.</p>\n"
                       : out;
}

std::string sibling_charts_html(const ReportSet& set) {
    std::string out;
    std::size_t charts = 0;
    for (const RunEntry& run : set.runs) {
        if (run.detail.is_null() || charts >= k_max_small_charts) {
            continue;
        }
        // check id -> measurement name -> device -> value, for GB/s figures.
        std::map<std::string, std::map<std::string, std::map<int, double>>> by_check;
        for (const auto& r : run.detail.value("results", nlohmann::json::array())) {
            if (!r.contains("device") || !r["device"].is_number_integer()) {
                continue;
            }
            for (const auto& mj : r.value("measurements", nlohmann::json::array())) {
                if (mj.value("unit", "") == "GB/s" && mj.contains("value") && mj["value"].is_number()) {
                    by_check[r.value("id", "")][mj.value("name", "")][r["device"].get<int>()] =
                        mj["value"].get<double>();
                }
            }
        }
        for (const auto& [check, names] : by_check) {
            std::vector<std::pair<std::string, std::map<int, double>>> bars;
            std::set<int> devices;
            double max_value = 0;
            for (const auto& [name, per_device] : names) {
                if (per_device.size() >= 2 && bars.size() < 6) {
                    bars.emplace_back(name, per_device);
                    for (const auto& [d, v] : per_device) {
                        devices.insert(d);
                        max_value = std::max(max_value, v);
                    }
                }
            }
            if (bars.empty() || charts >= k_max_small_charts) {
                continue;
            }
            double step = 1;
            const double top = rounded_top(max_value, step);
            const double bar = 10;
            const double group_width = bar * static_cast<double>(devices.size()) + 14;
            const double plot_width = group_width * static_cast<double>(bars.size());
            const double width = std::max(k_width, k_left + plot_width + 20);
            const auto y = [&](double v) { return k_top + (1.0 - v / top) * (k_height - k_top - k_bottom - 40); };
            std::string svg =
                fmt::format("<svg class=\"chart siblings\" width=\"{}\" height=\"{}\" role=\"img\">", width, k_height);
            svg += value_axis(top, step, k_left, k_left + plot_width, y, "GB/s");
            for (std::size_t b = 0; b < bars.size(); ++b) {
                const double x0 = k_left + 6 + group_width * static_cast<double>(b);
                std::size_t i = 0;
                for (const int d : devices) {
                    const auto it = bars[b].second.find(d);
                    if (it != bars[b].second.end()) {
                        svg += fmt::format(
                            "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{}\" height=\"{:.1f}\" fill=\"{}\"><title>device "
                            "{}: {} "
                            "{:.2f} GB/s</title></rect>",
                            x0 + bar * static_cast<double>(i), y(it->second), bar - 1, y(0) - y(it->second),
                            colour_of(i), d, xml_escape(bars[b].first), it->second);
                    }
                    ++i;
                }
                svg += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" transform=\"rotate(30 {:.1f} {:.1f})\">{}</text>",
                                   x0, y(0) + 12, x0, y(0) + 12, xml_escape(bars[b].first));
            }
            std::size_t i = 0;
            for (const int d : devices) {
                svg += fmt::format(
                    "<rect x=\"{}\" y=\"{}\" width=\"10\" height=\"10\" fill=\"{}\"/><text x=\"{}\" y=\"{}\" "
                    "fill=\"{}\">device {}</text>",
                    k_left + plot_width + 12 > width - 80 ? width - 80 : k_left + plot_width + 12, k_top + 14 * i,
                    colour_of(i), (k_left + plot_width + 12 > width - 80 ? width - 80 : k_left + plot_width + 12) + 14,
                    k_top + 14 * i + 9, colour_of(i), d);
                ++i;
            }
            out += fmt::format("<figure class=\"chart\"><figcaption>{} — {}: each GPU</figcaption>{}</svg></figure>\n",
                               xml_escape(string_at(run.detail, "/environment/hostname")), xml_escape(check), svg);
            ++charts;
        }
    }
    return out.empty() ? "<p class=\"muted\">No GB/s figure measured on two or more GPUs of one run shown.</p>\n" : out;
}

std::string trend_charts_html(const ReportSet& set) {
    // host -> runs in path order (nightly reports sort by their dated names).
    std::map<std::string, std::vector<std::uint32_t>> runs_of;
    for (std::uint32_t i = 0; i < set.runs.size(); ++i) {
        runs_of[set.groups_of(set.runs[i])[static_cast<int>(GroupKey::Host)]].push_back(i);
    }
    std::string out;
    std::size_t charts = 0;
    for (const auto& [host, runs] : runs_of) {
        if (runs.size() < 2 || charts >= k_max_small_charts) {
            continue;
        }
        // Key figures: each GB/s measurement's median over devices, per run; those seen in two runs or more.
        std::map<std::string, std::map<std::size_t, std::vector<double>>> figures;
        for (std::size_t k = 0; k < runs.size(); ++k) {
            for (const MeasurementEntry& e : set.runs[runs[k]].measurements) {
                const auto [name, unit] = split_pair(set.measures.at(e.name));
                if (unit == "GB/s") {
                    figures[name][k].push_back(e.value);
                }
            }
        }
        std::vector<std::pair<std::string, std::map<std::size_t, double>>> series;
        double max_value = 0;
        for (const auto& [name, per_run] : figures) {
            if (per_run.size() >= 2 && series.size() < 8) {
                std::map<std::size_t, double> med;
                for (const auto& [k, values] : per_run) {
                    med[k] = median(values);
                    max_value = std::max(max_value, med[k]);
                }
                series.emplace_back(name, std::move(med));
            }
        }
        if (series.empty()) {
            continue;
        }
        double step = 1;
        const double top = rounded_top(max_value, step);
        const double last_run = static_cast<double>(runs.size() - 1);  // a structured binding: not captured (clang)
        const auto x = [&](std::size_t k) { return k_left + static_cast<double>(k) / last_run * k_plot_width; };
        const auto y = [&](double v) { return k_top + (1.0 - v / top) * (k_height - k_top - k_bottom); };
        std::string svg =
            fmt::format("<svg class=\"chart trend\" width=\"{}\" height=\"{}\" role=\"img\">", k_width, k_height);
        svg += value_axis(top, step, k_left, k_left + k_plot_width, y, "GB/s");
        for (std::size_t i = 0; i < series.size(); ++i) {
            std::string pts;
            for (const auto& [k, v] : series[i].second) {
                pts += fmt::format("{:.1f},{:.1f} ", x(k), y(v));
                svg += fmt::format(
                    "<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"2.5\" fill=\"{}\"><title>{} run {}: {:.2f} "
                    "GB/s</title></circle>",
                    x(k), y(v), colour_of(i), xml_escape(series[i].first), xml_escape(set.runs[runs[k]].run_id), v);
            }
            svg += fmt::format(
                "<polyline class=\"series\" data-series=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"1.8\"{} "
                "points=\"{}\"/>",
                xml_escape(series[i].first), colour_of(i), dash_attr(i), pts);
            svg += legend_entry(k_left + k_plot_width + 14, k_top + 14 * (i + 1), i, series[i].first);
        }
        svg += fmt::format("<text x=\"{}\" y=\"{}\">{} runs, oldest left (in file-name order)</text></svg>", k_left,
                           k_height - 2, runs.size());
        out += fmt::format(
            "<figure class=\"chart\"><figcaption>{} — key GB/s figures run over run</figcaption>{}</figure>\n",
            xml_escape(host), svg);
        ++charts;
    }
    return out.empty() ? "<p class=\"muted\">No host with two or more runs carrying GB/s measurements.</p>\n" : out;
}

namespace {
// A declining figure's nightly values, zoomed to their own range (a 1 % a night slide is flat on a
// chart from zero), with the Theil-Sen trend line dashed over them.
std::string decline_svg(const nlohmann::json& d) {
    constexpr double w = 360, h = 120, left = 56, right = 12, top = 10, bottom = 22;
    std::vector<std::pair<std::string, double>> points;
    for (const auto& p : d.value("series", nlohmann::json::array())) {
        if (p.is_object() && p.contains("value") && p["value"].is_number()) {
            points.emplace_back(p.value("started", ""), p["value"].get<double>());
        }
    }
    if (points.size() < 2) {
        return "";
    }
    const double first_trend = d.value("trend_first", points.front().second);
    const double last_trend = d.value("trend_last", points.back().second);
    double lo = std::min(first_trend, last_trend), hi = std::max(first_trend, last_trend);
    for (const auto& p : points) {
        lo = std::min(lo, p.second);
        hi = std::max(hi, p.second);
    }
    const double pad = std::max((hi - lo) * 0.1, std::fabs(hi) * 1e-3 + 1e-12);
    lo -= pad;
    hi += pad;
    const auto x = [&](std::size_t k) {
        return left + static_cast<double>(k) / static_cast<double>(points.size() - 1) * (w - left - right);
    };
    const auto y = [&](double v) { return top + (hi - v) / (hi - lo) * (h - top - bottom); };
    const std::string unit = xml_escape(d.value("unit", ""));
    std::string svg = fmt::format("<svg class=\"chart decline\" width=\"{}\" height=\"{}\" role=\"img\">", w, h);
    svg += fmt::format("<text x=\"2\" y=\"{:.1f}\">{:.4g}</text><text x=\"2\" y=\"{:.1f}\">{:.4g}</text>", top + 8, hi,
                       h - bottom, lo);
    std::string pts;
    for (std::size_t k = 0; k < points.size(); ++k) {
        pts += fmt::format("{:.1f},{:.1f} ", x(k), y(points[k].second));
        svg += fmt::format(
            "<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"2.2\" fill=\"{}\"><title>{}: {:.4g} {}</title></circle>", x(k),
            y(points[k].second), colour_of(0), xml_escape(points[k].first), points[k].second, unit);
    }
    svg += fmt::format("<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"1.5\" points=\"{}\"/>", colour_of(0), pts);
    svg += fmt::format(
        "<line class=\"trend\" x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"{}\" "
        "stroke-width=\"1.5\" stroke-dasharray=\"5 3\"/>",
        x(0), y(first_trend), x(points.size() - 1), y(last_trend), colour_of(1));
    svg += fmt::format("<text x=\"{}\" y=\"{}\">{} nights, oldest left; dashed: the trend ({})</text></svg>", left,
                       h - 4, points.size(), unit);
    return svg;
}
}  // namespace

std::string declines_html(const nlohmann::json& declines) {
    constexpr std::size_t k_max_decline_charts = 50;
    if (!declines.is_array() || declines.empty()) {
        return "<p>No node's key figure declined steadily over its last nights (as <code>gpuconform store "
               "drift</code> judges).</p>\n";
    }
    std::string out = fmt::format(
        "<p>{} figure(s) of nodes whose nightly value fell steadily under unchanged software, before any one night "
        "crossed a threshold (<code>gpuconform store drift</code>: Theil-Sen trend, at least 5 % over the window, "
        "beyond 3 residual spreads, steadier than chance makes any of the series judged together).</p>\n<table "
        "class=\"declines\"><thead><tr><th>node</th>"
        "<th>figure</th><th>nights</th><th>decline</th><th>per night</th><th>first → last</th><th>chart</th></tr>"
        "</thead><tbody>\n",
        declines.size());
    std::size_t charts = 0;
    for (const auto& d : declines) {
        if (!d.is_object()) {
            continue;
        }
        const std::string unit = xml_escape(d.value("unit", ""));
        const std::string chart = charts < k_max_decline_charts ? decline_svg(d) : "";
        charts += chart.empty() ? 0 : 1;
        out += fmt::format(
            "<tr><td>{}</td><td>{} {}</td><td>{}</td><td>{:.1f} %</td><td>{:+.2f} %</td><td>{:.4g} → {:.4g} {}</td>"
            "<td>{}</td></tr>\n",
            xml_escape(d.value("host", "")), xml_escape(d.value("check", "")), xml_escape(d.value("name", "")),
            d.value("nights", 0), 100.0 * d.value("decline", 0.0), 100.0 * d.value("relative_per_night", 0.0),
            d.value("first", 0.0), d.value("last", 0.0), unit, chart.empty() ? "(not drawn)" : chart);
    }
    return out + "</tbody></table>\n";
}

}  // namespace gpuconform
