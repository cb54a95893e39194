// End to end on the built gpuconform: bytes that are not UTF-8 in the environment, hidden GPUs
// folded into a few lines, and a simulated co-tenant named in the report's causes.
#include <gtest/gtest.h>

#include "cli_helpers.hpp"

namespace gpuconform::test {
namespace {

TEST(BusyNode, NonUtf8EnvironmentStillWritesAValidReport) {
    const auto dir = temp_dir("utf8");
    const auto path = dir / "r.json";
    const auto out = run_cli("run --layer host --json " + path.string(),
                             "CUDA_VISIBLE_DEVICES=\"$(printf '\\377')\" CUDA_PROFILE=\"$(printf '1\\376')\"");
    ASSERT_TRUE(out.exit_code == 0 || out.exit_code == 1) << out.output;
    const auto report = read_json(path);  // throws on invalid UTF-8
    const auto& env = report.at("environment");
    EXPECT_EQ(env.at("env").at("CUDA_VISIBLE_DEVICES"), "\xEF\xBF\xBD");
    EXPECT_EQ(env.at("env_raw").at("CUDA_VISIBLE_DEVICES"), "\\xff");
    EXPECT_EQ(env.at("env_raw").at("CUDA_PROFILE"), "1\\xfe");
}

TEST(BusyNode, HiddenGpusAreOneCauseAndAFewLines) {
    const auto dir = temp_dir("hidden");
    const auto path = dir / "r.json";
    const auto none = run_cli("run --layer host,async --backend cuda --json " + path.string(), "CUDA_VISIBLE_DEVICES=");
    ASSERT_TRUE(none.exit_code == 0 || none.exit_code == 1) << none.output;
    const auto report = read_json(path);
    ASSERT_TRUE(report.contains("causes")) << none.output;
    bool found = false;
    for (const auto& c : report.at("causes")) {
        found = found || c.at("kind") == "hidden_gpus" || c.at("kind") == "no_driver";
    }
    EXPECT_TRUE(found) << report.at("causes").dump(1);
    int skip_lines = 0;
    std::size_t pos = 0;
    while ((pos = none.output.find("SKIP", pos)) != std::string::npos) {
        ++skip_lines;
        ++pos;
    }
    EXPECT_LE(skip_lines, 8) << none.output;
    EXPECT_NE(none.output.find("verdict: "), std::string::npos) << none.output;
    EXPECT_TRUE(none.output.find("[hidden_gpus]") != std::string::npos ||
                none.output.find("[no_driver]") != std::string::npos)
        << none.output;
}

TEST(BusyNode, SimCotenantIsNamedAndNothingFails) {
    const auto dir = temp_dir("cotenant");
    const auto path = dir / "r.json";
    const auto out = run_cli(
        "run --layer async --backend sim --quick --sim-cotenant 0 --busy-wait 0 "
        "--only 'async.device.occupancy,async.copy.bandwidth,async.copy.pinned_returns_early' --json " +
        path.string());
    EXPECT_EQ(out.exit_code, 1) << out.output;  // the disturbed bandwidth check is an error
    const auto report = read_json(path);
    const auto* bw = find_result(report, "async.copy.bandwidth");
    ASSERT_NE(bw, nullptr);
    EXPECT_EQ(bw->at("status"), "error");
    EXPECT_EQ(bw->at("timing_sensitive"), true);
    EXPECT_EQ(bw->at("disturbance").at("others").at(0).at("name"), "sim-cotenant");
    EXPECT_EQ(find_result(report, "async.copy.pinned_returns_early")->at("status"), "pass");
    EXPECT_EQ(find_result(report, "async.device.occupancy")->at("status"), "warn");
    ASSERT_TRUE(report.contains("causes"));
    EXPECT_EQ(report.at("causes").at(0).at("kind"), "busy_gpu");
    EXPECT_EQ(report.at("environment").at("gpu_occupancy").at(0).at("others").at(0).at("name"), "sim-cotenant");
    EXPECT_NE(out.output.find("sim-cotenant"), std::string::npos) << out.output;
}

}  // namespace
}  // namespace gpuconform::test
