// End to end: the built gpuconform on this machine, as a user runs it.
#include <gtest/gtest.h>

#include "cli_helpers.hpp"

namespace gpuconform::test {
namespace {

namespace fs = std::filesystem;

TEST(RunReport, HostAndRuntimeLayersWriteASchemaValidReport) {
    const auto dir = temp_dir("hostrt");
    const auto path = dir / "r.json";
    const auto out = run_cli("run --layer host,runtime --json " + path.string());
    ASSERT_TRUE(out.exit_code == 0 || out.exit_code == 1) << out.output;
    const auto report = read_json(path);
    EXPECT_EQ(report.at("schema"), "gpuconform-report");
    EXPECT_EQ(report.at("run").at("exit_status"), out.exit_code);
    EXPECT_NE(find_result(report, "host.memlock"), nullptr);
    EXPECT_NE(find_result(report, "runtime.cuda.load"), nullptr);
    EXPECT_EQ(report.at("environment").at("distro").at("id").get<std::string>().empty(), false);
    const auto err = schema_error(path);
    if (err == "unavailable") {
        GTEST_SKIP() << "no python with jsonschema to validate against reports/schema";
    }
    EXPECT_EQ(err, "") << err;
}

TEST(RunReport, WithNoBackendModuleTheRuntimesAreReportedAndDeviceChecksSaySkippedWhy) {
    const auto dir = temp_dir("nomodule");
    const auto path = dir / "r.json";
    const auto out = run_cli("run --layer host,runtime,async --json " + path.string(),
                             "GPUCONFORM_MODULE_DIR=" + (dir / "empty").string());
    const auto report = read_json(path);
    const auto* load = find_result(report, "runtime.cuda.load");
    ASSERT_NE(load, nullptr);
    EXPECT_NE(load->at("status"), "pass");
    EXPECT_NE(load->at("summary").get<std::string>().find("not found"), std::string::npos);
    const auto* launch = find_result(report, "async.launch.returns_early");
    ASSERT_NE(launch, nullptr);
    EXPECT_EQ(launch->at("status"), "skip");
    EXPECT_NE(launch->at("summary").get<std::string>().find("no GPU device"), std::string::npos);
    if (const auto err = schema_error(path); err != "unavailable") {
        EXPECT_EQ(err, "") << err;
    }
}

TEST(RunReport, ACorruptModuleIsALoaderMessageNotACrash) {
    const auto dir = temp_dir("corrupt");
    std::ofstream(dir / "libgpuconform-cuda.so") << "not an ELF file";
    const auto path = dir / "r.json";
    const auto out = run_cli("run --layer runtime --json " + path.string(), "GPUCONFORM_MODULE_DIR=" + dir.string());
    const auto report = read_json(path);
    bool found = false;
    for (const auto& b : report.at("backends")) {
        if (b.at("name") == "cuda") {
            found = true;
            EXPECT_FALSE(b.at("loaded").get<bool>());
            EXPECT_NE(b.at("load_error").get<std::string>().find("libgpuconform-cuda.so"), std::string::npos);
        }
    }
    EXPECT_TRUE(found) << out.output;
}

TEST(RunReport, SimulatedFaultFailsTheRunAndNamesTheCheck) {
    const auto dir = temp_dir("simfault");
    const auto path = dir / "r.json";
    const auto junit = dir / "r.xml";
    const auto out = run_cli("run --backend sim --fault slow_link --layer async --only async.copy.bandwidth --quick --json " +
                             path.string() + " --junit " + junit.string());
    EXPECT_EQ(out.exit_code, 1) << out.output;
    const auto report = read_json(path);
    const auto* bw = find_result(report, "async.copy.bandwidth");
    ASSERT_NE(bw, nullptr);
    EXPECT_EQ(bw->at("status"), "fail");
    EXPECT_EQ(bw->at("backend"), "sim");
    EXPECT_EQ(bw->at("device"), 0);
    std::ifstream in(junit);
    const std::string xml((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_NE(xml.find("<failure"), std::string::npos);
    EXPECT_NE(xml.find("async.copy.bandwidth"), std::string::npos);
}

TEST(RunReport, AHungCheckTimesOutAndTheNextStillRuns) {
    const auto dir = temp_dir("hang");
    const auto path = dir / "r.json";
    run_cli("run --backend sim --fault hang --check-timeout 2 --layer async "
            "--only 'async.launch.*,async.event.timing_accuracy' --json " + path.string());
    const auto report = read_json(path);
    const auto* launch = find_result(report, "async.launch.returns_early");
    const auto* timing = find_result(report, "async.event.timing_accuracy");
    ASSERT_NE(launch, nullptr);
    ASSERT_NE(timing, nullptr);
    EXPECT_EQ(launch->at("status"), "error");
    EXPECT_NE(launch->at("summary").get<std::string>().find("timed out after 2 s"), std::string::npos);
    EXPECT_EQ(timing->at("status"), "error");
}

TEST(RunReport, JsonToStdoutIsTheReportAlone) {
    const auto out = run_cli("run --layer host --json -", "", false);
    const auto report = nlohmann::json::parse(out.output, nullptr, false);
    ASSERT_FALSE(report.is_discarded()) << out.output;
    EXPECT_EQ(report.at("schema"), "gpuconform-report");
}

}  // namespace
}  // namespace gpuconform::test
