// End to end: GPUCONFORM_CALL_PROFILE has each device worker write one line per check with its
// runtime calls counted and timed, and the time in them never more than the check's own.
#include <gtest/gtest.h>

#include <fstream>
#include <set>

#include "cli_helpers.hpp"

namespace gpuconform::test {
namespace {

TEST(CallProfile, EachCheckGetsALineWithItsCallsCountedAndTimed) {
    const auto dir = temp_dir("call-profile");
    const auto lines_path = dir / "calls.jsonl";
    const auto out =
        run_cli("run --backend sim --only async.copy.bandwidth,async.copy.pinned_returns_early --quick --json " +
                    (dir / "r.json").string(),
                "GPUCONFORM_CALL_PROFILE=" + lines_path.string());
    ASSERT_TRUE(out.exit_code == 0 || out.exit_code == 1) << out.output;
    std::ifstream in(lines_path);
    std::string line;
    std::set<std::string> checks;
    while (std::getline(in, line)) {
        const auto j = nlohmann::json::parse(line);
        checks.insert(j.at("check").get<std::string>());
        const double seconds = j.at("seconds").get<double>();
        double in_calls = 0;
        for (const auto& [call, tally] : j.at("calls").items()) {
            EXPECT_GT(tally.at("count").get<std::uint64_t>(), 0u) << call;
            in_calls += tally.at("seconds").get<double>();
        }
        EXPECT_LE(in_calls, seconds + 1e-6) << line;
        EXPECT_NEAR(j.at("outside_calls_s").get<double>(), seconds - in_calls, 1e-6);
        EXPECT_GT(j.at("calls").at("memcpy_async").at("count").get<std::uint64_t>(), 0u) << line;
    }
    EXPECT_EQ(checks, (std::set<std::string>{"async.copy.bandwidth", "async.copy.pinned_returns_early"}));
}

}  // namespace
}  // namespace gpuconform::test
