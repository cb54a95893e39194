#include "core/measure_meaning.hpp"

#include <utility>

namespace gpuconform {

namespace measure {

MeasureSpec key(std::string pattern, Direction better, double noise_floor) {
    return {std::move(pattern), {better, Role::Key, noise_floor}};
}

MeasureSpec diagnostic(std::string pattern, Direction better, double noise_floor) {
    return {std::move(pattern), {better, Role::Diagnostic, noise_floor}};
}

}  // namespace measure

std::string to_string(Direction d) {
    return d == Direction::Higher ? "higher" : d == Direction::Lower ? "lower" : "none";
}

std::string to_string(Role r) { return r == Role::Key ? "key" : "diagnostic"; }

std::optional<Direction> direction_from_string(std::string_view s) {
    if (s == "higher") {
        return Direction::Higher;
    }
    if (s == "lower") {
        return Direction::Lower;
    }
    if (s == "none") {
        return Direction::None;
    }
    return std::nullopt;
}

std::optional<Role> role_from_string(std::string_view s) {
    if (s == "key") {
        return Role::Key;
    }
    if (s == "diagnostic") {
        return Role::Diagnostic;
    }
    return std::nullopt;
}

}  // namespace gpuconform
