// Bad command lines and bad input files: a clear message and exit status 2, no checks run.
#include <gtest/gtest.h>

#include "cli_helpers.hpp"

namespace gpuconform::test {
namespace {

struct BadCall {
    const char* args;
    const char* must_say;
};

class BadUsage : public ::testing::TestWithParam<BadCall> {};

TEST_P(BadUsage, ExitsTwoAndSaysWhy) {
    const auto out = run_cli(GetParam().args);
    EXPECT_EQ(out.exit_code, 2) << out.output;
    EXPECT_NE(out.output.find(GetParam().must_say), std::string::npos) << out.output;
}

INSTANTIATE_TEST_SUITE_P(
    Cases, BadUsage,
    ::testing::Values(BadCall{"run --layer hots", "unknown layer"}, BadCall{"run --only 'nope.*'", "matches no check"},
                      BadCall{"run --fault hang", "--backend sim"},
                      BadCall{"run --backend sim --fault melted", "unknown fault"},
                      BadCall{"run --backend rocm", "unknown backend"}, BadCall{"run --bogus", "bogus"},
                      BadCall{"run --json /nonexistent-folder/r.json", "does not exist"},
                      BadCall{"run --backend sim --layer async --device 7 --json -", "out of range"},
                      BadCall{"run --profile /nonexistent.yaml", "nonexistent.yaml"},
                      BadCall{"frobnicate", "unknown command \"frobnicate\" (commands: run, list,"},
                      BadCall{"rn", "unknown command \"rn\"; did you mean \"run\"?"},
                      BadCall{"dif old.json new.json", "unknown command \"dif\"; did you mean \"diff\"?"}));

TEST(BadProfile, NamesFileLineAndFieldAndRunsNothing) {
    const auto dir = temp_dir("badprofile");
    const auto profile = dir / "fleet.yaml";
    std::ofstream(profile) << "defaults:\n  async.copy.bandwidth:\n    pcie_efficiency_min_ratio: -0.7\n";
    const auto report = dir / "r.json";
    const auto out = run_cli("run --profile " + profile.string() + " --json " + report.string());
    EXPECT_EQ(out.exit_code, 2);
    EXPECT_NE(out.output.find("fleet.yaml:3"), std::string::npos) << out.output;
    EXPECT_NE(out.output.find("pcie_efficiency_min_ratio"), std::string::npos) << out.output;
    EXPECT_FALSE(std::filesystem::exists(report));
}

TEST(Help, EverySubcommandHasHelp) {
    for (const char* sub : {"run", "list", "selftest", "matrix", "diff"}) {
        const auto out = run_cli(std::string(sub) + " --help");
        EXPECT_EQ(out.exit_code, 0) << sub;
        EXPECT_NE(out.output.find("Usage"), std::string::npos) << sub << ": " << out.output;
    }
}

// What each command's exit status means is in its --help (and so in the man page).
TEST(Help, CommandsWithExitCodesSayThem) {
    const std::vector<std::pair<const char*, std::vector<const char*>>> cases = {
        {"run", {"Exit status: 0 nothing failed", "--strict", "2 bad usage", "130 interrupted"}},
        {"selftest", {"Exit status: 0 every fault was caught", "1 some scenario"}},
        {"profile", {"Exit status: 0", "2 a profile file"}},
        {"render", {"Exit status: 0"}},
        {"matrix", {"Exit status: 0", "3 some inputs"}},
        {"diff", {"Exit status: 0 no regression", "4 different nodes"}},
    };
    for (const auto& [sub, phrases] : cases) {
        const auto out = run_cli(std::string(sub) + " --help");
        for (const char* phrase : phrases) {
            EXPECT_NE(out.output.find(phrase), std::string::npos) << sub << " --help lacks " << phrase;
        }
    }
}

TEST(List, NamesEveryLayer) {
    const auto out = run_cli("list");
    EXPECT_EQ(out.exit_code, 0);
    for (const char* id :
         {"host.memlock", "runtime.cuda.driver_compat", "async.copy.pinned_returns_early", "framework.torch"}) {
        EXPECT_NE(out.output.find(id), std::string::npos) << id;
    }
}

}  // namespace
}  // namespace gpuconform::test
