// Runs a program as a child in its own process group, output to a file, with a time limit.
// fork + execvp with an argument vector: no shell, no command string to quote.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace gpuconform {

struct ChildOutcome {
    bool started = false;    // false: execvp failed (program not found or not executable)
    bool timed_out = false;  // the whole process group was killed at the limit
    int exit_code = -1;      // valid when it exited normally
    int signal = 0;          // the signal that ended it, or 0
    std::string exec_error;  // why execvp failed
    double wall_s = 0.0;
};

// `argv[0]` is looked up on PATH like a shell would. `env` entries are set in the child only.
// stdout and stderr of the child go to `log_path` (truncated first).
ChildOutcome run_child(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
                       const std::string& log_path, double timeout_s);

}  // namespace gpuconform
