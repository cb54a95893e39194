// The node's GPUs as a set: vanished GPUs fail against the bus and against the profile, the odd
// sibling is named, a compute mode that refuses work is.
#include <gtest/gtest.h>

#include "health/judges.hpp"
#include "health_test_data.hpp"

namespace gpuconform {
namespace {

using test::node_of;

TEST(HealthInventory, CountAgainstTheBusAndTheExpectation) {
    struct Case {
        int seen;
        int on_bus;
        std::optional<int> expected;
        Status want;
    };
    for (const auto& c : {Case{8, 8, std::nullopt, Status::Pass}, Case{8, 8, 8, Status::Pass},
                          Case{7, 8, std::nullopt, Status::Fail},  // fewer than the bus shows, no expectation
                          Case{7, 7, 8, Status::Fail},             // gone from the bus too
                          Case{8, 8, 4, Status::Warn}}) {
        const auto v = judge_inventory(node_of(c.seen, c.on_bus), c.expected);
        EXPECT_EQ(v.status, c.want) << c.seen << "/" << c.on_bus << ": " << v.summary;
    }
}

TEST(HealthInventory, TheGpuMissingFromTheBusIsNamedByItsAddress) {
    auto node = node_of(3, 3);
    node.gpus.erase(node.gpus.begin() + 1);
    const auto v = judge_inventory(node, std::nullopt);
    EXPECT_EQ(v.status, Status::Fail);
    EXPECT_NE(v.finding.find("not seen: 0000:19:00.0"), std::string::npos) << v.finding;
    EXPECT_EQ(v.finding.find("0000:18:00.0"), std::string::npos) << v.finding;
}

TEST(HealthInventory, AContainerGivenSomeGpusIsNotAMissingGpu) {
    auto node = node_of(1, 8);
    node.visibility = "NVIDIA_VISIBLE_DEVICES='0'";
    auto v = judge_inventory(node, std::nullopt);
    EXPECT_EQ(v.status, Status::Pass) << v.summary;
    EXPECT_NE(v.summary.find("NVIDIA_VISIBLE_DEVICES='0' gives this process 1 of the 8"), std::string::npos)
        << v.summary;
    EXPECT_EQ(judge_inventory(node, 8).status, Status::Fail) << "an expectation of 8 is not met by 1";
}

TEST(HealthInventory, ANodeWithNoGpuSkipsUnlessGpusWereExpected) {
    NodeHealth none = node_of(0, 0);
    none.error = "NVML not loadable: libnvidia-ml.so.1: cannot open shared object file";
    EXPECT_EQ(judge_inventory(none, std::nullopt).status, Status::Skip);
    EXPECT_EQ(judge_inventory(none, 8).status, Status::Fail);
    EXPECT_EQ(judge_inventory(node_of(0, 0), std::nullopt).status, Status::Skip);
    NodeHealth broken = node_of(0, 2);
    broken.error = "nvmlInit_v2 failed: Driver Not Loaded (9)";
    EXPECT_EQ(judge_inventory(broken, std::nullopt).status, Status::Error);
}

TEST(HealthInventory, TheOddVbiosAndInforomAreNamed) {
    auto node = node_of(3, 3);
    node.gpus[2].vbios = Read<std::string>::of("96.00.74.00.01");
    auto v = judge_inventory(node, std::nullopt);
    EXPECT_EQ(v.status, Status::Warn);
    EXPECT_NE(v.finding.find("cuda:2 has VBIOS 96.00.74.00.01"), std::string::npos) << v.finding;
    EXPECT_EQ(v.finding.find("cuda:0"), std::string::npos) << v.finding;
    node = node_of(3, 3);
    node.gpus[0].inforom = Read<std::string>::of("G520.0200.00.04");
    v = judge_inventory(node, std::nullopt);
    EXPECT_NE(v.finding.find("cuda:0 has InfoROM image"), std::string::npos) << v.finding;
}

TEST(HealthInventory, ProhibitedComputeModeWarnsAndOtherModesAreNamed) {
    auto node = node_of(2, 2);
    node.gpus[1].compute_mode = Read<unsigned int>::of(nvml::k_compute_prohibited);
    EXPECT_EQ(judge_inventory(node, std::nullopt).status, Status::Warn);
    node = node_of(2, 2);
    node.gpus[0].compute_mode = Read<unsigned int>::of(nvml::k_compute_exclusive_process);
    node.gpus[1].mig_current = Read<bool>::of(true);
    const auto v = judge_inventory(node, std::nullopt);
    EXPECT_EQ(v.status, Status::Pass);
    EXPECT_NE(v.summary.find("cuda:0 compute mode Exclusive_Process"), std::string::npos) << v.summary;
    EXPECT_NE(v.summary.find("cuda:1 MIG enabled"), std::string::npos) << v.summary;
}

}  // namespace
}  // namespace gpuconform
