// Clocks, temperature, power, PCIe replays and NVLink: the reasons NVML calls hardware slowdowns
// fail, a power cap is named with both figures, and what could not be read is never a pass.
#include <gtest/gtest.h>

#include "health/judges.hpp"
#include "health_test_data.hpp"

namespace gpuconform {
namespace {

using test::healthy_h200;

TEST(HealthClocks, EachActiveReasonGetsItsVerdict) {
    struct Case {
        std::uint64_t reasons;
        Status want;
    };
    for (const auto& c :
         {Case{0, Status::Pass}, Case{nvml::k_reason_gpu_idle, Status::Pass},
          Case{nvml::k_reason_applications_clocks, Status::Pass}, Case{nvml::k_reason_sw_power_cap, Status::Info},
          Case{nvml::k_reason_sw_thermal, Status::Warn}, Case{nvml::k_reason_hw_slowdown, Status::Fail},
          Case{nvml::k_reason_hw_thermal, Status::Fail}, Case{nvml::k_reason_hw_power_brake, Status::Fail},
          Case{nvml::k_reason_gpu_idle | nvml::k_reason_hw_thermal, Status::Fail}}) {
        auto g = healthy_h200();
        g.clock_event_reasons = Read<std::uint64_t>::of(c.reasons);
        const auto v = judge_clocks(g, 5);
        EXPECT_EQ(v.status, c.want) << std::hex << c.reasons << ": " << v.summary;
    }
}

TEST(HealthClocks, TemperatureAgainstSlowdownAndShutdown) {
    struct Case {
        unsigned int t;
        Status want;
    };
    for (const auto& c : {Case{36, Status::Pass}, Case{81, Status::Pass}, Case{82, Status::Warn},
                          Case{87, Status::Fail}, Case{95, Status::Fail}}) {
        auto g = healthy_h200();
        g.temperature_c = Read<unsigned int>::of(c.t);
        EXPECT_EQ(judge_clocks(g, 5).status, c.want) << c.t;
    }
}

TEST(HealthClocks, PowerCapBelowTheDefaultWarnsNamingBoth) {
    auto g = healthy_h200();
    g.power_limit_mw = Read<unsigned int>::of(450'000);
    const auto v = judge_clocks(g, 5);
    EXPECT_EQ(v.status, Status::Warn);
    EXPECT_NE(v.finding.find("power capped at 450 of 700 W"), std::string::npos) << v.finding;
}

TEST(HealthClocks, NothingReadIsSkipOrError) {
    auto g = healthy_h200();
    g.clock_event_reasons = Read<std::uint64_t>::unsupported();
    g.temperature_c = Read<unsigned int>::unsupported();
    g.power_limit_mw = Read<unsigned int>::unsupported();
    EXPECT_EQ(judge_clocks(g, 5).status, Status::Skip);
    g.temperature_c = Read<unsigned int>::failed("Unknown Error");
    EXPECT_EQ(judge_clocks(g, 5).status, Status::Error);
}

TEST(HealthPcie, ReplaysAreRecordedNotJudged) {
    auto g = healthy_h200();
    g.pcie_replays = Read<unsigned int>::of(500);
    EXPECT_EQ(judge_pcie_errors(g).status, Status::Info);
    g.pcie_replays = Read<unsigned int>::unsupported();
    EXPECT_EQ(judge_pcie_errors(g).status, Status::Skip);
}

TEST(HealthNvlink, NoLinksSkipsAndALinkDownFails) {
    auto g = healthy_h200();
    EXPECT_EQ(judge_nvlink(g).status, Status::Skip);
    NvLinkState up;
    up.link = 0;
    up.active = true;
    NvLinkState down = up;
    down.link = 1;
    down.active = false;
    g.nvlinks = Read<std::vector<NvLinkState>>::of({up});
    EXPECT_EQ(judge_nvlink(g).status, Status::Pass);
    g.nvlinks = Read<std::vector<NvLinkState>>::of({up, down});
    const auto v = judge_nvlink(g);
    EXPECT_EQ(v.status, Status::Fail);
    EXPECT_NE(v.finding.find("NVLink 1 down"), std::string::npos) << v.finding;
}

}  // namespace
}  // namespace gpuconform
