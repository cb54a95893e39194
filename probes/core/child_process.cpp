#include "core/child_process.hpp"

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <string>
#include <vector>
#include <cstring>
#include <optional>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace gpuconform {

namespace {

// How often a wait looks at the stop flag and the deadline; the child's end wakes it at once.
constexpr auto k_poll_interval = std::chrono::milliseconds(10);

// Built in the parent, so the child between fork and exec only calls async-signal-safe
// functions; the exec error goes back through a pipe whose write end closes on success.
std::vector<std::string> child_environment(const std::map<std::string, std::string>& overrides) {
    std::vector<std::string> out;
    for (char** e = environ; *e != nullptr; ++e) {
        const std::string entry(*e);
        if (!overrides.contains(entry.substr(0, entry.find('=')))) {
            out.push_back(entry);
        }
    }
    for (const auto& [key, value] : overrides) {
        out.push_back(key + "=" + value);
    }
    return out;
}

std::vector<char*> c_strings(const std::vector<std::string>& strings) {
    std::vector<char*> out;
    for (const auto& s : strings) {
        out.push_back(const_cast<char*>(s.c_str()));
    }
    out.push_back(nullptr);
    return out;
}

[[noreturn]] void exec_child(char* const* argv, char* const* envp, int log_fd, int error_fd, int inherit_fd) {
    setpgid(0, 0);
    dup2(log_fd, STDOUT_FILENO);
    dup2(log_fd, STDERR_FILENO);
    const int null_fd = open("/dev/null", O_RDONLY);
    if (null_fd >= 0) {
        dup2(null_fd, STDIN_FILENO);
    }
    if (inherit_fd >= 0) {
        fcntl(inherit_fd, F_SETFD, 0);
    }
    execvpe(argv[0], argv, envp);
    const int err = errno;
    ssize_t ignored = write(error_fd, &err, sizeof(err));
    (void)ignored;
    _exit(127);
}

void take_status(ChildOutcome& out, const ExitStatus& status) {
    out.exit_code = status.exit_code;
    out.signal = status.signal;
    out.how = status.describe();
}

}  // namespace

StartedChild start_child(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
                         const std::string& log_path, int inherit_fd) {
    StartedChild child;
    ChildOutcome& out = child.outcome;
    child.start = std::chrono::steady_clock::now();
    const Fd log(open(log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
    Fd error_read, error_write;
    if (!log.valid() || argv.empty() || !make_pipe(&error_read, &error_write)) {
        out.exec_error =
            !log.valid() ? "cannot write " + log_path + ": " + std::strerror(errno) : "cannot start a child";
        return child;
    }
    const std::vector<std::string> env_strings = child_environment(env);
    const std::vector<char*> c_argv = c_strings(argv);
    const std::vector<char*> c_envp = c_strings(env_strings);
    const pid_t pid = fork();
    if (pid == 0) {
        exec_child(c_argv.data(), c_envp.data(), log.get(), error_write.get(), inherit_fd);
    }
    error_write.reset();  // only the child's copy may keep it open, until its exec
    if (pid < 0) {
        out.exec_error = std::string("fork failed: ") + std::strerror(errno);
        return child;
    }
    child.group = ChildGroup(pid);
    int exec_errno = 0;
    const bool exec_failed = read(error_read.get(), &exec_errno, sizeof(exec_errno)) == sizeof(exec_errno);
    out.started = !exec_failed;
    if (exec_failed) {
        out.exec_error = std::strerror(exec_errno);
    }
    return child;
}

ChildOutcome wait_child(StartedChild& child, std::chrono::steady_clock::time_point deadline,
                        const std::atomic<bool>* stop) {
    ChildOutcome& out = child.outcome;
    if (!child.group.running()) {
        return out;
    }
    std::optional<std::chrono::steady_clock::time_point> kill_at;
    while (!child.group.poll()) {
        if (stop != nullptr && *stop && !kill_at) {
            out.stopped = true;
            child.group.signal_group(SIGTERM);
            kill_at =
                std::chrono::steady_clock::now() + std::chrono::milliseconds(static_cast<int>(k_stop_grace_s * 1000));
        }
        if (kill_at && std::chrono::steady_clock::now() >= *kill_at) {
            child.group.kill_and_reap();
            break;
        }
        if (std::chrono::steady_clock::now() >= deadline) {
            out.timed_out = true;
            child.group.kill_and_reap();
            break;
        }
        child.group.wait_up_to(k_poll_interval);
    }
    take_status(out, child.group.status());
    out.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - child.start).count();
    return out;
}

void end_child(StartedChild& child) {
    if (!child.group.running()) {
        return;
    }
    const std::atomic<bool> stop{true};
    wait_child(child, std::chrono::steady_clock::time_point::max(), &stop);
}

ChildOutcome run_child(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
                       const std::string& log_path, double timeout_s, const std::atomic<bool>* stop) {
    StartedChild child = start_child(argv, env, log_path);
    return wait_child(child,
                      child.start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                        std::chrono::duration<double>(timeout_s)),
                      stop);
}

}  // namespace gpuconform
