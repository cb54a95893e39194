// Prometheus naming for measurements (https://prometheus.io/docs/practices/naming/): one metric
// per quantity, in base units with the unit in the name, and labels for what tells its series
// apart. The measurement name is read once, here, by one rule: words that name a copy direction,
// a memory kind, a size, a stream count or a PCI address become labels; the rest is the quantity.
// The check is a label too (set by the renderer), so one query covers a quantity in every check.
// docs/prometheus.md lists the names and the queries a site writes.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gpuconform {

struct PrometheusQuantity {
    std::string metric;  // e.g. gpuconform_bandwidth_bytes_per_second
    // Labels read from the measurement name, in a fixed order: pci_address, memory, direction,
    // size, streams. Values are canonical ("h2d", "pinned", "256MiB", "16").
    std::vector<std::pair<std::string, std::string>> labels;
    double scale = 1.0;  // multiply the report's value by this to get the base unit
    std::string unit;    // the report's unit, for HELP
};

// measurement "bw_pinned_H2D_256MiB" (unit GB/s) -> gpuconform_bandwidth_bytes_per_second
// {memory="pinned",direction="h2d",size="256MiB"}, scale 1e9; "launch_call_ms" (ms) ->
// gpuconform_launch_call_seconds, scale 1e-3.
PrometheusQuantity prometheus_quantity(std::string_view name, std::string_view unit);

// Only [a-z0-9_], lower case; runs of others become one '_'.
std::string prometheus_name_part(std::string_view s);

// A label value of at most k_max_label_bytes bytes (cut on a UTF-8 boundary, marked with "..."),
// escaped for the text format, so one long driver string cannot blow up a series.
inline constexpr std::size_t k_max_label_bytes = 128;
std::string bounded_label_value(std::string_view s);

}  // namespace gpuconform
