// End to end on the simulated backend: real runs, then `gpuconform diff` as an operator uses it.
// The sim proves the diff catches each degradation; it is no evidence about hardware noise
// (the committed H200 repeat runs are, in native_tests/reports/diff_test.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>

#include "cli_helpers.hpp"

namespace gpuconform::test {
namespace {

namespace fs = std::filesystem;

const char* const k_checks = "--only async.copy.bandwidth,async.copy.pinned_returns_early,async.overlap.copy_compute";

class DiffSim : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        s_dir = temp_dir("diffsim");
        // The base runs every async check once, so every measurement the sim records is seen.
        // Under ctest one run serves every test (GPUCONFORM_TEST_SHARED_RUN, native_tests/CMakeLists.txt).
        if (const char* shared = std::getenv("GPUCONFORM_TEST_SHARED_RUN"); shared != nullptr && fs::exists(shared)) {
            s_base = shared;
            return;
        }
        s_base = s_dir / "base.json";
        run_cli("run --backend sim --layer async --quick --json " + s_base.string());
    }
    static fs::path after(const std::string& name, const std::string& args) {
        const fs::path p = s_dir / (name + ".json");
        run_cli("run --backend sim --layer async --quick " + args + " --json " + p.string());
        return p;
    }
    static inline fs::path s_dir;
    static inline fs::path s_base;
};

TEST_F(DiffSim, EveryRecordedMeasurementDeclaresDirectionAndRole) {
    const nlohmann::json report = read_json(s_base);
    int seen = 0;
    for (const auto& r : report.at("results")) {
        for (const auto& m : r.at("measurements")) {
            ++seen;
            EXPECT_TRUE(m.contains("direction") && m.contains("role")) << r.at("id") << " " << m.at("name");
        }
    }
    EXPECT_GT(seen, 50);
    EXPECT_EQ(schema_error(s_base), "");
}

TEST_F(DiffSim, ALinkAt80PercentIsAKeyRegression) {
    const auto out = run_cli("diff " + s_base.string() + " " +
                             after("link", std::string(k_checks) + " --fault link_at_80pct").string());
    EXPECT_EQ(out.exit_code, 1) << out.output;
    EXPECT_NE(out.output.find("worse   key async.copy.bandwidth [sim:0] bw_pinned_H2D_256MiB"), std::string::npos)
        << out.output;
    EXPECT_NE(out.output.find("verdict: REGRESSED"), std::string::npos);
}

TEST_F(DiffSim, APinnedCopyThatBlocksIsAFailingCheck) {
    const auto out = run_cli("diff " + s_base.string() + " " +
                             after("blocks", std::string(k_checks) + " --fault pinned_copy_blocks").string());
    EXPECT_EQ(out.exit_code, 1) << out.output;
    EXPECT_NE(out.output.find("async.copy.pinned_returns_early [sim:0]: pass → fail"), std::string::npos) << out.output;
}

// A run with --only against a full one compares what both selected; the rest is listed apart.
TEST_F(DiffSim, ChecksOneSideDidNotSelectAreNoRegression) {
    const fs::path fewer = after("fewer", "--only async.copy.bandwidth");
    for (const auto& [base, now] : {std::pair(s_base, fewer), std::pair(fewer, s_base)}) {
        const auto out = run_cli("diff " + base.string() + " " + now.string());
        EXPECT_EQ(out.exit_code, 0) << out.output;
        EXPECT_EQ(out.output.find("REGRESSED"), std::string::npos) << out.output;
        EXPECT_EQ(out.output.find("no result"), std::string::npos) << out.output;
        EXPECT_NE(out.output.find("not selected on one side: 23 results only in " +
                                  std::string(base == s_base ? "base (new" : "new (base") +
                                  " ran --layer async --only async.copy.bandwidth --quick)"),
                  std::string::npos)
            << out.output;
        EXPECT_NE(out.output.find("async.overlap.copy_compute [sim:0]"), std::string::npos) << out.output;
        EXPECT_NE(out.output.find("verdict: no regression (23 results not selected on one side"), std::string::npos)
            << out.output;
    }
    const auto json = run_cli("diff -f json " + s_base.string() + " " + fewer.string(), "", false);
    const auto doc = nlohmann::json::parse(json.output);
    EXPECT_EQ(doc.at("not_selected").size(), 23u);
    EXPECT_EQ(doc.at("selection").at("new"), "--layer async --only async.copy.bandwidth --quick");
}

// Selected on both sides but gone from one: that can hide a failure.
TEST_F(DiffSim, ACheckThatStoppedReportingIsARegression) {
    nlohmann::json report = read_json(s_base);
    auto& results = report.at("results");
    results.erase(std::remove_if(results.begin(), results.end(),
                                 [](const nlohmann::json& r) { return r.at("id") == "async.overlap.copy_compute"; }),
                  results.end());
    const fs::path fewer = s_dir / "stopped.json";
    std::ofstream(fewer) << report.dump();
    const auto out = run_cli("diff " + s_base.string() + " " + fewer.string());
    EXPECT_EQ(out.exit_code, 1) << out.output;
    EXPECT_NE(out.output.find("async.overlap.copy_compute [sim:0]: pass → no result"), std::string::npos) << out.output;
    EXPECT_EQ(out.output.find("not selected"), std::string::npos) << out.output;
}

TEST_F(DiffSim, ABadToleranceFileIsBadInput) {
    const fs::path bad = s_dir / "bad.yaml";
    std::ofstream(bad) << "measurements:\n  - {match: x, tolerance: -1}\n";
    const auto out = run_cli("diff --tolerances " + bad.string() + " " + s_base.string() + " " + s_base.string());
    EXPECT_EQ(out.exit_code, 2) << out.output;
    EXPECT_NE(out.output.find("bad.yaml:2: tolerance must be a finite number"), std::string::npos) << out.output;
}

}  // namespace
}  // namespace gpuconform::test
