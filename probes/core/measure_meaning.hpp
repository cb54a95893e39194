// What each recorded measurement means: which way is better, and whether a verdict (the diff's
// REGRESSED) judges it. Declared once here, by check id and name pattern, and used both by the
// runner (stamped into every report as `direction` and `role`) and by the diff (for old reports
// that lack the fields). A measurement with no declaration fails a unit test.
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

struct MeasureDecl {
    const char* check;    // fnmatch pattern over the check id
    const char* pattern;  // fnmatch pattern over the measurement name
    MeasureMeaning meaning;
};

const std::vector<MeasureDecl>& measure_declarations();
// The first declaration matching; nullopt: undeclared (a unit test keeps this from happening).
std::optional<MeasureMeaning> declared_meaning(std::string_view check_id, std::string_view name);

}  // namespace gpuconform
