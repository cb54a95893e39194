// One rule for wrong data: whatever a check was measuring, data that is wrong after a synchronize
// is `fail` (thrown as WrongData from the measurement); a measurement that could not be made is `error`.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "checks/declarations.hpp"
#include "core/check.hpp"
#include "core/environment.hpp"
#include "core/profile.hpp"
#include "runner/worker_child.hpp"

namespace gpuconform {
namespace {

CheckResult run_throwing(const std::function<void()>& body) {
    CheckDef def;
    def.id = "async.test.thrower";
    def.layer = "async";
    def.scope = Scope::Host;  // no backend: the runner's mapping of what the check threw is all that runs
    def.run = [&](CheckContext&, CheckResult&) { body(); };
    const Environment env;
    const Profile profile = Profile::builtin(profile_catalogue());
    const RunOptions options;
    CheckContext ctx{env, profile, options};
    return run_check_in_process(def, ctx);
}

TEST(WrongDataRule, WrongDataAfterSynchronizeIsAFailWithARemedy) {
    const CheckResult r = run_throwing([] { throw WrongData("H2D copy of 256 MiB delivered 1 wrong words"); });
    EXPECT_EQ(r.status, Status::Fail);
    EXPECT_NE(r.summary.find("wrong data after synchronize: H2D copy of 256 MiB delivered 1 wrong words"),
              std::string::npos)
        << r.summary;
    EXPECT_FALSE(r.remediation.empty());
}

TEST(WrongDataRule, AMeasurementThatCouldNotBeMadeIsStillAnError) {
    const CheckResult r = run_throwing([] { throw std::runtime_error("could not line up the two copies"); });
    EXPECT_EQ(r.status, Status::Error);
}

}  // namespace
}  // namespace gpuconform
