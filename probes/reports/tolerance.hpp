// Operator overrides for `diff`: a small YAML file (reports/examples/tolerances.yaml) that
// widens or narrows a measurement's noise floor, or re-declares its direction or role. Without
// one, each measurement's declared meaning (its check's CheckDef::measurements) applies.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/measure_meaning.hpp"

namespace gpuconform {

struct ToleranceRule {
    std::string match;                   // fnmatch pattern over "check.id/measurement_name" or the bare name
    std::optional<double> floor;         // `tolerance`: relative noise floor, 0 <= floor < 1 (`0.15` or `15%`)
    std::optional<Direction> direction;  // `better`: higher, lower, none (or its old name, either)
    std::optional<Role> role;            // `role`: key, diagnostic
    int line = 0;                        // where the rule sits in its file, for messages
};

struct ToleranceTable {
    std::optional<double> default_floor;  // `default`: for measurements nothing declares
    std::vector<ToleranceRule> rules;     // first match wins

    const ToleranceRule* find(const std::string& check_id, const std::string& name) const;
};

// Throws std::runtime_error "FILE:LINE: why" for bad YAML, unknown keys, NaN, inf, negative
// tolerances, floors of 1 (100 %) or more, and unknown words.
ToleranceTable parse_tolerances(const std::string& text, const std::string& file);
ToleranceTable load_tolerances(const std::string& path);

}  // namespace gpuconform
