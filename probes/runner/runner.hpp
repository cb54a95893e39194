// `gpuconform run`: selects checks, runs host checks here and device checks in workers,
// merges the framework layer, writes the report and returns the exit status.
#pragma once

#include <string>
#include <vector>

#include "runner/busy_policy.hpp"

namespace gpuconform {

struct RunRequest {
    std::vector<std::string> layers;       // empty: all
    std::vector<std::string> only;         // id globs; empty: all
    std::vector<int> devices;              // empty: all visible
    std::string json_path;                 // "" default name in the current folder, "-" stdout
    std::string junit_path;
    std::vector<std::string> profile_files;
    std::vector<std::string> backends;     // empty: cuda and hip
    std::vector<std::string> faults;       // sim fault knobs
    int sim_devices = 1;
    int repeat = 1;                        // device checks run this many times, folded into one result
    std::string python;                    // for the framework layer
    bool strict = false;
    bool quiet = false;
    bool quick = false;
    double check_timeout_s = 0;            // > 0: overrides every device check's own limit
    WhenBusy when_busy = WhenBusy::Wait;   // a timing check on a GPU another user is on
    double busy_wait_s = 120;              // seconds each GPU may be waited for, over the whole run
    bool verbose = false;                  // every result line, even repeated skips
    double sim_cotenant_s = -1;            // < 0 none; 0 a sim co-tenant for the whole run; > 0 for S s
    bool framework_early = true;           // start pytest (Python, torch import) while the device checks run
    bool timings = false;                  // print where the run's time went (run.phases)
    std::vector<std::string> command_line;
};

const std::vector<std::string>& known_layers();

// Returns the process exit status (DESIGN.md): 0, 1, 2 for bad usage/input, 130 interrupted.
int run_suite(const RunRequest& request);

// True when `id` matches any of the shell-style globs (or there are none).
bool matches_any(const std::string& id, const std::vector<std::string>& globs);

}  // namespace gpuconform
