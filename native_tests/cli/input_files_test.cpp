// Files the user names (profiles, tolerance files) are read by one bounded opener: a FIFO, a
// device or a folder is refused at once with the reason, never read until memory runs out or
// waited on forever.
#include <sys/stat.h>

#include <chrono>

#include <gtest/gtest.h>

#include "cli_helpers.hpp"
#include "test_paths.hpp"

namespace gpuconform::test {
namespace {

// Under a memory cap and a time limit, so that the unbounded reader this guards against fails
// the test (exit 124, or an abort) instead of taking the machine with it.
Outcome run_bounded(const std::string& args, double& seconds) {
    const auto t0 = std::chrono::steady_clock::now();
    Outcome out = run_cli(args, "ulimit -v 2000000; timeout 15");
    seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return out;
}

std::string sample_report() {
    return std::string(test_paths::source_dir) + "/reports/samples/debian12-sim-2026-11-29-async.json";
}

struct HostileFile {
    const char* name;
    const char* args;  // {} is the hostile path
    const char* must_say;
};

class InputFile : public ::testing::TestWithParam<HostileFile> {};

TEST_P(InputFile, IsRefusedAtOnceWithTheReason) {
    const auto dir = temp_dir(std::string("input-") + GetParam().name);
    const std::string fifo = (dir / "fifo.yaml").string();
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    std::filesystem::create_directories(dir / "folder.yaml");
    std::string args = GetParam().args;
    for (const auto& [key, value] :
         {std::pair{std::string("{fifo}"), fifo}, std::pair{std::string("{folder}"), (dir / "folder.yaml").string()},
          std::pair{std::string("{report}"), sample_report()}}) {
        for (auto at = args.find(key); at != std::string::npos; at = args.find(key)) {
            args.replace(at, key.size(), value);
        }
    }
    double seconds = 0;
    const auto out = run_bounded(args, seconds);
    EXPECT_EQ(out.exit_code, 2) << args << "\n" << out.output;
    EXPECT_LT(seconds, 5.0) << args;
    EXPECT_NE(out.output.find(GetParam().must_say), std::string::npos) << args << "\n" << out.output;
    std::filesystem::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, InputFile,
    ::testing::Values(
        HostileFile{"zero_profile", "profile --profile /dev/zero", "not a regular file"},
        HostileFile{"zero_run", "run --backend sim --layer host --quiet --json - --profile /dev/zero",
                    "not a regular file"},
        HostileFile{"fifo_profile", "profile --profile {fifo}", "not a regular file"},
        HostileFile{"fifo_run", "run --backend sim --layer host --quiet --json - --profile {fifo}",
                    "not a regular file"},
        HostileFile{"fifo_tolerances", "diff {report} {report} --tolerances {fifo}", "not a regular file"},
        HostileFile{"zero_tolerances", "diff {report} {report} --tolerances /dev/zero", "not a regular file"},
        HostileFile{"folder_tolerances", "diff {report} {report} --tolerances {folder}", "folder"}),
    [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace gpuconform::test
