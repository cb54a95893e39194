// The plumbing every child process of ours shares: an owned file descriptor, how a child ended
// in words, and an owned child that leads its own process group. Both kinds of child use it: the
// device workers (fork, runner/worker.cpp) and the programs we run (fork + exec,
// core/child_process.cpp), so they report a signal the same way and never leak a descriptor,
// a zombie or a grandchild.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>

namespace gpuconform {

// Closes its descriptor when it goes; move-only.
class Fd {
public:
    Fd() = default;
    explicit Fd(int fd) : m_fd(fd) {}
    ~Fd() { reset(); }
    Fd(Fd&& other) noexcept : m_fd(other.release()) {}
    Fd& operator=(Fd&& other) noexcept;
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
    int get() const { return m_fd; }
    bool valid() const { return m_fd >= 0; }
    int release();
    void reset(int fd = -1);

private:
    int m_fd = -1;
};

// A pipe as two owned ends (O_CLOEXEC); false when the system refused one.
bool make_pipe(Fd* read_end, Fd* write_end);

// How a child ended, from waitpid's status.
struct ExitStatus {
    bool ended = false;
    int exit_code = -1;  // when it exited
    int signal = 0;      // when a signal ended it
    bool core_dumped = false;
    static ExitStatus from_wait_status(int status);
    // "exited with status 3", "was killed by signal 9 (KILL: Killed)", ", core dumped" added.
    std::string describe() const;
};

// A child that leads its own process group (setpgid on both sides of the fork). Destroying a
// running one kills the group and reaps the child.
class ChildGroup {
public:
    ChildGroup() = default;
    explicit ChildGroup(pid_t pid);  // after fork, in the parent
    ~ChildGroup() { kill_and_reap(); }
    ChildGroup(ChildGroup&& other) noexcept;
    ChildGroup& operator=(ChildGroup&& other) noexcept;
    ChildGroup(const ChildGroup&) = delete;
    ChildGroup& operator=(const ChildGroup&) = delete;

    pid_t pid() const { return m_pid; }
    bool running() const { return m_pid > 0; }
    const ExitStatus& status() const { return m_status; }
    void signal_group(int sig) const;  // to the whole group, and to the child itself
    bool poll();                       // true once it has ended (it is reaped then)
    // Blocks until it may have ended or `limit` passed, reaping nothing: with a pidfd (Linux 5.3)
    // it wakes the moment the child ends, else it sleeps `limit`. poll() then says which.
    void wait_up_to(std::chrono::milliseconds limit);
    const ExitStatus& wait();           // blocks until it ends
    const ExitStatus& kill_and_reap();  // SIGKILL to the group, then wait; nothing when not running

private:
    void reaped(int wait_status);
    pid_t m_pid = -1;
    ExitStatus m_status;
    Fd m_pidfd;  // opened on the first wait_up_to; invalid where the kernel has none
    bool m_pidfd_tried = false;
};

}  // namespace gpuconform
