// `--device K` on a node of several identical (simulated) GPUs: node-wide checks stay within
// pairs that include K or say why they cannot, and the sibling rule says it could not judge
// instead of silently passing the one GPU it was never compared with.
#include <gtest/gtest.h>

#include "cli_helpers.hpp"

namespace gpuconform::test {
namespace {

const char* k_one_gpu_reason = "--device selected one GPU; the sibling rule needs all identical GPUs";

nlohmann::json run_sim(const std::string& name, const std::string& args) {
    const auto dir = temp_dir(name);
    const auto path = dir / "r.json";
    const auto out =
        run_cli("run --backend sim --sim-devices 4 --layer async --quick " + args + " --json " + path.string());
    EXPECT_TRUE(out.exit_code == 0 || out.exit_code == 1) << out.output;
    return read_json(path);
}

std::vector<const nlohmann::json*> results_of(const nlohmann::json& report, const std::string& id) {
    std::vector<const nlohmann::json*> out;
    for (const auto& r : report.at("results")) {
        if (r.at("id") == id) {
            out.push_back(&r);
        }
    }
    return out;
}

std::vector<std::string> measurement_names(const nlohmann::json& result) {
    std::vector<std::string> out;
    for (const auto& m : result.at("measurements")) {
        out.push_back(m.at("name").get<std::string>());
    }
    return out;
}

TEST(DeviceSelection, WithoutDeviceTheSiblingRuleFailsTheDegradedGpu) {
    // The control: the fault is one the sibling rule alone catches.
    const auto report = run_sim("sib-all", "--fault degraded_link@2 --only async.copy.bandwidth");
    const auto results = results_of(report, "async.copy.bandwidth");
    ASSERT_EQ(results.size(), 4u);
    for (const auto* r : results) {
        EXPECT_EQ(r->at("status"), r->at("device") == 2 ? "fail" : "pass") << r->dump();
    }
}

TEST(DeviceSelection, ChoosingTheDegradedGpuSaysTheSiblingRuleCouldNotJudge) {
    const auto report = run_sim("sib-one", "--fault degraded_link@2 --device 2 --only async.copy.bandwidth");
    const auto results = results_of(report, "async.copy.bandwidth");
    ASSERT_EQ(results.size(), 1u);
    const auto& r = *results.front();
    EXPECT_EQ(r.at("device"), 2);
    EXPECT_EQ(r.at("status"), "skip") << r.dump();
    EXPECT_NE(r.at("summary").get<std::string>().find(k_one_gpu_reason), std::string::npos) << r.dump();
    EXPECT_FALSE(r.at("measurements").empty()) << "the figures are kept: " << r.dump();
}

TEST(DeviceSelection, AGpuFailingOnItsOwnStillFailsWhenChosenAlone) {
    // slow_link misses the absolute floor: no sibling is needed to fail it.
    const auto report = run_sim("sib-own", "--fault slow_link@1 --device 1 --only async.copy.bandwidth");
    const auto results = results_of(report, "async.copy.bandwidth");
    ASSERT_EQ(results.size(), 1u);
    EXPECT_EQ(results.front()->at("status"), "fail") << results.front()->dump();
}

TEST(DeviceSelection, PeerEventOrderRunsOnlyPairsThatIncludeTheChosenGpu) {
    const auto report = run_sim("peer-order", "--device 2 --only async.peer.event_order");
    const auto results = results_of(report, "async.peer.event_order");
    ASSERT_EQ(results.size(), 1u);
    const auto names = measurement_names(*results.front());
    EXPECT_EQ(names, (std::vector<std::string>{"stale_1to2", "stale_2to3"})) << results.front()->dump();
    EXPECT_EQ(results.front()->at("status"), "pass");
}

TEST(DeviceSelection, PeerChecksThatCompareAllPairsSkipWithTheReason) {
    const auto report = run_sim("peer-all", "--device 2 --only 'async.peer.copy_bandwidth,async.peer.access_matrix'");
    for (const char* id : {"async.peer.copy_bandwidth", "async.peer.access_matrix"}) {
        const auto results = results_of(report, id);
        ASSERT_EQ(results.size(), 1u) << id;
        const auto& r = *results.front();
        EXPECT_EQ(r.at("status"), "skip") << r.dump();
        EXPECT_NE(r.at("summary").get<std::string>().find("--device"), std::string::npos) << r.dump();
        EXPECT_TRUE(r.at("measurements").empty()) << "no other GPU was touched: " << r.dump();
    }
}

TEST(DeviceSelection, PeerChecksStillCoverEveryPairWithoutDevice) {
    const auto report = run_sim("peer-full", "--only async.peer.event_order");
    const auto results = results_of(report, "async.peer.event_order");
    ASSERT_EQ(results.size(), 1u);
    EXPECT_EQ(measurement_names(*results.front()).size(), 4u) << results.front()->dump();
}

}  // namespace
}  // namespace gpuconform::test
