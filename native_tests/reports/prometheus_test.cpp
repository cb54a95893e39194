// Prometheus naming: base units with the unit in the name, one metric per quantity, host facts
// in one info series, bounded label values.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "reports/prometheus_names.hpp"
#include "reports/render_prometheus.hpp"
#include "report_builder.hpp"

namespace gpuconform {
namespace {

using Labels = std::vector<std::pair<std::string, std::string>>;

TEST(PrometheusNames, MillisecondsBecomeSecondsAndTheUnitLeavesTheName) {
    const auto q = prometheus_quantity("launch_call_ms", "ms");
    EXPECT_EQ(q.metric, "gpuconform_launch_call_seconds");
    EXPECT_DOUBLE_EQ(q.scale, 1e-3);
    EXPECT_TRUE(q.labels.empty());
}

TEST(PrometheusNames, DirectionMemoryKindAndSizeAreLabels) {
    const auto q = prometheus_quantity("call_ms_pinned_H2D_64KiB", "ms");
    EXPECT_EQ(q.metric, "gpuconform_call_seconds");
    EXPECT_EQ(q.labels, (Labels{{"memory", "pinned"}, {"direction", "h2d"}, {"size", "64KiB"}}));
    // Every spelling of a size is one label value: a bare byte count and KiB/MiB words alike.
    EXPECT_EQ(prometheus_quantity("call_ms_67108864", "ms").labels, (Labels{{"size", "64MiB"}}));
    EXPECT_EQ(prometheus_quantity("bw_pinned_D2H_256MiB", "GB/s").labels,
              (Labels{{"memory", "pinned"}, {"direction", "d2h"}, {"size", "256MiB"}}));
}

TEST(PrometheusNames, BandwidthIsBytesPerSecondWithTheAbbreviationSpelledOut) {
    const auto q = prometheus_quantity("h2d_pinned_bw_268435456", "GB/s");
    EXPECT_EQ(q.metric, "gpuconform_bandwidth_bytes_per_second");
    EXPECT_EQ(q.labels, (Labels{{"memory", "pinned"}, {"direction", "h2d"}, {"size", "256MiB"}}));
    EXPECT_DOUBLE_EQ(q.scale, 1e9);
    const auto peer = prometheus_quantity("peer_bw_0to1", "GB/s");
    EXPECT_EQ(peer.metric, "gpuconform_peer_bandwidth_bytes_per_second");
    EXPECT_EQ(peer.labels, (Labels{{"direction", "0to1"}}));
}

TEST(PrometheusNames, TwoMemoryKindsOrOnlyOneWordStayInTheName) {
    const auto q = prometheus_quantity("pinned_over_pageable_D2H_ratio", "ratio");
    EXPECT_EQ(q.metric, "gpuconform_pinned_over_pageable_ratio");
    EXPECT_EQ(q.labels, (Labels{{"direction", "d2h"}}));
    EXPECT_EQ(prometheus_quantity("pinned_bytes", "bytes").metric, "gpuconform_pinned_bytes");
}

TEST(PrometheusNames, StreamCountsAndPciAddressesAreLabels) {
    const auto q = prometheus_quantity("wall_16_streams", "ms");
    EXPECT_EQ(q.metric, "gpuconform_wall_seconds");
    EXPECT_EQ(q.labels, (Labels{{"streams", "16"}}));
    const auto link = prometheus_quantity("0000:00:06.0 current_speed", "GT/s");
    EXPECT_EQ(link.metric, "gpuconform_current_speed_transfers_per_second");
    EXPECT_EQ(link.labels, (Labels{{"pci_address", "0000:00:06.0"}}));
    EXPECT_DOUBLE_EQ(link.scale, 1e9);
}

TEST(PrometheusNames, VendorUnitsBecomeBaseUnits) {
    EXPECT_EQ(prometheus_quantity("temperature_c", "\u00b0C").metric, "gpuconform_temperature_celsius");
    const auto power = prometheus_quantity("power_limit_mw", "mW");
    EXPECT_EQ(power.metric, "gpuconform_power_limit_watts");
    EXPECT_DOUBLE_EQ(power.scale, 1e-3);
    const auto util = prometheus_quantity("utilization", "%");
    EXPECT_EQ(util.metric, "gpuconform_utilization_ratio");
    EXPECT_DOUBLE_EQ(util.scale, 0.01);
}

TEST(PrometheusNames, CountsGetNoReservedSuffix) {
    const auto q = prometheus_quantity("logical_cpus", "count");
    EXPECT_EQ(q.metric, "gpuconform_logical_cpus");
    EXPECT_DOUBLE_EQ(q.scale, 1.0);
    EXPECT_EQ(prometheus_quantity("memory", "bytes").metric, "gpuconform_memory_bytes");
    EXPECT_EQ(prometheus_quantity("device_count", "count").metric, "gpuconform_devices");
}

TEST(PrometheusNames, NoWordReadsAsAnAbbreviatedUnit) {
    EXPECT_EQ(prometheus_quantity("kernel_b_alone_ms", "ms").metric, "gpuconform_kernelb_alone_seconds");
}

// A hostile report's megabyte measurement name is not a megabyte metric name, and two long names
// that share their start stay two metrics.
TEST(PrometheusNames, LongNamesAreBoundedAndStayDistinct) {
    const std::string a = std::string(1 << 20, 'a') + "_x_ms";
    const std::string b = std::string(1 << 20, 'a') + "_y_ms";
    const auto qa = prometheus_quantity(a, "ms");
    const auto qb = prometheus_quantity(b, "ms");
    EXPECT_LE(qa.metric.size(), 200u);
    EXPECT_NE(qa.metric, qb.metric);
    EXPECT_TRUE(qa.metric.starts_with("gpuconform_aaaa"));
    EXPECT_TRUE(qa.metric.ends_with("_seconds")) << qa.metric;
    EXPECT_EQ(prometheus_quantity(a, "ms").metric, qa.metric);  // the same name, the same metric
}

TEST(PrometheusNames, LongLabelValuesAreCutOnACharacterBoundary) {
    const std::string long_value = std::string(k_max_label_bytes - 4, 'x') + "\xC3\xA9\xC3\xA9\xC3\xA9";
    const std::string out = bounded_label_value(long_value);
    EXPECT_LE(out.size(), k_max_label_bytes);
    EXPECT_EQ(out.substr(out.size() - 3), "...");
    EXPECT_EQ(out.substr(0, 5), "xxxxx");
    EXPECT_NE(static_cast<unsigned char>(out[out.size() - 4]), 0xC3u);  // no half character before "..."
    EXPECT_EQ(bounded_label_value("short \"q\""), "short \\\"q\\\"");
}

TEST(PrometheusReport, RunMetricsAndOneInfoSeries) {
    auto report = test::make_report("r1", "node1", "Debian 12", "NVIDIA H200", {{"host.memlock", "pass"}});
    report["run"]["finished"] = "2026-11-29T16:32:31Z";
    report["run"]["duration_s"] = 1.5;
    report["run"]["exit_status"] = 1;
    const std::string out = render_report_prometheus(report);
    EXPECT_NE(out.find("gpuconform_last_run_timestamp_seconds 1795969951\n"), std::string::npos) << out;
    EXPECT_NE(out.find("gpuconform_last_run_duration_seconds 1.5\n"), std::string::npos);
    EXPECT_NE(out.find("gpuconform_last_run_exit_status 1\n"), std::string::npos);
    EXPECT_NE(out.find("gpuconform_info{host=\"node1\""), std::string::npos);
    EXPECT_NE(out.find("gpuconform_check_status{check=\"host.memlock\",status=\"pass\"} 1\n"), std::string::npos);
    // Host facts only on the info series: a distro upgrade renames nothing else.
    std::size_t distro_labels = 0;
    for (auto pos = out.find("distro=\""); pos != std::string::npos; pos = out.find("distro=\"", pos + 1)) {
        ++distro_labels;
    }
    EXPECT_EQ(distro_labels, 1u);
}

}  // namespace
}  // namespace gpuconform

