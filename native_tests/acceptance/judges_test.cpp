// The acceptance layer's verdicts (probes/acceptance/judges.hpp) and its known answer.
#include <gtest/gtest.h>

#include "acceptance/judges.hpp"
#include "backend/acceptance_ops.hpp"
#include "nvml/nvml_api.hpp"

namespace gpuconform::acceptance {
namespace {

TEST(AcceptanceJudges, PeakFromClockAndBusWidth) {
    // An H200 as the runtime reported it: 3201 MHz, 6016 bits (BabelStream printed the same 4814 GB/s).
    EXPECT_NEAR(peak_memory_gbps(3'201'000, 6016), 4814.3, 0.1);
}

TEST(AcceptanceJudges, HbmBelowItsFloorFailsAndWithoutAPeakIsNotJudged) {
    EXPECT_EQ(judge_hbm(4000, 4814, 0.7).status, Status::Pass);
    EXPECT_EQ(judge_hbm(3000, 4814, 0.7).status, Status::Fail);
    EXPECT_EQ(judge_hbm(4000, std::nullopt, 0.7).status, Status::Skip);
}

TEST(AcceptanceJudges, MatmulRateJudgedOnlyWithAPeak) {
    EXPECT_EQ(judge_matmul_rate(856, 989.4, 0.5, "sm_90").status, Status::Pass);
    EXPECT_EQ(judge_matmul_rate(400, 989.4, 0.5, "sm_90").status, Status::Fail);
    const auto none = judge_matmul_rate(100, std::nullopt, 0.5, "sm_120");
    EXPECT_EQ(none.status, Status::Pass);
    EXPECT_NE(none.summary.find("not judged"), std::string::npos);
}

LoadSample sample(double mhz, std::uint64_t reasons) {
    LoadSample s;
    s.sm_clock_mhz = mhz;
    s.max_sm_clock_mhz = 1980;
    s.clock_event_reasons = reasons;
    s.reasons_read = true;
    return s;
}

TEST(AcceptanceJudges, ThermalSlowdownUnderLoadFailsNamingIt) {
    const auto v = judge_clocks({sample(1900, 0), sample(1200, nvml::k_reason_hw_thermal)}, 0.65);
    EXPECT_EQ(v.status, Status::Fail);
    EXPECT_NE(v.summary.find("hardware thermal slowdown"), std::string::npos);
}

TEST(AcceptanceJudges, PowerCapIsNamedNotFailed) {
    const auto v =
        judge_clocks({sample(1635, nvml::k_reason_sw_power_cap), sample(1640, nvml::k_reason_sw_power_cap)}, 0.65);
    EXPECT_EQ(v.status, Status::Pass);
    EXPECT_NE(v.summary.find("power cap"), std::string::npos);
}

TEST(AcceptanceJudges, LowClocksFailAndNoSampleIsNotJudged) {
    EXPECT_EQ(judge_clocks({sample(900, 0), sample(950, 0), sample(1000, 0)}, 0.65).status, Status::Fail);
    EXPECT_EQ(judge_clocks({}, 0.65).status, Status::Skip);
}

TEST(AcceptanceJudges, CounterGrowthWarns) {
    EXPECT_EQ(judge_soak_counters({{"PCIe replays", 3, 3}}, "").status, Status::Pass);
    const auto v = judge_soak_counters({{"PCIe replays", 3, 9}}, "");
    EXPECT_EQ(v.status, Status::Warn);
    EXPECT_NE(v.summary.find("PCIe replays +6"), std::string::npos);
}

// The closed form the device check compares with equals the product computed the long way.
TEST(AcceptanceKnownAnswer, ClosedFormMatchesTheProduct) {
    const int k = 2 * k_gemm_inner_period;
    for (std::uint64_t i : {0u, 1u, 60u, 61u, 200u}) {
        for (std::uint64_t j : {0u, 5u, 66u, 67u, 300u}) {
            int sum = 0;
            for (int t = 0; t < k; ++t) {
                sum += gemm_a_value(static_cast<int>(i % k_gemm_row_period), t % k_gemm_inner_period) *
                       gemm_b_value(t % k_gemm_inner_period, static_cast<int>(j % k_gemm_col_period));
            }
            EXPECT_EQ(gemm_expected(i, j, k), static_cast<float>(sum)) << i << "," << j;
        }
    }
}

TEST(AcceptanceKnownAnswer, InputsAreSmallIntegers) {
    for (int r = 0; r < k_gemm_row_period; ++r) {
        for (int t = 0; t < k_gemm_inner_period; ++t) {
            EXPECT_LE(std::abs(gemm_a_value(r, t)), 2);
        }
    }
}

}  // namespace
}  // namespace gpuconform::acceptance
