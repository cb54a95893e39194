// The acceptance layer is opt-in: the default run and --quick never select it, --budget without it
// is bad usage, and on the simulated device it ends within its budget.
#include <gtest/gtest.h>

#include "cli_helpers.hpp"

namespace gpuconform::test {
namespace {

bool has_acceptance_result(const nlohmann::json& report) {
    for (const auto& r : report.at("results")) {
        if (r.at("layer") == "acceptance") {
            return true;
        }
    }
    return false;
}

TEST(AcceptanceLayer, NotInTheDefaultRunNorQuick) {
    const auto dir = temp_dir("accept-default");
    for (const std::string extra : {"", " --quick"}) {
        const auto path = dir / "r.json";
        const auto out = run_cli("run --backend sim --layer host,async --json " + path.string() + extra);
        ASSERT_TRUE(out.exit_code == 0 || out.exit_code == 1) << out.output;
        EXPECT_FALSE(has_acceptance_result(read_json(path))) << extra;
    }
    const auto listed = run_cli("run --backend sim --only 'acceptance.*' --json " + (dir / "x.json").string());
    EXPECT_EQ(listed.exit_code, 2) << "the default layers hold no acceptance check: " << listed.output;
}

TEST(AcceptanceLayer, BudgetNeedsTheLayer) {
    const auto out = run_cli("run --backend sim --budget 60 --json -");
    EXPECT_EQ(out.exit_code, 2) << out.output;
    EXPECT_NE(out.output.find("--layer acceptance"), std::string::npos) << out.output;
}

TEST(AcceptanceLayer, RunsOnTheSimWithinItsBudget) {
    const auto dir = temp_dir("accept-sim");
    const auto path = dir / "r.json";
    const auto out = run_cli("run --backend sim --layer acceptance --budget 20 --json " + path.string());
    EXPECT_EQ(out.exit_code, 0) << out.output;
    const auto report = read_json(path);
    int results = 0;
    double seconds = 0;
    for (const auto& r : report.at("results")) {
        if (r.at("layer") == "acceptance") {
            ++results;
            seconds += r.at("duration_s").get<double>();
            EXPECT_EQ(r.at("status"), "pass") << r.dump();
        }
    }
    EXPECT_EQ(results, 5);
    EXPECT_LE(seconds, 20 * 1.05) << "the parts' shares add up to 95 % of the budget";
    const auto err = schema_error(path);
    if (err != "unavailable") {
        EXPECT_EQ(err, "") << err;
    }
}

}  // namespace
}  // namespace gpuconform::test
