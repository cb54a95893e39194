#include "runner/selftest.hpp"

#include <fnmatch.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <deque>
#include <optional>
#include <stdexcept>
#include <thread>

#include <fmt/format.h>

#include "core/check.hpp"
#include "core/child_group.hpp"
#include "core/interrupt.hpp"
#include "runner/causes.hpp"
#include "runner/device_phase.hpp"
#include "runner/health_phase.hpp"
#include "host/environment_reader.hpp"

namespace gpuconform {

namespace {

// A scenario's `only` that runs just the checks its fault must trip (as their caught_by lists say).
const std::vector<std::string> k_what_it_trips{"@what-it-trips"};
// The acceptance layer's checks: its scenarios run them alone, in a budget a CI host keeps.
const std::vector<std::string> k_acceptance_layer{"acceptance.*"};
constexpr double k_acceptance_budget_s = 12;
// A health fault changes what the health reader sees, not the device: its scenario runs the health layer alone.
const std::vector<std::string> k_health_layer{"health.*"};

}  // namespace

namespace {
// Fills each scenario's must_trip from the checks' own caught_by lists (core/check.hpp).
std::vector<FaultScenario> with_trips_from_checks(std::vector<FaultScenario> table) {
    for (const auto& def : all_checks()) {
        for (const auto& entry : def.caught_by) {
            const auto at = entry.find('@');
            const std::string name = entry.substr(0, at);
            auto it = std::find_if(table.begin(), table.end(),
                                   [&](const FaultScenario& s) { return scenario_name(s) == name; });
            if (it == table.end()) {
                throw std::logic_error(def.id + ": caught_by names no selftest scenario: " + entry);
            }
            it->must_trip.insert(at == std::string::npos ? def.id : def.id + entry.substr(at));
        }
    }
    for (auto& s : table) {
        if (s.only == k_what_it_trips) {
            s.only.clear();
            for (const auto& trip : s.must_trip) {
                const std::string id = trip.substr(0, trip.find('@'));
                if (std::find(s.only.begin(), s.only.end(), id) == s.only.end()) {
                    s.only.push_back(id);
                }
            }
        }
    }
    return table;
}
}  // namespace

const std::vector<FaultScenario>& fault_scenarios() {
    // What each fault is and why it trips what it trips; which checks it must trip is said by the
    // checks (CheckDef::caught_by). Consequences that follow from the fault itself (a blocking
    // launch serializes everything queued behind it) are listed there, not tolerated silently.
    // The third field, when set, runs just those checks (a hang costs each check its time limit).
    static const std::vector<FaultScenario> scenarios = with_trips_from_checks({
        {"", {}, {}, "a conforming device trips nothing"},
        {"pinned_copy_blocks",
         {},
         {},
         "pinned copies that block the host: early-return checks fail, copies issued one after the other cannot "
         "overlap, and the cross-stream check cannot queue its consumer while the copy is held back (error)"},
        {"launch_blocks",
         {},
         {},
         "launches that block (like CUDA_LAUNCH_BLOCKING=1): the launch check fails; the gated copy, stream, event and "
         "overlap checks cannot queue work behind a kernel, so they end in error and point at it"},
        {"pageable_d2h_early", {}, {}, "documented-may: pageable D2H returning early is reported, never failed"},
        {"numa_misreported",
         {},
         k_what_it_trips,
         "a GPU that reports the wrong NUMA node as its own: copies from that node are the slow ones, the NUMA "
         "check warns"},
        {"default_stream_no_sync", {}, {}, "a legacy stream that waits for nothing"},
        {"events_ignored",
         {},
         {},
         "events that record host time and order nothing: ordering and timing fail, and every check timed or "
         "ordered by events fails or cannot judge"},
        {"one_copy_engine", {}, {}, "two engines reported, one working"},
        {"no_overlap",
         {},
         {},
         "one engine for everything: nothing overlaps, so independent streams wait for each other"},
        {"slow_link", {}, {}, "copies at an eighth of the rate"},
        {"hang", {}, k_what_it_trips, "a kernel that never ends: each check times out and the next still runs", 3.0},
        {"crash",
         {},
         k_what_it_trips,
         "a segfault in the runtime: each check is an error naming the signal, the next still runs",
         10.0},
        {"sticky_error",
         {},
         k_what_it_trips,
         "a sticky device error: each check is an error, the next runs in a fresh worker",
         10.0},
        {"link_at_80pct",
         {},
         {"async.copy.bandwidth", "async.copy.bidirectional"},
         "every copy at 80 % of its rate: above every absolute floor, with no sibling to compare, so no check "
         "fails; `gpuconform diff` against the node's own baseline reports it (native_tests/cli/diff_sim_test.cpp)"},
        {"releases_lost",
         {},
         {},
         "gates the host cannot release (a host word the device never sees): every check judges as on a "
         "conforming device, only more slowly; no verdict rests on a release"},
        {"link_dips",
         {},
         {"async.copy.bandwidth"},
         "pinned copies at an eighth of their rate until the first pageable copy, as a shared link dips for a "
         "moment: the bandwidth check measures again before it fails, passes, and says the link dipped"},
        {"link_shared",
         {},
         k_what_it_trips,
         "another tenant's traffic, which no GPU reading shows, takes the link whenever ours pauses: single timed "
         "copies read an eighth of the rate while a train in the same check reads above the floor, so the bandwidth "
         "check fails with the link's rate on record as moving (a disturbance): the run cannot judge, and blames "
         "nothing",
         0,
         1,
         -1,
         -1,
         WhenBusy::Wait,
         0,
         "",
         false,
         true},
        {"degraded_link",
         {},
         k_what_it_trips,
         "one GPU in eight at 60 % of its siblings' copy rate, above every absolute floor: the sibling rule names it "
         "and only it",
         0,
         8,
         3},
        {"errors_swallowed",
         {},
         {},
         "an invalid launch and a faulting kernel that no call ever reports: the error check fails"},
        {"pinned_limit",
         {},
         {},
         "pinned allocations above 64 MiB fail (a memlock cap): the capacity check fails and names the limit; the "
         "bandwidth and bidirectional checks, which pin 256 and 128 MiB, cannot measure and say why"},
        {"small_copies_corrupt",
         {},
         {},
         "4 KiB host-to-device copies deliver a wrong word: the small-copy check, the one that makes such copies, "
         "fails"},
        {"copies_corrupt",
         {},
         {},
         "host-device copies of 1 MiB or more deliver one wrong word: every check that verifies such a copy fails "
         "(wrong data after synchronize is a fail, never an error)"},
        {"events_ignored",
         {},
         k_what_it_trips,
         "two GPUs whose events order nothing: a copy waiting on the other GPU's event reads stale data",
         0,
         2,
         -1,
         -1,
         WhenBusy::Wait,
         0,
         "events_ignored+peer"},
        {"no_peer",
         {},
         {"async.peer.access_matrix", "async.peer.event_order"},
         "one GPU in four without peer access while its siblings have it",
         0,
         4,
         2},
        // The health layer (docs/gpu-health.md): one fault per finding.
        {"ecc_uncorrectable",
         {},
         k_health_layer,
         "2 uncorrectable ECC errors since the driver loaded: over the limit of 0"},
        {"row_remap_pending",
         {},
         k_health_layer,
         "a row remapping waits for the next GPU reset: work still runs, the reset is due (warn)"},
        {"row_remap_failure", {}, k_health_layer, "a row remapping failed: the GPU needs replacing"},
        {"thermal_slowdown", {}, k_health_layer, "HW thermal slowdown active at the slowdown temperature"},
        {"power_capped", {}, k_health_layer, "the power limit at 450 of the default 700 W (warn, naming both)"},
        {"gpu_missing",
         {},
         k_health_layer,
         "one GPU of two on the PCI bus that the driver does not see (fallen off the bus)",
         0,
         2,
         1},
        {"vbios_odd", {}, k_health_layer, "one GPU of three with another VBIOS than its siblings: named", 0, 3, 2},
        {"xid_79",
         {},
         k_health_layer,
         "an Xid 79 (GPU has fallen off the bus) in the kernel log since boot: the catalog says reboot the node"},
        {"pcie_replays_growing",
         {},
         k_health_layer,
         "the PCIe replay counter 100 higher after the device layer than before it, above DCGM's 80 per 15 "
         "minutes: the link fails under our own copies"},
        // The acceptance layer (opt-in, so only these scenarios run it): each load fault trips its part.
        {"",
         {},
         k_acceptance_layer,
         "the acceptance layer on a conforming device: HBM near its peak, every product right, every pattern held, "
         "every copied byte right, clocks at their maximum",
         0,
         1,
         -1,
         -1,
         WhenBusy::Wait,
         0,
         "acceptance"},
        {"slow_hbm", {}, k_acceptance_layer, "STREAM at 40 % of the memory interface's peak: below the floor"},
        {"gemm_wrong_element",
         {},
         k_acceptance_layer,
         "every 5th matrix multiply returns one wrong element without an error (silent data corruption): named by "
         "GPU, iteration and element"},
        {"bad_memory_cell",
         {},
         k_acceptance_layer,
         "one word whose bit 17 is stuck at 0: the memory test names its address and the pattern"},
        {"throttles_under_load",
         {},
         k_acceptance_layer,
         "thermal slowdown only under load (the health layer, read at idle, sees nothing): named with its reason"},
        {"copies_corrupt",
         {},
         k_acceptance_layer,
         "the copy soak verifies every byte: a DMA path that corrupts fails it",
         0,
         1,
         -1,
         -1,
         WhenBusy::Wait,
         0,
         "copies_corrupt_soak"},
        // A busy node: another process on the GPU the whole run, no time to wait for it.
        {"",
         {},
         {},
         "a healthy GPU shared with another process: no FAIL; timing checks end in error naming it",
         0,
         1,
         -1,
         0,
         WhenBusy::Wait,
         0,
         "cotenant"},
        // The same co-tenant in another PID namespace: the process list shows only our own worker,
        // so it is seen by utilisation alone, and still every disturbed result must name it.
        {"",
         {},
         {},
         "a healthy GPU shared with a process the list cannot show (another PID namespace): no FAIL; timing "
         "checks end in error naming the unlisted tenant",
         0,
         1,
         -1,
         0,
         WhenBusy::Wait,
         0,
         "cotenant_hidden",
         true},
        {"pinned_copy_blocks",
         {},
         {},
         "pinned copies that block, on a busy GPU: still FAIL (early return does not depend on timing); the "
         "cross-stream check still cannot judge",
         0,
         1,
         -1,
         0,
         WhenBusy::Wait,
         0,
         "cotenant+pinned_copy_blocks"},
        {"default_stream_no_sync",
         {},
         {},
         "a legacy stream that waits for nothing, on a busy GPU: still FAIL",
         0,
         1,
         -1,
         0,
         WhenBusy::Wait,
         0,
         "cotenant+default_stream_no_sync"},
        {"",
         {},
         {"async.copy.bandwidth"},
         "the co-tenant really takes the link: measured anyway (--when-busy measure), the bandwidth check FAILs",
         0,
         1,
         -1,
         0,
         WhenBusy::Measure,
         0,
         "cotenant+measure"},
        {"",
         {},
         {"async.device.occupancy", "async.copy.bandwidth", "async.overlap.kernel_kernel"},
         "a co-tenant that leaves after 2 s: the timing checks wait for it, then measure and pass",
         0,
         1,
         -1,
         2,
         WhenBusy::Wait,
         20,
         "cotenant_leaves"},
    });
    return scenarios;
}

bool is_sim_fault(const std::string& name) {
    const auto at = name.find('@');
    const std::string fault = name.substr(0, at);
    if (at != std::string::npos) {
        const std::string index = name.substr(at + 1);
        if (index.empty() || index.find_first_not_of("0123456789") != std::string::npos) {
            return false;
        }
    }
    for (const auto& s : fault_scenarios()) {
        if (!s.fault.empty() && s.fault == fault) {
            return true;
        }
    }
    return false;
}

std::string sim_module_options(int devices, const std::vector<std::string>& faults) {
    std::string all;
    std::string out = fmt::format("devices={}", devices);
    for (const auto& f : faults) {
        const auto at = f.find('@');
        if (at == std::string::npos) {
            all += (all.empty() ? "" : ",") + f;
        } else {
            out += fmt::format(";fault.{}={}", f.substr(at + 1), f.substr(0, at));
        }
    }
    return all.empty() ? out : out + ";fault=" + all;
}

std::string scenario_name(const FaultScenario& s) {
    return !s.label.empty() ? s.label : (s.fault.empty() ? "none" : s.fault);
}

namespace {
// With a co-tenant: every disturbed result names it, and the causes name it once.
void check_cotenant(const FaultScenario& scenario, ScenarioOutcome& out, const Environment& env) {
    // A listed co-tenant is named by its process; a hidden one by what was seen of it.
    const std::string name = scenario.cotenant_hidden ? "no process visible" : "sim-cotenant";
    bool any_disturbed = false;
    for (const auto& r : out.results) {
        if (!r.disturbance.is_null() && r.id != "async.device.occupancy") {  // that one reads before any wait
            any_disturbed = true;
            if (r.summary.find(name) == std::string::npos) {
                out.missed.insert(r.id + " (summary names no co-tenant)");
            }
        }
    }
    bool cause = false;
    for (const auto& c : group_causes(out.results, env)) {
        cause = cause || (c.kind == "busy_gpu" && c.title.find(name) != std::string::npos);
    }
    const bool stays = scenario.cotenant_s == 0;
    if (stays && !any_disturbed) {
        out.missed.insert("a result with the co-tenant's disturbance");
    }
    if (stays && !cause) {
        out.missed.insert("a busy_gpu cause naming the co-tenant");
    }
    if (!stays && any_disturbed) {
        out.unexpected.insert("a disturbed result after the co-tenant left");
    }
}
}  // namespace

ScenarioOutcome run_scenario(const FaultScenario& scenario) {
    ScenarioOutcome out;
    out.scenario = &scenario;
    const Environment env = collect_environment("/");
    const Profile profile = load_profile({});
    RunOptions options;
    options.quick = true;
    options.timeout_override_s = scenario.timeout_s;
    options.budget_s = k_acceptance_budget_s;
    RunRequest request;
    request.sim_cotenant_s = scenario.cotenant_s;
    request.sim_cotenant_hidden = scenario.cotenant_hidden;
    request.when_busy = scenario.when_busy;
    request.busy_wait_s = scenario.busy_wait_s;
    DevicePhase phase(env, profile, options, request, [&](CheckResult r) { out.results.push_back(std::move(r)); });
    std::vector<std::string> faults;
    if (!scenario.fault.empty()) {
        faults.push_back(scenario.fault_device >= 0 ? fmt::format("{}@{}", scenario.fault, scenario.fault_device)
                                                    : scenario.fault);
    }
    const std::string sim_options = sim_module_options(scenario.devices, faults);
    std::vector<const CheckDef*> checks;
    std::vector<const CheckDef*> health;
    for (const auto& c : all_checks()) {
        const bool listed = scenario.only.empty() ||
                            std::any_of(scenario.only.begin(), scenario.only.end(),
                                        [&](const auto& g) { return fnmatch(g.c_str(), c.id.c_str(), 0) == 0; });
        // The acceptance layer is opt-in here as in `run`: only a scenario that names its checks runs them.
        if ((c.layer == "async" || (c.layer == "acceptance" && !scenario.only.empty())) && listed) {
            checks.push_back(&c);
        }
        if (c.layer == "health" && listed) {
            health.push_back(&c);
        }
    }
    const auto readers = health_readers(env, {"sim"}, sim_options);
    const auto keep = [&](CheckResult r) { out.results.push_back(std::move(r)); };
    const auto before = run_health_checks(health, readers, env, profile, options, nullptr, keep);
    if (!checks.empty()) {
        phase.add_backend("sim", sim_options);
        phase.run_device_checks(checks);
    }
    run_health_growth_checks(health, readers, before, env, profile, options, nullptr, keep);
    const bool cotenant = scenario.cotenant_s >= 0;
    for (const auto& r : out.results) {
        // A warn counts where no co-tenant is: it is the verdict of a check whose finding is advice
        // (async.copy.numa_locality); with one, async.device.occupancy warns that it is there.
        const bool counts = r.status == Status::Fail || (r.status == Status::Warn && !cotenant) ||
                            (r.status == Status::Error && (!cotenant || r.disturbance.is_null()));
        if (counts) {
            out.tripped.insert(scenario.devices > 1 && r.device ? fmt::format("{}@{}", r.id, *r.device) : r.id);
        }
    }
    for (const auto& id : scenario.must_trip) {
        if (out.tripped.count(id) == 0) {
            out.missed.insert(id);
        }
    }
    if (scenario.not_the_install) {
        for (const auto& r : out.results) {
            if (r.status == Status::Fail && r.disturbance.is_null()) {
                out.missed.insert(r.id + " (a fail that blames the install, with no disturbance)");
            }
        }
    }
    for (const auto& id : out.tripped) {
        if (scenario.must_trip.count(id) == 0) {
            out.unexpected.insert(id);
        }
    }
    if (cotenant && scenario.when_busy != WhenBusy::Measure) {
        check_cotenant(scenario, out, env);
    }
    return out;
}

namespace {
std::string join(const std::set<std::string>& s) {
    std::string out;
    for (const auto& x : s) {
        out += (out.empty() ? "" : ", ") + x;
    }
    return out.empty() ? "—" : out;
}
}  // namespace

namespace {

// One scenario's lines, as the table prints them; true when it matched.
bool describe_scenario(const FaultScenario& s, std::string* text) {
    const auto start = std::chrono::steady_clock::now();
    const auto out = run_scenario(s);
    const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
    *text += fmt::format("{:<24} {:<6} {:>6.1f}  {}\n", scenario_name(s), out.ok() ? "ok" : "WRONG", took.count(),
                         join(out.tripped));
    if (!out.missed.empty()) {
        *text += fmt::format("{:<24} missed: {}\n", "", join(out.missed));
    }
    if (!out.unexpected.empty()) {
        *text += fmt::format("{:<24} unexpected: {}\n", "", join(out.unexpected));
        for (const auto& r : out.results) {
            if (out.unexpected.count(r.id) != 0) {
                *text += fmt::format("{:<24}   {} {}: {}\n", "", r.id, to_string(r.status), r.summary);
            }
        }
    }
    return out.ok();
}

// A scenario in a child process, its lines in an unlinked temporary file: scenarios then run
// side by side without sharing a simulated device, a fault or a crash.
struct ScenarioChild {
    const FaultScenario* scenario = nullptr;
    std::FILE* lines = nullptr;
    ChildGroup child;
};

ScenarioChild start_scenario(const FaultScenario& s) {
    ScenarioChild c;
    c.scenario = &s;
    c.lines = std::tmpfile();
    if (c.lines == nullptr) {
        throw std::runtime_error(fmt::format("selftest: no temporary file for a scenario: {}", std::strerror(errno)));
    }
    std::fflush(nullptr);
    const pid_t pid = fork();
    if (pid < 0) {
        std::fclose(c.lines);
        throw std::runtime_error(fmt::format("selftest: cannot start a scenario: {}", std::strerror(errno)));
    }
    if (pid == 0) {
        setpgid(0, 0);
        std::string text;
        bool ok = false;
        try {
            ok = describe_scenario(s, &text);
        } catch (const std::exception& e) {
            text += fmt::format("{:<24} WRONG  the scenario stopped: {}\n", scenario_name(s), e.what());
        }
        const bool written =
            std::fwrite(text.data(), 1, text.size(), c.lines) == text.size() && std::fflush(c.lines) == 0;
        _exit(ok && written ? 0 : 1);
    }
    c.child = ChildGroup(pid);
    return c;
}

// An ended scenario's lines (with a line of its own when its process did not end as it should).
struct ScenarioLines {
    bool ok = false;
    std::string text;
};

ScenarioLines finish_scenario(ScenarioChild& c) {
    const ExitStatus& status = c.child.status();
    std::string text;
    std::rewind(c.lines);
    char buf[4096];
    for (std::size_t n = 0; (n = std::fread(buf, 1, sizeof buf, c.lines)) > 0;) {
        text.append(buf, n);
    }
    std::fclose(c.lines);
    c.lines = nullptr;
    if (text.empty() || !(status.ended && status.exit_code <= 1)) {
        text += fmt::format("{:<24} WRONG  the scenario's process {}\n", scenario_name(*c.scenario), status.describe());
    }
    return {status.ended && status.exit_code == 0, std::move(text)};
}

// A stop: each scenario's process gets SIGTERM and ends its device workers (they lead process
// groups of their own, which a kill of the scenario's group would miss) as `run` does; what is
// still there after k_grace is killed with its group.
void stop_scenarios(std::deque<ScenarioChild>& running) {
    constexpr auto k_grace = std::chrono::seconds(3);
    for (auto& c : running) {
        if (c.child.running()) {
            c.child.signal_group(SIGTERM);
        }
    }
    const auto until = std::chrono::steady_clock::now() + k_grace;
    for (auto& c : running) {
        while (!c.child.poll() && std::chrono::steady_clock::now() < until) {
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
        if (c.lines != nullptr) {
            std::fclose(c.lines);
            c.lines = nullptr;
        }
    }
    running.clear();  // each ChildGroup still running kills its group
}

// Runs the scenarios side by side, `jobs` processes at a time, into `matched` (in `chosen`'s
// order); false on a stop, after ending every scenario's process. Those with the most simulated
// GPUs start first: their checks run once per GPU, so they are the long ones, and one started
// last would run alone at the end. The table is printed in its own order all the same, each
// scenario once it and every one above it ended.
bool run_side_by_side(const std::vector<const FaultScenario*>& chosen, int jobs, std::vector<bool>* matched) {
    std::vector<std::size_t> order(chosen.size());
    for (std::size_t i = 0; i < order.size(); ++i) {
        order[i] = i;
    }
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return chosen[a]->devices > chosen[b]->devices; });
    std::vector<std::optional<ScenarioLines>> ended(chosen.size());
    std::deque<ScenarioChild> running;
    std::deque<std::size_t> running_index;
    std::size_t next = 0;
    std::size_t printed = 0;
    while (printed < chosen.size()) {
        while (next < order.size() && running.size() < static_cast<std::size_t>(jobs)) {
            running.push_back(start_scenario(*chosen[order[next]]));
            running_index.push_back(order[next++]);
        }
        bool any = false;
        for (std::size_t k = 0; k < running.size();) {
            if (running[k].child.poll()) {
                ended[running_index[k]] = finish_scenario(running[k]);
                running.erase(running.begin() + static_cast<std::ptrdiff_t>(k));
                running_index.erase(running_index.begin() + static_cast<std::ptrdiff_t>(k));
                any = true;
            } else {
                ++k;
            }
        }
        for (; printed < chosen.size() && ended[printed]; ++printed) {
            fmt::print("{}", ended[printed]->text);
            std::fflush(stdout);
        }
        if (g_interrupted) {
            stop_scenarios(running);
            return false;
        }
        if (!any) {
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
    }
    matched->clear();
    for (const auto& e : ended) {
        matched->push_back(e->ok);
    }
    return true;
}

}  // namespace

int default_selftest_jobs(unsigned cpus) { return cpus <= 1 ? 1 : static_cast<int>(std::clamp(cpus * 3 / 2, 2U, 8U)); }

int run_selftest(const SelftestRequest& request) {
    if (request.list_faults) {
        for (const auto& s : fault_scenarios()) {
            if (!s.fault.empty() || !s.label.empty()) {
                fmt::print("{:<24} {}\n{:<24} must trip: {}\n", scenario_name(s), s.why, "", join(s.must_trip));
            }
        }
        return 0;
    }
    // A name selects the scenario of that name (as --list-faults shows it) and every scenario of
    // that fault: `events_ignored` runs both the one-GPU and the two-GPU scenario.
    const auto selected = [&](const FaultScenario& s) {
        return std::any_of(request.faults.begin(), request.faults.end(), [&](const std::string& f) {
            return f == scenario_name(s) || (!s.fault.empty() && f == s.fault);
        });
    };
    for (const auto& f : request.faults) {
        const bool known = std::any_of(fault_scenarios().begin(), fault_scenarios().end(), [&](const FaultScenario& s) {
            return f == scenario_name(s) || (!s.fault.empty() && f == s.fault);
        });
        if (!known) {
            fmt::print(stderr, "gpuconform selftest: unknown fault '{}' (see `gpuconform selftest --list-faults`)\n",
                       f);
            return 2;  // selecting nothing must not read as every fault caught
        }
    }
    std::vector<const FaultScenario*> chosen;
    for (const auto& s : fault_scenarios()) {
        if (request.faults.empty() || selected(s)) {
            chosen.push_back(&s);
        }
    }
    const int jobs = request.jobs > 0 ? request.jobs : default_selftest_jobs(std::thread::hardware_concurrency());
    fmt::print("{:<24} {:<6} {:>6}  {}\n", "fault", "result", "s", "checks tripped (fail/error/warn)");
    std::vector<bool> matched;
    if (jobs == 1) {
        for (const auto* s : chosen) {
            std::string text;
            matched.push_back(describe_scenario(*s, &text));
            fmt::print("{}", text);
            std::fflush(stdout);
        }
    } else {
        install_stop_handlers();
        if (!run_side_by_side(chosen, jobs, &matched)) {
            fmt::print(stderr, "gpuconform selftest: stopped; the scenarios still running were ended\n");
            return 130;
        }
    }
    // Side by side, a scenario shares the host its simulated clock runs on: a stall there can move
    // a timing, a fault's mismatch repeats. So a mismatch runs once more, alone, and both are shown.
    int bad = 0;
    int alone = 0;
    for (std::size_t i = 0; i < chosen.size(); ++i) {
        if (matched[i] || jobs == 1) {
            bad += matched[i] ? 0 : 1;
            continue;
        }
        if (alone++ == 0) {
            fmt::print("run again alone (each did not match beside other scenarios):\n");
        }
        std::deque<ScenarioChild> one;
        one.push_back(start_scenario(*chosen[i]));
        while (!one.front().child.poll()) {
            if (g_interrupted) {
                stop_scenarios(one);
                fmt::print(stderr, "gpuconform selftest: stopped; the scenario still running was ended\n");
                return 130;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
        const auto lines = finish_scenario(one.front());
        fmt::print("{}", lines.text);
        std::fflush(stdout);
        bad += lines.ok ? 0 : 1;
    }
    if (bad != 0) {
        fmt::print("selftest: {} scenario(s) did not match\n", bad);
        return 1;
    }
    fmt::print("selftest: every fault was caught by exactly its checks{}\n",
               alone == 0 ? "" : fmt::format(" ({} only when run again alone)", alone));
    return 0;
}

}  // namespace gpuconform
