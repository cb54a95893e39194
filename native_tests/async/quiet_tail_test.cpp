// The device phase says once when nothing it runs measures any more: before the isolated checks
// (faults on purpose) of the last backend, after every other check's results. The framework layer
// starts torch's GPU runtime on that word, so it must never come while a measurement is left.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "checks/declarations.hpp"
#include "core/check.hpp"
#include "core/environment.hpp"
#include "core/profile.hpp"
#include "runner/device_phase.hpp"
#include "runner/selftest.hpp"

namespace gpuconform {
namespace {

const CheckDef& check_named(const std::string& id) {
    const auto& all = all_checks();
    const auto it = std::find_if(all.begin(), all.end(), [&](const CheckDef& c) { return c.id == id; });
    if (it == all.end()) {
        throw std::runtime_error("no check " + id);
    }
    return *it;
}

struct Said {
    int times = 0;
    std::vector<std::string> recorded_before;  // the results recorded when it was said
    std::vector<std::string> recorded_after;   // every result, at the end
};

Said run_sim(const std::vector<std::string>& ids) {
    const Environment env;
    const Profile profile = Profile::builtin(profile_catalogue());
    RunOptions options;
    options.quick = true;
    const RunRequest request;
    Said said;
    DevicePhase phase(env, profile, options, request,
                      [&](const CheckResult& r) { said.recorded_after.push_back(r.id); });
    phase.add_backend("sim", sim_module_options(2, {}));
    std::vector<const CheckDef*> checks;
    for (const auto& id : ids) {
        checks.push_back(&check_named(id));
    }
    phase.run_device_checks(checks, [&] {
        ++said.times;
        said.recorded_before = said.recorded_after;
    });
    return said;
}

long count_of(const std::vector<std::string>& ids, const std::string& id) {
    return std::count(ids.begin(), ids.end(), id);
}

TEST(QuietTail, SaidOnceAfterEveryMeasurementAndBeforeTheFaultChecks) {
    ASSERT_TRUE(check_named("async.error.deferred").isolated);
    ASSERT_TRUE(check_named("async.event.timing_accuracy").timing_sensitive.value_or(false));
    // Listed first, the isolated check still runs last, and the word still comes before it.
    const Said said =
        run_sim({"async.error.deferred", "async.event.timing_accuracy", "async.stream.legacy_default_sync"});
    EXPECT_EQ(said.times, 1);
    EXPECT_EQ(count_of(said.recorded_before, "async.event.timing_accuracy"), 2);  // both simulated GPUs
    EXPECT_EQ(count_of(said.recorded_before, "async.stream.legacy_default_sync"), 2);
    EXPECT_EQ(count_of(said.recorded_before, "async.error.deferred"), 0);
    EXPECT_EQ(count_of(said.recorded_after, "async.error.deferred"), 2);
}

TEST(QuietTail, NotSaidWhenNoFaultCheckIsLeftToRun) {
    // The framework layer's go follows the device phase at once then; nothing to say early.
    const Said said = run_sim({"async.event.timing_accuracy"});
    EXPECT_EQ(said.times, 0);
    EXPECT_EQ(count_of(said.recorded_after, "async.event.timing_accuracy"), 2);
}

}  // namespace
}  // namespace gpuconform
