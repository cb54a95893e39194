// `gpuconform diff BASE NEW`: what changed between two runs, folders or groups of runs.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "matrix.hpp"
#include "tolerance.hpp"

namespace gpuconform {

// One side of a diff: its results aggregated per check and device, measurements as medians.
struct DiffSide {
    std::size_t runs = 0;
    std::map<std::string, Cell> statuses;                    // by result label "id [cuda:0]"
    std::map<std::pair<std::string, std::string>, std::pair<std::string, double>> medians;  // (label, name) -> (unit, median)
};

enum class Change { Worse, Better, Changed };

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
    double base = 0.0;
    double now = 0.0;
    double relative = 0.0;   // (now - base) / |base|
    double tolerance = 0.0;
    Change change = Change::Changed;
};

struct DiffResult {
    std::size_t base_runs = 0;
    std::size_t new_runs = 0;
    std::vector<StatusChange> statuses;
    std::vector<MeasurementChange> measurements;
    std::vector<Rejected> rejected;

    bool regressed() const;
};

// A run selection: `key=glob[,key=glob...]` over the group keys, e.g. `distro=Debian*12*,gpu=NVIDIA H200`.
using GroupFilter = std::vector<std::pair<GroupKey, std::string>>;
std::optional<GroupFilter> parse_group_filter(const std::string& text);  // nullopt: not a filter
bool filter_matches(const GroupFilter& f, const GroupValues& values);

DiffSide aggregate_side(const ReportSet& set, const GroupFilter& filter);
// Pure: compares two aggregated sides under a tolerance table.
DiffResult compare_sides(const DiffSide& base, const DiffSide& now, const ToleranceTable& tolerances);

std::string render_diff_terminal(const DiffResult& d, bool colour);
std::string render_diff_markdown(const DiffResult& d);
nlohmann::json diff_to_json(const DiffResult& d);

// Diff exit status: 1 regressed, 2 a side had no readable run, 3 partial input, 0 otherwise.
int diff_exit_code(const DiffResult& d);

void add_diff_command(CLI::App& app, int& exit_code);

}  // namespace gpuconform
