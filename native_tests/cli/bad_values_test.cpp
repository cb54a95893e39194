// One rule for option values in every subcommand: an empty value (a script's `--only "$CHECKS"`
// with the variable unset) or an unknown one is bad usage, exit 2, never "select everything";
// a write error on standard output is exit 2, never an abort.
#include <gtest/gtest.h>

#include "cli_helpers.hpp"

namespace gpuconform::test {
namespace {

struct BadValue {
    const char* args;
    const char* must_say;
};

class BadValues : public ::testing::TestWithParam<BadValue> {};

TEST_P(BadValues, AreRefusedWithExitTwoBeforeAnythingRuns) {
    const auto out = run_cli(std::string(GetParam().args) + " </dev/null", "timeout 60");
    EXPECT_EQ(out.exit_code, 2) << GetParam().args << "\n" << out.output;
    EXPECT_NE(out.output.find(GetParam().must_say), std::string::npos) << GetParam().args << "\n" << out.output;
}

INSTANTIATE_TEST_SUITE_P(
    Cases, BadValues,
    ::testing::Values(BadValue{"list --layer bogus", "unknown layer"}, BadValue{"list --layer ''", "empty"},
                      BadValue{"run --only '' --backend sim --layer host --json -", "empty"},
                      BadValue{"run --only ',' --backend sim --layer host --json -", "empty"},
                      BadValue{"run --layer '' --backend sim --json -", "empty"},
                      BadValue{"run --backend '' --layer host --json -", "empty"},
                      BadValue{"selftest --only-fault ''", "empty"}, BadValue{"selftest --jobs 0", "not in range"},
                      BadValue{"matrix --by '' /nonexistent", "empty"},
                      BadValue{"run --backend sim --fault hang@5 --layer async --json -", "device 5"},
                      BadValue{"run --backend sim --sim-devices 2 --fault hang@2 --layer async --json -", "device 2"}));

class WriteError : public ::testing::TestWithParam<const char*> {};

// Standard error stays on the pipe (2>&1 first), standard output goes to a full disk.
Outcome run_to_full_disk(const std::string& args) {
    Outcome out;
    FILE* pipe = popen((exe() + " " + args + " 2>&1 >/dev/full").c_str(), "r");
    out.output = read_pipe(pipe);
    const int status = pipe != nullptr ? pclose(pipe) : -1;
    out.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return out;
}

TEST_P(WriteError, OnStandardOutputIsExitTwoNotAnAbort) {
    const auto out = run_to_full_disk(GetParam());
    EXPECT_EQ(out.exit_code, 2) << GetParam() << "\n" << out.output;
    EXPECT_NE(out.output.find("standard output"), std::string::npos) << GetParam() << "\n" << out.output;
}

INSTANTIATE_TEST_SUITE_P(Commands, WriteError,
                         ::testing::Values("list", "list --json", "profile", "selftest --list-faults"));

}  // namespace
}  // namespace gpuconform::test
