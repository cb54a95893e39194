// `selftest --jobs N`: scenarios side by side, each in its own process, print the same table in
// the same order as one at a time; a stop ends every scenario's process, not only ours.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <regex>
#include <string>
#include <thread>

#include "cli_helpers.hpp"

namespace gpuconform::test {
namespace {

TEST(SelftestJobs, SideBySideScenariosPrintTheTableInItsOrder) {
    const auto out = run_cli("selftest --jobs 3 --only-fault no_peer --only-fault slow_link --only-fault vbios_odd");
    ASSERT_EQ(out.exit_code, 0) << out.output;
    const auto slow = out.output.find("\nslow_link ");
    const auto peer = out.output.find("\nno_peer ");
    const auto vbios = out.output.find("\nvbios_odd ");
    ASSERT_NE(slow, std::string::npos) << out.output;
    ASSERT_NE(peer, std::string::npos) << out.output;
    ASSERT_NE(vbios, std::string::npos) << out.output;
    EXPECT_LT(slow, peer) << "the table's order is --list-faults', not the order the scenarios ended\n" << out.output;
    EXPECT_LT(peer, vbios) << out.output;
    EXPECT_NE(out.output.find("every fault was caught by exactly its checks"), std::string::npos) << out.output;
}

// A mismatch beside other scenarios runs once more, alone; one that repeats (here: no simulated
// backend to load, so the slow link is never measured) still fails the selftest, both tries shown.
TEST(SelftestJobs, AMismatchRunsAgainAloneAndARepeatedOneStillFails) {
    const auto out = run_cli("selftest --jobs 2 --only-fault slow_link --only-fault vbios_odd",
                             "GPUCONFORM_MODULE_DIR=/nonexistent");
    EXPECT_EQ(out.exit_code, 1) << out.output;
    const auto again = out.output.find("run again alone");
    ASSERT_NE(again, std::string::npos) << out.output;
    EXPECT_NE(out.output.find("\nslow_link                WRONG"), std::string::npos) << out.output;
    EXPECT_NE(out.output.find("\nslow_link                WRONG", again), std::string::npos)
        << "the second try is not shown\n"
        << out.output;
    EXPECT_EQ(out.output.find("\nvbios_odd", again), std::string::npos) << "a match ran again\n" << out.output;
    EXPECT_NE(out.output.find("selftest: 1 scenario(s) did not match"), std::string::npos) << out.output;
}

// The scenarios with the most simulated GPUs start first, and the table keeps its own order.
TEST(SelftestJobs, EachLineTimesItsScenario) {
    const auto out = run_cli("selftest --jobs 2 --only-fault no_peer --only-fault vbios_odd");
    ASSERT_EQ(out.exit_code, 0) << out.output;
    EXPECT_NE(out.output.find("fault                    result      s  checks tripped"), std::string::npos)
        << out.output;
    EXPECT_LT(out.output.find("\nno_peer "), out.output.find("\nvbios_odd ")) << out.output;
    EXPECT_TRUE(std::regex_search(out.output, std::regex("\nno_peer +ok +[0-9]+\\.[0-9]  async\\.peer"))) << out.output;
}

// Processes whose command line is exactly `args`: our scenarios' children are forks of it.
int processes_running(const std::string& args) {
    const auto out = run_cli("", "pgrep -c -x -f '" + exe() + " " + args + "' #");
    return std::atoi(out.output.c_str());
}

TEST(SelftestJobs, ASignalEndsEveryScenarioProcessWithExit130) {
    const std::string args = "selftest --jobs 4 --only-fault hang --only-fault crash --only-fault sticky_error";
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        ::execl(exe().c_str(), exe().c_str(), "selftest", "--jobs", "4", "--only-fault", "hang", "--only-fault",
                "crash", "--only-fault", "sticky_error", static_cast<char*>(nullptr));
        _exit(127);
    }
    // Until scenarios run side by side (two processes beside ours), at most 10 s.
    int running = 0;
    for (int i = 0; i < 200 && (running = processes_running(args)) < 3; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    ASSERT_GE(running, 3) << "the scenarios never ran side by side";
    ::kill(pid, SIGTERM);
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status)) << "ended by a signal: the stop was not handled";
    EXPECT_EQ(WEXITSTATUS(status), 130);
    int left = processes_running(args);
    for (int i = 0; i < 40 && left > 0; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        left = processes_running(args);
    }
    EXPECT_EQ(left, 0) << "a scenario's process outlived the selftest";
}

}  // namespace
}  // namespace gpuconform::test
