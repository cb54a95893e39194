// A health finding is a hardware cause of its own, named by the GPU and the finding; a health
// result that passes or could not read is no hardware cause.
#include <gtest/gtest.h>

#include "runner/causes.hpp"

namespace gpuconform {
namespace {

CheckResult health_result(const std::string& id, Status s, int device, const std::string& finding) {
    CheckResult r;
    r.id = id;
    r.layer = "health";
    r.backend = "cuda";
    r.device = device;
    r.status = s;
    r.summary = "seen";
    r.remediation = "replace the GPU";
    r.facts["gpu"] = "cuda:" + std::to_string(device);
    if (!finding.empty()) {
        r.facts["finding"] = finding;
    }
    return r;
}

TEST(HardwareCause, EachFailingOrWarningFindingNamesItsGpu) {
    const Environment env;
    const std::vector<CheckResult> results{
        health_result("health.memory_remap", Status::Fail, 3, "row remap failure — the GPU needs replacing"),
        health_result("health.clocks", Status::Warn, 1, "power capped at 450 of 700 W"),
        health_result("health.ecc", Status::Pass, 0, ""), health_result("health.nvlink", Status::Skip, 0, "")};
    const auto causes = group_causes(results, env);
    ASSERT_EQ(causes.size(), 2u);
    EXPECT_EQ(causes[0].kind, "hardware");
    EXPECT_EQ(causes[0].title, "cuda:3: row remap failure — the GPU needs replacing");
    EXPECT_EQ(causes[0].fix, "replace the GPU");
    EXPECT_EQ(causes[0].results, (std::vector<std::string>{"health.memory_remap[cuda:3]"}));
    EXPECT_EQ(causes[1].title, "cuda:1: power capped at 450 of 700 W");
}

TEST(HardwareCause, ANodeFindingNamesTheVendorsGpus) {
    const Environment env;
    CheckResult r = health_result("health.inventory", Status::Fail, 0, "1 of 2 expected GPUs seen");
    r.device.reset();
    r.facts.erase("gpu");
    const auto causes = group_causes({r}, env);
    ASSERT_EQ(causes.size(), 1u);
    EXPECT_EQ(causes[0].kind, "hardware");
    EXPECT_EQ(causes[0].title, "cuda GPUs: 1 of 2 expected GPUs seen");
}

}  // namespace
}  // namespace gpuconform
