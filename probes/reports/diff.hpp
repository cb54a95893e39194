// `gpuconform diff BASE NEW`: what changed between two runs, folders or groups of runs.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "reports/matrix.hpp"
#include "reports/store_query.hpp"
#include "reports/tolerance.hpp"

namespace gpuconform {

// One measurement of one result on one side, folded over the side's runs (or hosts).
struct Figure {
    std::string unit;
    std::vector<double> medians;  // one per run
    double lo = 0.0;              // lowest min, and highest max, over every run: the side's spread
    double hi = 0.0;
    int samples = 0;                     // total repetitions behind the medians
    std::optional<Direction> direction;  // as the report declared it
    std::optional<Role> role;
    bool unusable = false;  // a run's result errored or was disturbed

    double median() const;
};

// What one run chose to run (`run --layer`, `--only`, `--device`, `--quick`): a check outside it
// has no result in that run by choice, which is no regression.
struct RunSelection {
    std::vector<std::string> layers;  // empty: every layer
    std::vector<std::string> only;    // globs over check ids; empty: every check
    std::vector<int> devices;         // device indices; empty: every device
    bool quick = false;               // --quick leaves out checks we cannot name from a report
};

// From a report's `run.command_line` (argv) and `run.layers` (the layers it ran; preferred over
// --layer when given). nullopt when the command line is not a `run`: the selection is unknown.
std::optional<RunSelection> selection_from_command_line(const std::vector<std::string>& argv,
                                                        const std::vector<std::string>& layers);
// Whether the result `label` ("id" or "id [cuda:0]") lies inside `s`'s layers, globs and devices.
bool selects(const RunSelection& s, const std::string& label);
// "--only async.copy.* --quick", or "every check".
std::string describe(const RunSelection& s);
// The selection of the report at `path`; every check when it cannot be read.
RunSelection read_selection(const std::string& path);

// A GPU's PCIe link as trained: lanes and GT/s (0: not reported).
struct LinkState {
    double width = 0.0;
    double speed = 0.0;
};

struct DiffSide {
    std::size_t runs = 0;
    std::map<std::string, Cell> statuses;                           // by result label "id [cuda:0]"
    std::set<std::string> disturbed;                                // labels with a disturbed result
    std::map<std::pair<std::string, std::string>, Figure> figures;  // (label, name)
    std::set<std::string> gpus;                                     // another model: not the same node
    std::map<std::string, LinkState> links;                         // by PCI address, the side's narrowest
    std::map<std::string, std::set<std::string>> environment;       // distro, kernel, driver, runtime, torch
    std::map<std::string, std::set<std::string>> findings;          // label -> summaries of warn/fail/error results
    // Each run's report, and its selection: read only when some result is on one side only.
    std::vector<std::string> run_paths;
    std::vector<RunSelection> selections;  // one per run; empty: every run selected every check
};

// Worse/Better: beyond noise the bad/good way; Changed: beyond noise where neither way is better;
// CouldNotCompare: an error or another GPU user on either side.
enum class Change { Worse, Better, Changed, CouldNotCompare };

// `host` names the node a change belongs to when a side holds more than one host; "" otherwise.
struct StatusChange {
    std::string host;
    std::string label;
    std::optional<Status> base;  // worst status on each side; unset: no result there
    std::optional<Status> now;
    std::string base_counts;
    std::string now_counts;
    Change change = Change::Changed;
};

struct MeasurementChange {
    std::string host;
    std::string label;
    std::string name;
    std::string unit;
    double base = 0.0;  // medians
    double now = 0.0;
    double base_lo = 0.0, base_hi = 0.0, now_lo = 0.0, now_hi = 0.0;
    double relative = 0.0;  // (now - base) / |base|
    double floor = 0.0;     // noise floor used
    Direction direction = Direction::None;
    Role role = Role::Diagnostic;
    Change change = Change::Changed;
    std::string note;  // e.g. too few repetitions on a side
};

// A result that needs attention on both sides with the same status, but says something else now
// (an upgrade's toolchain warning whose cause moved, say): what changed, not a regression.
struct FindingChange {
    std::string host;
    std::string label;
    Status status;
    std::string base;
    std::string now;
};

// A result on one side only because the other side's runs did not select its check: not compared.
struct NotSelected {
    std::string host;
    std::string label;
    bool in_base = true;  // the side that has the result
    Status status = Status::Pass;
};

// A GPU's link that trained otherwise than before: a finding of its own, Worse when it went down.
struct LinkChange {
    std::string host;
    std::string address;  // PCI address
    LinkState base, now;
    Change change = Change::Changed;

