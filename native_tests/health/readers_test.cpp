// The readers behind the one HealthReader interface: amdgpu sysfs on fixtures written from the
// kernel's documentation (data/health/amdgpu/README.md), and the simulated node's fault knobs.
#include <gtest/gtest.h>

#include "health/amdgpu_sysfs.hpp"
#include "health/gpu_events_judge.hpp"
#include "health/health_reading.hpp"
#include "health/judges.hpp"
#include "test_paths.hpp"

namespace gpuconform {
namespace {

const std::string k_amd_root = std::string(test_paths::data_dir) + "/health/amdgpu";

TEST(AmdgpuSysfs, ErrCountReadsUeAndCeInEitherOrder) {
    auto c = parse_ras_err_count("ue: 1\nce: 12\n");
    ASSERT_TRUE(c);
    EXPECT_EQ(c->uncorrectable, 1u);
    EXPECT_EQ(c->correctable, 12u);
    c = parse_ras_err_count("ce: 3\nue: 0\n");
    ASSERT_TRUE(c);
    EXPECT_EQ(c->correctable, 3u);
    EXPECT_FALSE(parse_ras_err_count("ue: 1\n"));
    EXPECT_FALSE(parse_ras_err_count("ue: x\nce: 1\n"));
}

TEST(AmdgpuSysfs, BadPagesCountEachFlag) {
    const auto p = parse_bad_pages(
        "0x00000001 : 0x00001000 : R\n0x00000002 : 0x00001000 : P\n"
        "0x00000003 : 0x00001000 : F\n0x00000004 : 0x00001000 : R\n");
    EXPECT_EQ(p.reserved, 2u);
    EXPECT_EQ(p.pending, 1u);
    EXPECT_EQ(p.failed, 1u);
    EXPECT_EQ(parse_bad_pages("").reserved, 0u);
}

TEST(AmdgpuReader, ReadsTheFixtureGpusBoundToAmdgpu) {
    const auto node = make_amdgpu_health_reader(k_amd_root, {"0000:c1:00.0", "0000:c2:00.0", "0000:c3:00.0"})->read();
    EXPECT_EQ(node.source, "amdgpu-sysfs");
    EXPECT_EQ(node.pci_gpus, 3);
    ASSERT_EQ(node.gpus.size(), 2u) << "0000:c3:00.0 is not bound to amdgpu";
    EXPECT_EQ(node.driver_version, "6.10.5");
    const GpuHealth& healthy = node.gpus[0];
    EXPECT_EQ(healthy.backend, "hip");
    EXPECT_EQ(healthy.vbios.value, "113-M3000100-102");
    EXPECT_EQ(healthy.ecc.volatile_uncorrected.value, 0u);
    EXPECT_EQ(healthy.ecc.volatile_corrected.value, 3u);
    EXPECT_TRUE(healthy.ecc.aggregate_uncorrected.not_supported);
    EXPECT_EQ(healthy.temperature_c.value, 41u);
    EXPECT_EQ(healthy.slowdown_c.value, 100u);
    EXPECT_EQ(healthy.shutdown_c.value, 105u);
    EXPECT_EQ(healthy.power_limit_mw.value, 750'000u);
    EXPECT_TRUE(healthy.remapped_rows.not_supported);
    EXPECT_TRUE(healthy.clock_event_reasons.not_supported);
    EXPECT_EQ(judge_ecc(healthy, 0).status, Status::Pass);
    EXPECT_EQ(judge_clocks(healthy, 5).status, Status::Pass);
    EXPECT_EQ(judge_memory_remap(healthy, 60).status, Status::Pass);
    EXPECT_EQ(judge_inventory(node, std::nullopt).status, Status::Fail) << "a GPU on the bus amdgpu did not bind";

    const GpuHealth& faulty = node.gpus[1];
    EXPECT_EQ(judge_ecc(faulty, 0).status, Status::Fail);
    EXPECT_EQ(faulty.retired_pages.value->double_bit, 1u);
    EXPECT_EQ(judge_memory_remap(faulty, 60).status, Status::Warn) << "a page pending retirement";
    EXPECT_NE(judge_clocks(faulty, 5).finding.find("power capped at 550 of 750 W"), std::string::npos);
    EXPECT_TRUE(healthy.aer.not_supported) << "no aer_dev_* files";
    ASSERT_TRUE(faulty.aer.ok()) << faulty.aer.why();
    EXPECT_EQ(faulty.aer.value->correctable, 5u);
    EXPECT_NE(judge_pcie_errors(faulty).summary.find("correctable 5, non-fatal 1, fatal 0"), std::string::npos);
}

TEST(SimHealthReader, AHealthyNodePassesEveryJudge) {
    const auto node = make_sim_health_reader("devices=2")->read();
    ASSERT_EQ(node.gpus.size(), 2u);
    for (const auto& g : node.gpus) {
        EXPECT_EQ(judge_ecc(g, 0).status, Status::Pass);
        EXPECT_EQ(judge_memory_remap(g, 60).status, Status::Pass);
        EXPECT_EQ(judge_clocks(g, 5).status, Status::Pass);
        EXPECT_EQ(judge_nvlink(g).status, Status::Skip);
    }
    EXPECT_EQ(judge_inventory(node, 2).status, Status::Pass);
}

TEST(SimHealthReader, EachFaultChangesItsReadingOnItsDevice) {
    auto node = make_sim_health_reader("devices=2;fault.1=ecc_uncorrectable,power_capped")->read();
    EXPECT_EQ(judge_ecc(node.gpus[0], 0).status, Status::Pass);
    EXPECT_EQ(judge_ecc(node.gpus[1], 0).status, Status::Fail);
    EXPECT_EQ(judge_clocks(node.gpus[1], 5).status, Status::Warn);
    node = make_sim_health_reader("devices=1;fault=row_remap_failure,thermal_slowdown")->read();
    EXPECT_EQ(judge_memory_remap(node.gpus[0], 60).status, Status::Fail);
    EXPECT_EQ(judge_clocks(node.gpus[0], 5).status, Status::Fail);
    node = make_sim_health_reader("devices=3;fault.2=gpu_missing")->read();
    EXPECT_EQ(node.gpus.size(), 2u);
    EXPECT_EQ(node.pci_gpus, 3);
    EXPECT_FALSE(make_sim_health_reader("devices=1;fault=no_such")->read().error.empty());
}

// The simulated kernel log goes through the real parser and catalog: an Xid 79 on the faulted
// GPU alone, which the judge fails (reboot the node), and none on its sibling.
TEST(SimHealthReader, AnXid79IsInTheKernelLogOfItsGpu) {
    const auto node = make_sim_health_reader("devices=2;fault.1=xid_79")->read();
    ASSERT_TRUE(node.kernel_log_read);
    ASSERT_EQ(node.gpu_events.size(), 1u);
    EXPECT_EQ(node.gpu_events[0].code, 79);
    const GpuEventThresholds limits;
    EXPECT_EQ(judge_gpu_events(node.gpu_events, node.gpus[0].pci_bus_id, limits).status, Status::Pass);
    const auto j = judge_gpu_events(node.gpu_events, node.gpus[1].pci_bus_id, limits);
    EXPECT_EQ(j.status, Status::Fail);
    EXPECT_EQ(j.worst, GpuAction::RebootNode);
}

}  // namespace
}  // namespace gpuconform
