// "Did you mean": the known name closest to a typo, for errors about settings files.
#pragma once

#include <string>
#include <vector>

namespace gpuconform {

// The edit distance between two short names.
std::size_t edit_distance(const std::string& a, const std::string& b);

// The candidate nearest to `name`, or "" when none is near enough to be a likely typo
// (within a third of the name's length, at least 2 edits).
std::string nearest_name(const std::string& name, const std::vector<std::string>& candidates);

// " (did you mean 'x'?)" for the nearest candidate, or "".
std::string did_you_mean(const std::string& name, const std::vector<std::string>& candidates);

}  // namespace gpuconform
