// Runs a program as a child in its own process group, output to a file, with a time limit.
// fork + execvp with an argument vector: no shell, no command string to quote.
#pragma once

#include <atomic>
#include <map>
#include <string>
#include <vector>

namespace gpuconform {

struct ChildOutcome {
    bool started = false;    // false: execvp failed (program not found or not executable)
    bool timed_out = false;  // the whole process group was killed at the limit
    int exit_code = -1;      // valid when it exited normally
    int signal = 0;          // the signal that ended it, or 0
    bool stopped = false;    // `stop` was raised: the group got SIGTERM, then SIGKILL if still there
    std::string exec_error;  // why execvp failed
    double wall_s = 0.0;
};

// `argv[0]` is looked up on PATH like a shell would. `env` entries are set in the child only.
// stdout and stderr of the child go to `log_path` (truncated first). When `stop` becomes true
// (our SIGINT/SIGTERM/SIGHUP handler), the child's whole process group is ended within a second.
ChildOutcome run_child(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
                       const std::string& log_path, double timeout_s, const std::atomic<bool>* stop = nullptr);

// How long a stopped child's group has between SIGTERM and SIGKILL.
inline constexpr double k_stop_grace_s = 0.5;

}  // namespace gpuconform
