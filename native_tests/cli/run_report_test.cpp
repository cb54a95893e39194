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

TEST(RunReport, SimulatedFaultFailsTheRunAndNamesTheCheck) {
    const auto dir = temp_dir("simfault");
    const auto path = dir / "r.json";
    const auto junit = dir / "r.xml";
    const auto out =
        run_cli("run --backend sim --fault slow_link --layer async --only async.copy.bandwidth --quick --json " +
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

TEST(RunReport, JsonToStdoutIsTheReportAlone) {
    const auto out = run_cli("run --layer host --json -", "", false);
    const auto report = nlohmann::json::parse(out.output, nullptr, false);
    ASSERT_FALSE(report.is_discarded()) << out.output;
    EXPECT_EQ(report.at("schema"), "gpuconform-report");
}

}  // namespace
}  // namespace gpuconform::test
