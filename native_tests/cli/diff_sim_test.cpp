// End to end on the simulated backend: real runs, then `gpuconform diff` as an operator uses it.
// The sim proves the diff catches each degradation; it is no evidence about hardware noise
// (the committed H200 repeat runs are, in native_tests/reports/diff_test.cpp).
#include <gtest/gtest.h>

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

TEST_F(DiffSim, ACheckThatStoppedReportingIsARegression) {
    const auto out = run_cli("diff " + s_base.string() + " " + after("fewer", "--only async.copy.bandwidth").string());
    EXPECT_EQ(out.exit_code, 1) << out.output;
    EXPECT_NE(out.output.find("async.overlap.copy_compute [sim:0]: pass → no result"), std::string::npos) << out.output;
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
