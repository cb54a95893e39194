// async.peer.copy_bandwidth on three simulated GPUs, one at 60 % of its siblings' copy rate:
// four of the six pairs touch it, so against the median of all pairs it looked normal and the
// check passed. Judged per GPU, the run fails and names that GPU.
#include <gtest/gtest.h>

#include "cli_helpers.hpp"

namespace gpuconform::test {
namespace {

TEST(PeerJudgement, TheSlowGpuOfThreeIsNamed) {
    const auto dir = temp_dir("peer-3");
    const auto path = dir / "r.json";
    const auto out = run_cli(
        "run --backend sim --sim-devices 3 --fault degraded_link@2 --layer async --quick "
        "--only async.peer.copy_bandwidth --json " +
        path.string());
    EXPECT_EQ(out.exit_code, 1) << out.output;
    const auto report = read_json(path);
    int seen = 0;
    for (const auto& r : report.at("results")) {
        if (r.at("id") != "async.peer.copy_bandwidth") {
            continue;
        }
        ++seen;
        EXPECT_EQ(r.at("status"), "fail") << r.dump();
        EXPECT_EQ(r.at("facts").value("slow_gpus", nlohmann::json()), nlohmann::json::array({2})) << r.dump();
        EXPECT_NE(r.at("summary").get<std::string>().find("GPU 2: median"), std::string::npos) << r.dump();
    }
    EXPECT_EQ(seen, 1);
}

}  // namespace
}  // namespace gpuconform::test
