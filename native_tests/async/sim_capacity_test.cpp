// `--sim-devices N` refuses what the host cannot hold, before any check, saying how many fit.
#include <gtest/gtest.h>

#include "runner/sim_capacity.hpp"

namespace gpuconform {
namespace {

TEST(SimCapacity, RefusesWhatTheHostCannotHoldAndSaysHowManyFit) {
    const std::uint64_t gb = 1'000'000'000;
    EXPECT_EQ(sim_capacity_problem(4, 20 * gb), "");
    const std::string why = sim_capacity_problem(64, 20 * gb);
    EXPECT_NE(why.find("--sim-devices 64 needs about 53.7 GB"), std::string::npos) << why;
    EXPECT_NE(why.find("20.0 GB is available; use --sim-devices 23 or fewer"), std::string::npos) << why;
    EXPECT_EQ(sim_capacity_problem(64, std::nullopt), "") << "unknown memory: the kernel decides";
    ASSERT_TRUE(mem_available_bytes().has_value()) << "/proc/meminfo has MemAvailable on Linux 3.14 and later";
    EXPECT_GT(*mem_available_bytes(), 0u);
}

}  // namespace
}  // namespace gpuconform
