// What is normal for one key figure in one group of nodes (GPU model x driver branch x link x
// profile): learned by the results store from a fleet's history (probes/store/baselines.*), and
// frozen into a profile's `baselines` section (profile_baselines.*) for `store outliers --profile`.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

namespace gpuconform {

struct FigureBaseline {
    std::string check, name, unit, direction;       // the figure; direction "higher" or "lower"
    std::string gpu, driver_branch, link, profile;  // the group
    long long runs = 0;                             // distinct runs the values came from
    long long values = 0;                           // one per device and run
    double median = 0, spread = 0;                  // spread: MAD scaled to a normal sigma
    double p05 = 0, p25 = 0, p75 = 0, p95 = 0;
    std::string first_started, last_started;  // the runs it was learned from (UTC ISO 8601)
};

// A profile's `baselines` section: {min_runs: N, figures: [{check, name, unit, direction, gpu,
// driver_branch, link, profile, runs, values, median, spread, p05, p25, p75, p95, first_started,
// last_started}, ...]}.
struct FrozenBaselines {
    std::optional<long long> min_runs;  // a baseline of fewer runs judges nothing
    std::vector<FigureBaseline> figures;
};

// Reads the section; throws ProfileError naming "source:line: baselines....: problem".
FrozenBaselines parse_baselines_section(const YAML::Node& node, const std::string& source);

// The section as YAML text (a whole profile: schema_version and baselines), which
// parse_baselines_section reads back to the same values.
std::string baselines_profile_yaml(const FrozenBaselines& frozen, const std::string& comment);

// Later layers win: `over`'s min_runs when set, and its figure for the same figure and group.
void merge_baselines(FrozenBaselines& into, const FrozenBaselines& over);

}  // namespace gpuconform
