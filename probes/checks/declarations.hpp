// Every check's declarations, gathered from the checks themselves: the native checks of the
// registry (all_checks) and the framework layer's rows (framework/framework_checks.hpp). These
// are views; a check's keys and measurement meanings are written once, in its own file.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/check.hpp"
#include "core/measure_meaning.hpp"
#include "core/profile_keys.hpp"

namespace gpuconform {

// The native checks and the framework rows, in that order.
const std::vector<CheckDef>& declared_checks();

// What a profile may name (Profile::parse): every declared id and key.
const ProfileCatalogue& profile_catalogue();
const std::vector<ProfileKey>& declared_profile_keys();
const ProfileKey* find_profile_key(const std::string& check, const std::string& key);
std::vector<std::string> profile_keys_of(const std::string& check);

// The first of the check's measurement declarations whose pattern matches `name`; nullopt:
// undeclared (a unit test keeps that from happening for every committed report).
std::optional<MeasureMeaning> declared_meaning(std::string_view check_id, std::string_view name);

}  // namespace gpuconform