namespace gpuconform {
namespace {

// HELP text per the exposition format: a newline in a measurement name forged a series that
// promtool accepted, and a raw backslash made the textfile collector drop the whole file.
TEST(PrometheusHelp, NewlinesAndBackslashesInHelpAreEscaped) {
    const auto report =
        test::make_report("run-1", "node1", "Debian", "NVIDIA H200",
                          {{"async.copy.bw", "info", 0, {{"bw\ngpuconform_forged 1\n# x", 1.5}, {"a\\b\\", 2.5}}}});
    const std::string text = render_report_prometheus(report);
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
        EXPECT_NE(line.rfind("gpuconform_forged", 0), 0u) << text;
        if (line.rfind("# HELP ", 0) == 0) {
            for (std::size_t i = 0; i < line.size(); ++i) {
                if (line[i] == '\\') {
                    ASSERT_LT(i + 1, line.size()) << line;
                    EXPECT_TRUE(line[i + 1] == '\\' || line[i + 1] == 'n') << line;
                    ++i;
                }
            }
        }
    }
    // The measurement's name reaches the exposition only through the metric name's [a-z0-9_].
    EXPECT_NE(text.find("gpuconform_bandwidth_gpuconform_forged_1_x_bytes_per_second{check=\"async.copy.bw\""),
              std::string::npos)
        << text;
    if (std::system("command -v promtool >/dev/null 2>&1") != 0) {
        GTEST_SKIP() << "no promtool (apt-get install prometheus) to check the file as a scraper would";
    }
    const std::string path = ::testing::TempDir() + "gpuconform-help.prom";
    std::ofstream(path) << text;
    EXPECT_EQ(std::system(("promtool check metrics < " + path + " >/dev/null 2>&1").c_str()), 0) << text;
    std::remove(path.c_str());
}

// One metric per quantity: the same quantity of two checks and two sizes is one name, told apart
// by labels; the check and device come first.
TEST(PrometheusReport, OneMetricPerQuantityWithCheckAndMeasurementLabels) {
    const auto report = test::make_report(
        "r1", "node1", "Debian 12", "NVIDIA H200",
        {{"async.copy.bandwidth", "pass", 0, {{"bw_pinned_H2D_1MiB", 20.0}, {"bw_pinned_H2D_256MiB", 50.0}}},
         {"async.peer.copy_bandwidth", "pass", -1, {{"peer_bw_0to1", 40.0}}}});
    const std::string out = render_report_prometheus(report);
    EXPECT_NE(out.find("gpuconform_bandwidth_bytes_per_second{check=\"async.copy.bandwidth\",device=\"cuda:0\","
                       "memory=\"pinned\",direction=\"h2d\",size=\"256MiB\"} 50000000000\n"),
              std::string::npos)
        << out;
    EXPECT_NE(out.find("gpuconform_peer_bandwidth_bytes_per_second{check=\"async.peer.copy_bandwidth\","
                       "direction=\"0to1\"} 40000000000\n"),
              std::string::npos)
        << out;
    std::size_t type_lines = 0;
    for (auto pos = out.find("# TYPE gpuconform_bandwidth_bytes_per_second gauge"); pos != std::string::npos;
         pos = out.find("# TYPE gpuconform_bandwidth_bytes_per_second gauge", pos + 1)) {
        ++type_lines;
    }
    EXPECT_EQ(type_lines, 1u);
}

}  // namespace
}  // namespace gpuconform
