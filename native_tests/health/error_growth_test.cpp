// The error counters read before and after the device layer (health.error_growth) and the PCIe
// AER totals read from sysfs at all: growth during our own run is a finding on that GPU, judged
// against DCGM's rates per 15 minutes; what could not be read twice is never a pass.
#include <gtest/gtest.h>

#include "health/judges.hpp"
#include "health/pcie_aer.hpp"
#include "health_test_data.hpp"
#include "test_paths.hpp"

namespace gpuconform {
namespace {

using test::healthy_h200;

const std::string k_devices = std::string(test_paths::data_dir) + "/health/amdgpu/sys/bus/pci/devices/";

// The same GPU read `seconds` later.
GpuHealth later(const GpuHealth& g, double seconds) {
    GpuHealth after = g;
    after.read_at_unix_s = g.read_at_unix_s + seconds;
    return after;
}

GpuHealth with_aer(AerCounts c) {
    GpuHealth g = healthy_h200();
    g.read_at_unix_s = 1'800'000'000;
    g.aer = Read<AerCounts>::of(c);
    return g;
}

TEST(PcieAer, ReadsTheKernelsTotalsAndTellsAbsentFromUnreadable) {
    const auto aer = read_pcie_aer(k_devices + "0000:c2:00.0");
    ASSERT_TRUE(aer.ok()) << aer.why();
    EXPECT_EQ(aer.value->correctable, 5u);
    EXPECT_EQ(aer.value->nonfatal, 1u);
    EXPECT_EQ(aer.value->fatal, 0u);
    const auto none = read_pcie_aer(k_devices + "0000:c1:00.0");
    EXPECT_FALSE(none.ok());
    EXPECT_TRUE(none.not_supported) << "a kernel without AER has no aer_dev_* files: not supported, not zero";
    EXPECT_EQ(aer_total("RxErr 3\nTOTAL_ERR_COR 17\n", "TOTAL_ERR_COR"), 17u);
    EXPECT_FALSE(aer_total("RxErr 3\n", "TOTAL_ERR_COR")) << "no total line";
    EXPECT_FALSE(aer_total("TOTAL_ERR_COR -1\n", "TOTAL_ERR_COR"));
    EXPECT_FALSE(aer_total("TOTAL_ERR_COR 99999999999999999999999\n", "TOTAL_ERR_COR"));
}

TEST(PcieAer, NvmlBusIdsBecomeSysfsNames) {
    EXPECT_EQ(sysfs_bdf("00000000:1B:00.0"), "0000:1b:00.0");
    EXPECT_EQ(sysfs_bdf("0000:c1:00.0"), "0000:c1:00.0");
    EXPECT_EQ(sysfs_bdf(""), "");
    EXPECT_EQ(sysfs_bdf("00000000:1B:00"), "");
    EXPECT_EQ(sysfs_bdf("00000000:../00.0"), "") << "never a path";
    EXPECT_EQ(sysfs_bdf("00010000:1B:00.0"), "") << "a domain above 0xffff is not 4 digits in sysfs";
}

TEST(ErrorGrowth, NothingGrewPasses) {
    const GpuHealth before = with_aer({5, 0, 1});
    const auto v = judge_error_growth(before, later(before, 40), {});
    EXPECT_EQ(v.status, Status::Pass) << v.summary;
    EXPECT_TRUE(v.finding.empty());
    EXPECT_NE(v.summary.find("PCIe replays +0"), std::string::npos) << v.summary;
}

TEST(ErrorGrowth, ReplaysThatGrewWarnAndAboveDcgmsRateFail) {
    GpuHealth before = with_aer({});
    GpuHealth after = later(before, 40);
    after.pcie_replays = Read<unsigned int>::of(2);  // +1
    auto v = judge_error_growth(before, after, {});
    EXPECT_EQ(v.status, Status::Warn) << v.summary;
    EXPECT_NE(v.finding.find("PCIe replays +1 during the run"), std::string::npos) << v.finding;
    after.pcie_replays = Read<unsigned int>::of(101);  // +100 in 40 s: above 80 per 15 minutes
    v = judge_error_growth(before, after, {});
    EXPECT_EQ(v.status, Status::Fail) << v.summary;
    EXPECT_FALSE(v.remediation.empty());
    // The same +100 over two hours is within 8 windows' worth: named, not failed.
    v = judge_error_growth(before, later(after, 7200), {});
    EXPECT_EQ(v.status, Status::Warn) << v.summary;
}

TEST(ErrorGrowth, AnyUncorrectableAerErrorFailsCorrectableOnesWarn) {
    const GpuHealth before = with_aer({5, 0, 1});
    auto v = judge_error_growth(before, later(with_aer({5, 1, 1}), 40), {});
    EXPECT_EQ(v.status, Status::Fail);
    EXPECT_NE(v.finding.find("fatal +1"), std::string::npos) << v.finding;
    v = judge_error_growth(before, later(with_aer({5, 0, 2}), 40), {});
    EXPECT_EQ(v.status, Status::Fail);
    v = judge_error_growth(before, later(with_aer({9, 0, 1}), 40), {});
    EXPECT_EQ(v.status, Status::Warn);
    EXPECT_NE(v.finding.find("AER correctable errors +4"), std::string::npos) << v.finding;
    v = judge_error_growth(before, later(with_aer({1000, 0, 1}), 40), {});
    EXPECT_EQ(v.status, Status::Fail) << "995 in 40 s: above DCGM's 480 per 15 minutes";
}

TEST(ErrorGrowth, NvlinkErrorsNameTheLink) {
    GpuHealth before = with_aer({});
    NvLinkState link;
    link.link = 3;
    link.active = true;
    link.replay = link.recovery = link.crc_flit = link.crc_data = Read<std::uint64_t>::of(7);
    before.nvlinks = Read<std::vector<NvLinkState>>::of({link});
    GpuHealth after = later(before, 40);
    after.nvlinks.value->at(0).crc_data = Read<std::uint64_t>::of(9);
    auto v = judge_error_growth(before, after, {});
    EXPECT_EQ(v.status, Status::Fail) << v.summary;
    EXPECT_NE(v.finding.find("link 3: CRC data +2"), std::string::npos) << v.finding;
    GrowthLimits tolerant;
    tolerant.nvlink_errors = 5;
    EXPECT_EQ(judge_error_growth(before, after, tolerant).status, Status::Warn);
}

TEST(ErrorGrowth, ACounterThatWentBackIsNamedNotAPass) {
    GpuHealth before = with_aer({});
    before.pcie_replays = Read<unsigned int>::of(50);
    GpuHealth after = later(before, 40);
    after.pcie_replays = Read<unsigned int>::of(0);
    const auto v = judge_error_growth(before, after, {});
    EXPECT_EQ(v.status, Status::Warn);
    EXPECT_NE(v.finding.find("went back from 50 to 0"), std::string::npos) << v.finding;
}

TEST(ErrorGrowth, CountersNotReadTwiceAreSkipOrErrorNeverPass) {
    GpuHealth before = healthy_h200();
    before.pcie_replays = Read<unsigned int>::unsupported();
    EXPECT_EQ(judge_error_growth(before, before, {}).status, Status::Skip);
    GpuHealth after = before;
    after.pcie_replays = Read<unsigned int>::failed("GPU is lost");
    before.pcie_replays = Read<unsigned int>::of(1);
    const auto v = judge_error_growth(before, after, {});
    EXPECT_EQ(v.status, Status::Error);
    EXPECT_NE(v.summary.find("GPU is lost"), std::string::npos) << v.summary;
}

TEST(ErrorGrowth, TheSimulatedFaultGrowsBetweenReadings) {
    const auto reader = make_sim_health_reader("devices=2;fault.1=pcie_replays_growing");
    const auto before = reader->read();
    const auto after = reader->read();
    ASSERT_EQ(after.gpus.size(), 2u);
    EXPECT_EQ(judge_error_growth(before.gpus[0], after.gpus[0], {}).status, Status::Pass);
    const auto v = judge_error_growth(before.gpus[1], after.gpus[1], {});
    EXPECT_EQ(v.status, Status::Fail) << v.summary;
    EXPECT_NE(v.finding.find("PCIe replays +100"), std::string::npos) << v.finding;
}

}  // namespace
}  // namespace gpuconform
