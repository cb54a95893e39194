// `gpuconform run`: selects checks, runs host checks here and device checks in workers,
// merges the framework layer, writes the report and returns the exit status.
#pragma once

#include <string>
#include <vector>

#include "core/profile.hpp"
#include "runner/busy_policy.hpp"

namespace gpuconform {

// When the framework layer's pytest starts: during the device checks, after them, or by the CPUs.
enum class FrameworkStart { Auto, Early, Late };

struct RunRequest {
    std::vector<std::string> layers;  // empty: all
    std::vector<std::string> only;    // id globs; empty: all
    std::vector<int> devices;         // empty: all visible
    std::string json_path;            // "" default name in the current folder, "-" stdout
    std::string junit_path;
    std::vector<std::string> profile_files;
    std::vector<std::string> backends;  // empty: cuda and hip
    std::vector<std::string> faults;    // sim fault knobs
    int sim_devices = 1;
    int repeat = 1;      // device checks run this many times, folded into one result
    std::string python;  // for the framework layer
    bool strict = false;
    bool quiet = false;
    bool quick = false;
    double check_timeout_s = 0;           // > 0: overrides every device check's own limit
    WhenBusy when_busy = WhenBusy::Wait;  // a timing check on a GPU another user is on
    double busy_wait_s = 120;             // seconds each GPU may be waited for, over the whole run
    bool verbose = false;                 // every result line, even repeated skips
    double sim_cotenant_s = -1;           // < 0 none; 0 a sim co-tenant for the whole run; > 0 for S s
    bool sim_cotenant_hidden = false;     // that co-tenant is in another PID namespace: no process listed
    FrameworkStart framework_start = FrameworkStart::Auto;  // when pytest (Python, torch import) starts
    bool timings = false;                                   // print where the run's time went (run.phases)
    double budget_s = 0;  // the acceptance layer's seconds (--budget); 0: k_default_acceptance_budget_s
    std::vector<std::string> command_line;
};

const std::vector<std::string>& known_layers();
// Layers that run only when named with --layer (the acceptance layer loads the GPUs for minutes).
const std::vector<std::string>& opt_in_layers();
// The one rule for which layers a run has: those named, else every layer that is not opt-in.
bool layer_chosen(const std::vector<std::string>& layers, const std::string& layer);
inline constexpr double k_default_acceptance_budget_s = 300;

// Early when this process may use at least k_early_start_min_cpus CPUs: torch's import takes one
// core for seconds, which on a smaller machine the device checks' host threads would feel.
inline constexpr int k_early_start_min_cpus = 4;
bool framework_starts_early(FrameworkStart start, int usable_cpus);
int usable_cpus();  // the CPUs of this process's affinity mask
// False when no --only glob can match an id of `layer` ("layer.*"): a glob whose literal start
// (up to its first *, ? or [) is neither a prefix of "layer." nor begins with it. The framework
// layer is then not started at all (pytest and `import torch` cost seconds).
bool only_reaches_layer(const std::vector<std::string>& only, const std::string& layer);

// The built-in profile with each of `files` layered over it, every check id and key validated;
// throws ProfileError naming the file, line and field. `run` and `profile` both read it so.
Profile load_profile(const std::vector<std::string>& files);

// Returns the process exit status (README, "gpuconform run"): 0, 1, 2 for bad usage/input, 130 interrupted.
int run_suite(const RunRequest& request);

// True when `id` matches any of the shell-style globs (or there are none).
bool matches_any(const std::string& id, const std::vector<std::string>& globs);

}  // namespace gpuconform
