// Runs a program as a child in its own process group, output to a file, with a time limit.
// fork + execvp with an argument vector: no shell, no command string to quote.
#pragma once

#include <atomic>
#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "core/child_group.hpp"

namespace gpuconform {

struct ChildOutcome {
    bool started = false;    // false: execvp failed (program not found or not executable)
    bool timed_out = false;  // the whole process group was killed at the limit
    int exit_code = -1;      // valid when it exited normally
    int signal = 0;          // the signal that ended it, or 0
    std::string how;         // how it ended, in the words a worker's end is told in (ExitStatus::describe)
    bool stopped = false;    // `stop` was raised: the group got SIGTERM, then SIGKILL if still there
    std::string exec_error;  // why execvp failed
    double wall_s = 0.0;
};

// A child started but not yet waited for (start_child), so it can work while we do.
struct StartedChild {
    ChildGroup group;      // running until wait_child; ended (group killed) if dropped unwaited
    ChildOutcome outcome;  // started and exec_error are set; the rest by wait_child
    std::chrono::steady_clock::time_point start;
};

// Starts the child; `inherit_fd` (>= 0) stays open across exec (it is close-on-exec otherwise).
StartedChild start_child(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
                         const std::string& log_path, int inherit_fd = -1);
// Waits until the child ends, `deadline` passes (the group is killed: timed_out) or `stop` is
// raised (SIGTERM to the group, SIGKILL k_stop_grace_s later). Returns its outcome; wall_s counts
// from start_child.
ChildOutcome wait_child(StartedChild& child, std::chrono::steady_clock::time_point deadline,
                        const std::atomic<bool>* stop = nullptr);
// Ends a child that is no longer wanted: SIGTERM to its group, SIGKILL after k_stop_grace_s.
void end_child(StartedChild& child);

// `argv[0]` is looked up on PATH like a shell would. `env` entries are set in the child only.
// stdout and stderr of the child go to `log_path` (truncated first). When `stop` becomes true
// (our SIGINT/SIGTERM/SIGHUP handler), the child's whole process group is ended within a second.
ChildOutcome run_child(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
                       const std::string& log_path, double timeout_s, const std::atomic<bool>* stop = nullptr);

// How long a stopped child's group has between SIGTERM and SIGKILL.
inline constexpr double k_stop_grace_s = 0.5;

}  // namespace gpuconform
