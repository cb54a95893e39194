// `gpuconform diff BASE NEW`: what changed between two runs, folders or groups of runs.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "matrix.hpp"
#include "tolerance.hpp"

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

struct DiffSide {
    std::size_t runs = 0;
    std::map<std::string, Cell> statuses;                           // by result label "id [cuda:0]"
    std::set<std::string> disturbed;                                // labels with a disturbed result
    std::map<std::pair<std::string, std::string>, Figure> figures;  // (label, name)
    std::set<std::string> gpus, driver_branches, link_widths;       // what makes a node comparable
    std::map<std::string, std::set<std::string>> environment;       // distro, kernel, driver, runtime, torch
    std::map<std::string, std::set<std::string>> findings;          // label -> summaries of warn/fail/error results
    // Each run's report, and its selection: read only when some result is on one side only.
    std::vector<std::string> run_paths;
    std::vector<RunSelection> selections;  // one per run; empty: every run selected every check
};

// Worse/Better: beyond noise the bad/good way; Changed: beyond noise where neither way is better;
// CouldNotCompare: an error or another GPU user on either side.
enum class Change { Worse, Better, Changed, CouldNotCompare };

struct StatusChange {
    std::string label;
    std::optional<Status> base;  // worst status on each side; unset: no result there
    std::optional<Status> now;
    std::string base_counts;
    std::string now_counts;
    Change change = Change::Changed;
};

struct MeasurementChange {
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
    std::string label;
    Status status;
    std::string base;
    std::string now;
};

// A result on one side only because the other side's runs did not select its check: not compared.
struct NotSelected {
    std::string label;
    bool in_base = true;  // the side that has the result
    Status status = Status::Pass;
};

struct DiffResult {
    std::size_t base_runs = 0;
    std::size_t new_runs = 0;
    std::vector<StatusChange> statuses;
    std::vector<MeasurementChange> measurements;  // key and diagnostic; views hide diagnostics unless --all
    std::vector<std::string> different_nodes;     // why the sides are not one kind of node
    std::vector<std::string> environment;         // "distro: A → B", for what differs between the sides
    std::vector<FindingChange> findings;
    std::vector<NotSelected> not_selected;
    std::string base_selection, new_selection;  // describe() of each side's selections, "; "-joined
    std::vector<Rejected> rejected;

    // Only a status that got worse or a key figure beyond noise the bad way, on comparable nodes.
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
// Pure: compares two aggregated sides under a tolerance table.
DiffResult compare_sides(const DiffSide& base, const DiffSide& now, const ToleranceTable& tolerances);

std::string render_diff_terminal(const DiffResult& d, bool colour, bool all = false);
std::string render_diff_markdown(const DiffResult& d, bool all = false);
nlohmann::json diff_to_json(const DiffResult& d);

// Diff exit status: 1 regressed, 2 bad input or a side had no readable run, 3 partial input,
// 4 the sides are different nodes (not compared as a regression), 0 otherwise.
int diff_exit_code(const DiffResult& d);

void add_diff_command(CLI::App& app, int& exit_code, bool run = true);

}  // namespace gpuconform
