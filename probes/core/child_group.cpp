#include "core/child_group.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>
#include <utility>

#include <fmt/format.h>

namespace gpuconform {

Fd& Fd::operator=(Fd&& other) noexcept {
    if (this != &other) {
        reset(other.release());
    }
    return *this;
}

int Fd::release() { return std::exchange(m_fd, -1); }

void Fd::reset(int fd) {
    if (m_fd >= 0) {
        ::close(m_fd);
    }
    m_fd = fd;
}

bool make_pipe(Fd* read_end, Fd* write_end) {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) {
        return false;
    }
    read_end->reset(fds[0]);
    write_end->reset(fds[1]);
    return true;
}

ExitStatus ExitStatus::from_wait_status(int status) {
    ExitStatus s;
    s.ended = true;
    if (WIFEXITED(status)) {
        s.exit_code = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status)) {
        s.signal = WTERMSIG(status);
        s.core_dumped = WCOREDUMP(status);
    }
    return s;
}

std::string ExitStatus::describe() const {
    if (!ended) {
        return "had not ended";
    }
    if (signal != 0) {
        const char* abbrev = sigabbrev_np(signal);
        return fmt::format("was killed by signal {} ({}: {}){}", signal, abbrev != nullptr ? abbrev : "?",
                           strsignal(signal), core_dumped ? ", core dumped" : "");
    }
    return fmt::format("exited with status {}", exit_code);
}

ChildGroup::ChildGroup(pid_t pid) : m_pid(pid) {
    if (pid > 0) {
        setpgid(pid, pid);  // also in the child: whichever runs first, the group exists before any kill
    }
}

ChildGroup::ChildGroup(ChildGroup&& other) noexcept
    : m_pid(std::exchange(other.m_pid, -1)),
      m_status(other.m_status),
      m_pidfd(std::move(other.m_pidfd)),
      m_pidfd_tried(std::exchange(other.m_pidfd_tried, false)) {}

ChildGroup& ChildGroup::operator=(ChildGroup&& other) noexcept {
    if (this != &other) {
        kill_and_reap();
        m_pid = std::exchange(other.m_pid, -1);
        m_status = other.m_status;
        m_pidfd = std::move(other.m_pidfd);
        m_pidfd_tried = std::exchange(other.m_pidfd_tried, false);
    }
    return *this;
}

void ChildGroup::signal_group(int sig) const {
    if (m_pid > 0) {
        kill(-m_pid, sig);
        kill(m_pid, sig);
    }
}

void ChildGroup::reaped(int wait_status) {
    m_status = ExitStatus::from_wait_status(wait_status);
    m_pid = -1;
    m_pidfd.reset();
}

void ChildGroup::wait_up_to(std::chrono::milliseconds limit) {
    if (m_pid <= 0) {
        return;
    }
#ifdef SYS_pidfd_open
    if (!m_pidfd_tried) {
        m_pidfd_tried = true;
        m_pidfd.reset(static_cast<int>(::syscall(SYS_pidfd_open, m_pid, 0)));  // -1 (ENOSYS, EPERM): sleep
    }
#endif
    if (m_pidfd.valid()) {
        pollfd ready{m_pidfd.get(), POLLIN, 0};
        (void)::poll(&ready, 1, static_cast<int>(limit.count()));  // EINTR: the caller polls again
        return;
    }
    std::this_thread::sleep_for(limit);
}

bool ChildGroup::poll() {
    if (m_pid <= 0) {
        return true;
    }
    int status = 0;
    const pid_t got = waitpid(m_pid, &status, WNOHANG);
    if (got == m_pid) {
        reaped(status);
        return true;
    }
    if (got < 0 && errno == ECHILD) {  // reaped elsewhere: nothing more to learn
        m_pid = -1;
        return true;
    }
    return false;
}

const ExitStatus& ChildGroup::wait() {
    while (m_pid > 0) {
        int status = 0;
        const pid_t got = waitpid(m_pid, &status, 0);
        if (got == m_pid) {
            reaped(status);
        } else if (got < 0 && errno != EINTR) {
            m_pid = -1;
        }
    }
    return m_status;
}

const ExitStatus& ChildGroup::kill_and_reap() {
    if (m_pid > 0) {
        signal_group(SIGKILL);
        wait();
    }
    return m_status;
}

}  // namespace gpuconform
