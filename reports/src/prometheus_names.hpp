// Prometheus naming for measurements: one metric per quantity, named after the check and the
// measurement, in base units with the unit in the name (seconds, bytes, bytes_per_second, ratio).
// https://prometheus.io/docs/practices/naming/
#pragma once

#include <string>
#include <string_view>

namespace gpuconform {

struct PrometheusQuantity {
    std::string metric;  // e.g. gpuconform_async_copy_bandwidth_h2d_pinned_256mib_bytes_per_second
    double scale = 1.0;  // multiply the report's value by this to get the base unit
    std::string unit;    // the report's unit, for HELP
};

// check id "async.launch.returns_early", measurement "launch_call_ms" (unit ms) ->
// gpuconform_async_launch_returns_early_launch_call_seconds, scale 1e-3.
PrometheusQuantity prometheus_quantity(std::string_view check_id, std::string_view name, std::string_view unit);

// Only [a-z0-9_], lower case; runs of others become one '_'.
std::string prometheus_name_part(std::string_view s);

// A label value of at most k_max_label_bytes bytes (cut on a UTF-8 boundary, marked with "..."),
// escaped for the text format, so one long driver string cannot blow up a series.
inline constexpr std::size_t k_max_label_bytes = 128;
std::string bounded_label_value(std::string_view s);

}  // namespace gpuconform
