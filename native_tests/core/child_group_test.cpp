// The shared child plumbing: owned descriptors close, a child's end reads the same way for both
// kinds of child, and dropping a running child kills its group and reaps it.
#include "core/child_group.hpp"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

namespace gpuconform {
namespace {

TEST(ChildGroup, AnFdClosesWhenItGoesAndMovesOwnership) {
    int raw = -1;
    {
        Fd a(open("/dev/null", O_RDONLY | O_CLOEXEC));
        ASSERT_TRUE(a.valid());
        raw = a.get();
        Fd b(std::move(a));
        EXPECT_FALSE(a.valid());
        EXPECT_EQ(b.get(), raw);
        EXPECT_NE(fcntl(raw, F_GETFD), -1);
    }
    EXPECT_EQ(fcntl(raw, F_GETFD), -1);
    EXPECT_EQ(errno, EBADF);
}

pid_t spawn(void (*body)()) {
    const pid_t pid = fork();
    if (pid == 0) {
        setpgid(0, 0);
        body();
        _exit(0);
    }
    return pid;
}

TEST(ChildGroup, ExitAndSignalAreToldTheSameWayForEveryChild) {
    ChildGroup exits(spawn([] { _exit(3); }));
    EXPECT_EQ(exits.wait().describe(), "exited with status 3");
    EXPECT_EQ(exits.status().exit_code, 3);
    ChildGroup killed(spawn([] { pause(); }));
    killed.signal_group(SIGKILL);
    const ExitStatus& s = killed.wait();
    EXPECT_EQ(s.signal, SIGKILL);
    EXPECT_NE(s.describe().find("was killed by signal 9 (KILL"), std::string::npos) << s.describe();
}

TEST(ChildGroup, DroppingARunningChildKillsAndReapsIt) {
    pid_t pid = -1;
    {
        ChildGroup sleeper(spawn([] { pause(); }));
        pid = sleeper.pid();
        ASSERT_GT(pid, 0);
        EXPECT_FALSE(sleeper.poll());  // still running
    }
    EXPECT_EQ(kill(pid, 0), -1);  // gone, and no zombie left to reap
    EXPECT_EQ(errno, ESRCH);
}

}  // namespace
}  // namespace gpuconform
