// The env, kernel-driver and PCIe-link verdicts as tables of cases: inputs in, status out.
#include <gtest/gtest.h>

#include "host/gpu_env.hpp"
#include "host/kernel_driver.hpp"
#include "host/pcie_link.hpp"

namespace gpuconform {
namespace {

TEST(GpuEnvVerdict, WarnsOnSerializationAndHiddenGpus) {
    struct Case {
        std::map<std::string, std::string> vars;
        int nvidia;
        int amd;
        Status want;
    };
    const Case cases[] = {
        {{}, 1, 0, Status::Info},
        {{{"CUDA_DEVICE_ORDER", "PCI_BUS_ID"}}, 1, 0, Status::Info},
        {{{"CUDA_LAUNCH_BLOCKING", "1"}}, 1, 0, Status::Warn},
        {{{"CUDA_LAUNCH_BLOCKING", "0"}}, 1, 0, Status::Info},
        {{{"HIP_LAUNCH_BLOCKING", "1"}}, 0, 1, Status::Warn},
        {{{"AMD_SERIALIZE_KERNEL", "3"}}, 0, 1, Status::Warn},
        {{{"AMD_SERIALIZE_COPY", "0"}}, 0, 1, Status::Info},
        {{{"CUDA_VISIBLE_DEVICES", ""}}, 2, 0, Status::Warn},
        {{{"CUDA_VISIBLE_DEVICES", ""}}, 0, 0, Status::Info},  // nothing to hide
        {{{"CUDA_VISIBLE_DEVICES", "0,1"}}, 2, 0, Status::Info},
        {{{"HIP_VISIBLE_DEVICES", ""}}, 0, 1, Status::Warn},
        {{{"HIP_VISIBLE_DEVICES", ""}}, 1, 0, Status::Info},  // ROCm's variable does not hide NVIDIA GPUs
        {{{"ROCR_VISIBLE_DEVICES", "-1"}}, 0, 4, Status::Warn},
    };
    for (const auto& c : cases) {
        const auto v = judge_gpu_env({c.vars, c.nvidia, c.amd});
        EXPECT_EQ(v.status, c.want) << v.summary;
    }
}

TEST(KernelDriverVerdict, FailsWhenAGpuHasNoDriver) {
    struct Case {
        std::map<std::string, std::string> drivers;
        int nvidia;
        int amd;
        Status want;
    };
    const Case cases[] = {
        {{}, 0, 0, Status::Skip},
        {{{"nvidia", "580.95.05"}}, 0, 0, Status::Skip},
        {{{"nvidia", "580.95.05"}}, 8, 0, Status::Pass},
        {{}, 8, 0, Status::Fail},
        {{{"amdgpu", "in-tree"}}, 0, 2, Status::Pass},
        {{{"amdgpu", "6.10.5"}}, 0, 2, Status::Pass},
        {{{"nvidia", "580.95.05"}}, 1, 1, Status::Fail},
        {{{"amdgpu", "in-tree"}}, 1, 0, Status::Fail},
    };
    for (const auto& c : cases) {
        const auto v = judge_kernel_driver({c.drivers, c.nvidia, c.amd});
        EXPECT_EQ(v.status, c.want) << v.summary;
        EXPECT_EQ(v.remediation.empty(), c.want != Status::Fail) << v.summary;
    }
}

PciGpu link(const char* bdf, std::optional<double> cur, std::optional<double> max, std::optional<int> cur_w,
            std::optional<int> max_w) {
    PciGpu g;
    g.bdf = bdf;
    g.vendor = "nvidia";
    g.current_speed_gts = cur;
    g.max_speed_gts = max;
    g.current_width = cur_w;
    g.max_width = max_w;
    return g;
}

TEST(PcieLinkVerdict, WidthBelowCapableFailsSpeedBelowCapableWarns) {
    struct Case {
        const char* what;
        PciGpu gpu;
        bool strict;
        Status want;
    };
    const Case cases[] = {
        {"Gen5 x16 as capable", link("a", 32.0, 32.0, 16, 16), false, Status::Pass},
        {"Gen5 card at x8", link("a", 32.0, 32.0, 8, 16), false, Status::Fail},
        {"Gen5 card at Gen4", link("a", 16.0, 32.0, 16, 16), false, Status::Warn},
        {"Gen5 card at Gen4, strict", link("a", 16.0, 32.0, 16, 16), true, Status::Fail},
        {"idle at Gen1", link("a", 2.5, 32.0, 16, 16), false, Status::Warn},
        {"slow and narrow", link("a", 16.0, 32.0, 8, 16), false, Status::Fail},
        {"Gen4 card in Gen5 slot", link("a", 16.0, 16.0, 16, 16), false, Status::Pass},
        {"no sysfs files", link("a", std::nullopt, std::nullopt, std::nullopt, std::nullopt), false, Status::Skip},
        {"width unreadable", link("a", 32.0, 32.0, std::nullopt, 16), false, Status::Skip},
    };
    for (const auto& c : cases) {
        const auto j = judge_pcie_link(c.gpu, c.strict);
        EXPECT_EQ(j.status, c.want) << c.what << ": " << j.summary;
    }
}

TEST(PcieLinkVerdict, ReportsTheWorstGpuWithBothFigures) {
    const std::vector<PciGpu> gpus{link("0000:9a:00.0", 32.0, 32.0, 16, 16), link("0000:18:00.0", 32.0, 32.0, 8, 16)};
    const auto v = judge_pcie_links(gpus, false);
    EXPECT_EQ(v.status, Status::Fail);
    EXPECT_NE(v.summary.find("0000:18:00.0"), std::string::npos) << v.summary;
    EXPECT_NE(v.summary.find("Gen5 (32 GT/s) x8"), std::string::npos) << v.summary;
    EXPECT_NE(v.summary.find("Gen5 (32 GT/s) x16"), std::string::npos) << v.summary;
    EXPECT_NE(v.remediation.find("re-seat"), std::string::npos);
}

TEST(PcieLinkVerdict, SkipsWithoutGpusOrLinkData) {
    EXPECT_EQ(judge_pcie_links({}, false).status, Status::Skip);
    EXPECT_EQ(judge_pcie_links({link("a", std::nullopt, std::nullopt, std::nullopt, std::nullopt)}, false).status,
              Status::Skip);
    // One unreadable GPU does not hide a readable healthy one.
    EXPECT_EQ(
        judge_pcie_links(
            {link("a", std::nullopt, std::nullopt, std::nullopt, std::nullopt), link("b", 32.0, 32.0, 16, 16)}, false)
            .status,
        Status::Pass);
}

}  // namespace
}  // namespace gpuconform