    std::string text() const;  // "link x16 → x8", "link Gen5 → Gen4", "link Gen5 x16 → Gen4 x8"
};

// A health counter of one GPU that grew from BASE to NEW ("ECC uncorrectable +2 on cuda:3"):
// errors the GPU recorded between the runs, a regression whatever the statuses say.
struct CounterGrowth {
    std::string host;
    std::string gpu;      // "cuda:3"
    std::string counter;  // "ECC uncorrectable"
    double base = 0.0, now = 0.0;

    std::string text() const;  // "ECC uncorrectable +2 on cuda:3"
};

// Whether (check id, measurement) is a health counter diff judges by its growth (diff_counters.cpp).
bool is_health_counter(const std::string& id, const std::string& name);
// The health counters that grew between the sides, per GPU (results labelled "id [cuda:3]").
std::vector<CounterGrowth> grown_counters(const DiffSide& base, const DiffSide& now);

struct DiffResult {
    std::size_t base_runs = 0;
    std::size_t new_runs = 0;
    std::vector<StatusChange> statuses;
    std::vector<MeasurementChange> measurements;  // key and diagnostic; views hide diagnostics unless --all
    std::vector<LinkChange> links;
    std::vector<CounterGrowth> counters;  // health counters that grew: regressions
    // Not the same node (another GPU model; another host when two single hosts are compared):
    // "node2: GPU model: A → B". That host's changes are not judged; the other hosts' are.
    std::vector<std::string> different_nodes;
    std::vector<std::string> environment;  // the change under test: "driver: A → B", per host in a fleet
    // Hosts judged (same hostname on both sides, same GPU model), those of them that regressed,
    // hosts in BASE only (a regression unless NEW is a group filter) and in NEW only.
    std::size_t hosts_compared = 0;
    std::vector<std::string> regressed_hosts, vanished_hosts, new_hosts, different_hosts;
    bool vanished_regress = true;
    bool fleet = false;    // some side holds more than one host: changes are named by host
    bool grouped = false;  // no host on both sides: the sides were compared as groups
    std::vector<FindingChange> findings;
    std::vector<NotSelected> not_selected;
    std::string base_selection, new_selection;  // describe() of each side's selections, "; "-joined
    std::vector<Rejected> rejected;

    // A status that got worse, a key figure beyond noise the bad way, a link that went down or a
    // health counter that grew, on the same node; or a host that vanished.
    bool regressed() const;
    std::size_t key_regressions() const;
};

// A run selection: `key=glob[,key=glob...]` over the group keys, e.g. `distro=Debian*12*,gpu=NVIDIA H200`.
using GroupFilter = std::vector<std::pair<GroupKey, std::string>>;
std::optional<GroupFilter> parse_group_filter(const std::string& text);  // nullopt: not a filter
bool filter_matches(const GroupFilter& f, const GroupValues& values);

DiffSide aggregate_side(const ReportSet& set, const GroupFilter& filter);
// Whether some result is on one side only: then each run's selection is worth reading.
bool has_one_sided_results(const DiffSide& a, const DiffSide& b);
// The noise rule for one figure (reports/README.md "How diff tells a regression from noise").
MeasurementChange judge_figure(const std::string& label, const std::string& name, const Figure& base, const Figure& now,
                               const ToleranceTable& tolerances);
// Pure: compares two aggregated sides under a tolerance table, as one node (or one group).
DiffResult compare_sides(const DiffSide& base, const DiffSide& now, const ToleranceTable& tolerances);

// One side of a diff, whole and by host (environment.hostname).
struct FleetSide {
    DiffSide pooled;
    std::map<std::string, DiffSide> hosts;
    bool filtered = false;  // chosen by a group filter: a host missing from it may lie outside the filter
};
FleetSide aggregate_fleet(const ReportSet& set, const GroupFilter& filter);
// Reads each run's selection from its report where some result is on one side only.
void read_selections(FleetSide& base, FleetSide& now);
// Each host with itself, then the fleet: which hosts regressed, vanished, are new. Sides with no
// host in common are compared as groups; two single hosts of different names are not the same node.
DiffResult compare_fleets(const FleetSide& base, const FleetSide& now, const ToleranceTable& tolerances);

std::string render_diff_terminal(const DiffResult& d, bool colour, bool all = false);
std::string render_diff_markdown(const DiffResult& d, bool all = false);
nlohmann::json diff_to_json(const DiffResult& d);

// Diff exit status: 1 regressed, 2 bad input or a side had no readable run, 3 partial input,
// 4 no host could be compared (not the same node), 0 otherwise.
int diff_exit_code(const DiffResult& d);

// `store` reads the results store for `diff --store` (empty: built without it).
void add_diff_command(CLI::App& app, int& exit_code, bool run = true, const StoreReader& store = {});

}  // namespace gpuconform
