// Prometheus naming: base units with the unit in the name, one metric per quantity, host facts
// in one info series, bounded label values.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "prometheus_names.hpp"
#include "render_prometheus.hpp"
#include "report_builder.hpp"

namespace gpuconform {
namespace {

TEST(PrometheusNames, MillisecondsBecomeSecondsAndTheUnitLeavesTheName) {
    const auto q = prometheus_quantity("async.launch.returns_early", "launch_call_ms", "ms");
    EXPECT_EQ(q.metric, "gpuconform_async_launch_returns_early_launch_call_seconds");
    EXPECT_DOUBLE_EQ(q.scale, 1e-3);
    EXPECT_EQ(prometheus_quantity("a.b", "call_ms_pinned_H2D_64KiB", "ms").metric,
              "gpuconform_a_b_call_pinned_h2d_64kib_seconds");
}

TEST(PrometheusNames, BandwidthIsBytesPerSecond) {
    const auto q = prometheus_quantity("async.copy.bandwidth", "h2d_pinned_bw_268435456", "GB/s");
    EXPECT_EQ(q.metric, "gpuconform_async_copy_bandwidth_h2d_pinned_bw_268435456_bytes_per_second");
    EXPECT_DOUBLE_EQ(q.scale, 1e9);
}

TEST(PrometheusNames, CountsGetNoReservedSuffix) {
    const auto q = prometheus_quantity("host.cpu", "logical_cpus", "count");
    EXPECT_EQ(q.metric, "gpuconform_host_cpu_logical_cpus");
    EXPECT_DOUBLE_EQ(q.scale, 1.0);
    EXPECT_EQ(prometheus_quantity("host.memory", "memory", "bytes").metric, "gpuconform_host_memory_memory_bytes");
}

TEST(PrometheusNames, NoWordReadsAsAnAbbreviatedUnitOrAReservedSuffix) {
    EXPECT_EQ(prometheus_quantity("async.overlap.kernel_kernel", "kernel_b_alone_ms", "ms").metric,
              "gpuconform_async_overlap_kernel_kernel_kernelb_alone_seconds");
    EXPECT_EQ(prometheus_quantity("runtime.sim.devices", "device_count", "count").metric,
              "gpuconform_runtime_sim_devices_device");
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
    EXPECT_NE(text.find("bw\\ngpuconform_forged 1\\n# x of async.copy.bw"), std::string::npos) << text;
    if (std::system("command -v promtool >/dev/null 2>&1") != 0) {
        GTEST_SKIP() << "no promtool (apt-get install prometheus) to check the file as a scraper would";
    }
    const std::string path = ::testing::TempDir() + "gpuconform-help.prom";
    std::ofstream(path) << text;
    EXPECT_EQ(std::system(("promtool check metrics < " + path + " >/dev/null 2>&1").c_str()), 0) << text;
    std::remove(path.c_str());
}

}  // namespace
}  // namespace gpuconform
