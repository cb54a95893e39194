// `gpuconform selftest`: proves on the simulated backend that every device check catches its
// fault. A conforming sim must trip nothing; each fault knob must trip exactly its checks.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "core/result.hpp"
#include "runner/busy_policy.hpp"

namespace gpuconform {

struct FaultScenario {
    std::string fault;                // "" for the conforming sim
    std::set<std::string> must_trip;  // checks that must end fail, error or warn
    std::vector<std::string> only;    // run just these checks (hang/crash: each costs a timeout)
    std::string why;                  // what the scenario shows, in words
    double timeout_s = 0;             // per-check limit override (0: the check's own)
    int devices = 1;                  // simulated devices; with more than one, must_trip names
    int fault_device = -1;            // per-device results as "id@K"; -1: the fault is on every device
    // A simulated co-tenant (another process taking link and compute): < 0 none, 0 for the whole
    // run, > 0 leaves after that many seconds. With one, only FAILs (and errors that name no other
    // user) count as tripped, every disturbed result must name the co-tenant, and the causes must.
    double cotenant_s = -1;
    WhenBusy when_busy = WhenBusy::Wait;
    double busy_wait_s = 0;
    std::string label = "";        // the name shown and matched by --only-fault ("" : fault or none)
    bool cotenant_hidden = false;  // the co-tenant is in another PID namespace: seen by utilisation only
    // What it trips must not blame the install: every fail carries a disturbance (the run is inconclusive).
    bool not_the_install = false;
};

// The sim module's options for a scenario: "devices=N;fault=X" or "devices=N;fault.K=X".
std::string sim_module_options(int devices, const std::vector<std::string>& faults);

const std::vector<FaultScenario>& fault_scenarios();
bool is_sim_fault(const std::string& name);

struct ScenarioOutcome {
    const FaultScenario* scenario = nullptr;
    std::vector<CheckResult> results;
    std::set<std::string> tripped;     // fail, warn or error (with a co-tenant: error only naming nobody)
    std::set<std::string> missed;      // must_trip but did not
    std::set<std::string> unexpected;  // tripped but not in must_trip
    bool ok() const { return missed.empty() && unexpected.empty(); }
};

// The name a scenario is shown and selected by: its label, else its fault, else "none".
std::string scenario_name(const FaultScenario& s);

// Runs the health and async layers on the sim with this scenario's fault (quick mode).
ScenarioOutcome run_scenario(const FaultScenario& scenario);

struct SelftestRequest {
    bool list_faults = false;
    std::vector<std::string> faults;  // empty: all
    int jobs = 0;                     // scenarios at once, each in its own process; 0: by the CPUs
};
// Scenarios at once when none was asked for: three for every two CPUs, at least 2 and at most 8;
// one on a single CPU. A scenario keeps a CPU busy for about 0.7 of its time (the simulated device
// waits out its spins): on 2 CPUs, three at once took 97 s where two took 118 s and one at a time
// 213 s, every scenario matching, and 133 s with two busy loops beside them. One that does not
// match beside others runs again alone (run_selftest).
int default_selftest_jobs(unsigned cpus);
int run_selftest(const SelftestRequest& request);

}  // namespace gpuconform
