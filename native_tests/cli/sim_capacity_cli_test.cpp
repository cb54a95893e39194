// `--sim-devices 64` on a host that cannot hold 64 simulated GPUs: exit 2 before any check, with
// the reason, instead of filling memory until the kernel kills processes.
#include <gtest/gtest.h>

#include <fstream>

#include "cli_helpers.hpp"

namespace gpuconform::test {
namespace {

// MemAvailable in bytes, 0 when unknown.
std::uint64_t available_bytes() {
    std::ifstream in("/proc/meminfo");
    std::string key;
    std::uint64_t kib = 0;
    std::string unit;
    while (in >> key >> kib >> unit) {
        if (key == "MemAvailable:") {
            return kib * 1024;
        }
    }
    return 0;
}

TEST(SimCapacityCli, TooManySimulatedGpusForThisHostAreRefusedUpFront) {
    const std::uint64_t available = available_bytes();
    if (available == 0 || available >= 64 * (std::uint64_t{800} << 20)) {
        GTEST_SKIP() << "this host holds 64 simulated GPUs";
    }
    const auto dir = temp_dir("simcap");
    const auto out =
        run_cli("run --backend sim --sim-devices 64 --layer async --quick --json " + (dir / "r.json").string());
    EXPECT_EQ(out.exit_code, 2) << out.output;
    EXPECT_NE(out.output.find("--sim-devices 64 needs about"), std::string::npos) << out.output;
    EXPECT_NE(out.output.find("no checks were run"), std::string::npos) << out.output;
    EXPECT_FALSE(std::filesystem::exists(dir / "r.json")) << "no report for a run that never started";
}

}  // namespace
}  // namespace gpuconform::test
