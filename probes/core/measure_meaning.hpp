// What each recorded measurement means: which way is better, and whether a verdict (the diff's
// REGRESSED) judges it. Each check declares its own (CheckDef::measurements, by name pattern);
// the registry's view (checks/declarations.hpp) serves the runner (stamped into every report as
// `direction` and `role`) and the diff (for old reports that lack the fields). A measurement with
// no declaration fails a unit test.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuconform {

enum class Direction { Higher, Lower, None };
enum class Role { Key, Diagnostic };

std::string to_string(Direction d);
std::string to_string(Role r);
std::optional<Direction> direction_from_string(std::string_view s);
std::optional<Role> role_from_string(std::string_view s);

struct MeasureMeaning {
    Direction direction = Direction::None;
    Role role = Role::Diagnostic;
    // Relative move that repeat runs of one unchanged node can show beyond the measurement's own
    // min..max range (reports/README.md "How diff tells a regression from noise").
    double noise_floor = 0.10;
};

// One declaration: the measurements of a check whose names match `pattern` (fnmatch). A check's
// list is read in order, the first match wins, so a specific pattern comes before a general one.
struct MeasureSpec {
    std::string pattern;
    MeasureMeaning meaning;
};

namespace measure {
// A key figure: diff judges it (REGRESSED beyond its noise floor in the worse direction).
MeasureSpec key(std::string pattern, Direction better, double noise_floor);
// A diagnostic: shown and compared, never a verdict.
MeasureSpec diagnostic(std::string pattern, Direction better, double noise_floor);
}  // namespace measure

}  // namespace gpuconform
