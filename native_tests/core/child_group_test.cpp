// The shared child plumbing: owned descriptors close, a child's end reads the same way for both
// kinds of child, and dropping a running child kills its group and reaps it.
#include "core/child_group.hpp"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <chrono>

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

// The wait for a child's end wakes when it ends, not when the limit is up (pidfd); a kernel
// without pidfds sleeps the limit instead, which is what the waits did before.
TEST(ChildGroup, AWaitWakesWhenTheChildEnds) {
#ifdef SYS_pidfd_open
    const pid_t self = getpid();
    const int probe = static_cast<int>(::syscall(SYS_pidfd_open, self, 0));
    if (probe < 0) {
        GTEST_SKIP() << "this kernel gives no pidfd: " << std::strerror(errno);
    }
    ::close(probe);
    ChildGroup quick(spawn([] { usleep(20000); }));
    const auto start = std::chrono::steady_clock::now();
    quick.wait_up_to(std::chrono::seconds(30));
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20)) << "woke only at the limit";
    EXPECT_TRUE(quick.poll());
    EXPECT_EQ(quick.status().exit_code, 0);
    quick.wait_up_to(std::chrono::seconds(30));  // nothing left to wait for: returns at once
#else
    GTEST_SKIP() << "built without SYS_pidfd_open";
#endif
}

}  // namespace
}  // namespace gpuconform
