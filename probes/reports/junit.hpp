// JUnit XML view of one run report, for CI systems that show test results (GitLab, Jenkins).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace gpuconform {

// One <testsuite> per layer, named gpuconform.<host>.<layer> (also each case's classname, so
// merged files of a fleet keep cases apart), one <testcase> per result. fail becomes <failure>,
// error <error>, skip <skipped>; the summary of every other status goes to <system-out>.
// Valid against the Jenkins xUnit plugin's junit-10.xsd as of its last change (jenkinsci/xunit-plugin
// ae25da5): suite and case `time` in seconds with 3 decimals (the schema's SUREFIRE_TIME allows no
// more); checked with xmllint --schema by reports/tests/check_junit_xsd.sh. Text XML forbids is
// dropped. Throws nlohmann::json::exception when `report` has no results array.
std::string render_junit(const nlohmann::json& report);

}  // namespace gpuconform
