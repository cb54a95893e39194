// JUnit XML view of one run report, for CI systems that show test results (GitLab, Jenkins).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace gpuconform {

// One <testsuite> per layer, one <testcase> per result. fail and error become <failure>
// (type says which), skip becomes <skipped>; the summary of every other status goes to
// <system-out>. Throws nlohmann::json::exception when `report` has no results array.
std::string render_junit(const nlohmann::json& report);

}  // namespace gpuconform
