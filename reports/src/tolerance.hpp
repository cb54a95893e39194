// How far a measurement may move between two roll-ups before `diff` calls it news.
// Data, not code: a small YAML file (reports/examples/tolerances.yaml) overrides the defaults.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace gpuconform {

enum class Better { Higher, Lower, Either };

struct ToleranceRule {
    std::string match;          // fnmatch pattern over "check.id/measurement_name" or the bare name
    double relative = 0.10;     // |new - base| / |base| beyond this is reported
    std::optional<Better> better;  // unset: from the unit
};

struct ToleranceTable {
    double default_relative = 0.10;
    std::vector<ToleranceRule> rules;  // first match wins

    // The tolerance and good direction for one measurement.
    std::pair<double, Better> resolve(const std::string& check_id, const std::string& name, const std::string& unit) const;
};

// GB/s, ops/s, ratio: higher is better; ms, s, us, ns: lower is better; anything else: either.
Better better_from_unit(const std::string& unit);

// Reads `default: 0.1` and `measurements: [{match, tolerance, better}]`; throws std::runtime_error.
ToleranceTable load_tolerances(const std::string& path);

}  // namespace gpuconform
