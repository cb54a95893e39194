// Causes: results that share a root cause are grouped once, with the fix; variables that can
// change a check's outcome are named in its result instead of the install being blamed.
#include <gtest/gtest.h>

#include "core/check.hpp"
#include "runner/causes.hpp"
#include "runtime/runtime_common.hpp"

namespace gpuconform {
namespace {

CheckResult result(const std::string& id, Status s, const std::string& summary,
                   std::optional<int> device = std::nullopt) {
    CheckResult r;
    r.id = id;
    r.layer = id.substr(0, id.find('.'));
    r.status = s;
    r.summary = summary;
    r.device = device;
    r.backend = device ? "cuda" : "";
    return r;
}

const Cause* find_kind(const std::vector<Cause>& causes, const std::string& kind) {
    for (const auto& c : causes) {
        if (c.kind == kind) {
            return &c;
        }
    }
    return nullptr;
}

PciGpu h200() {
    PciGpu g;
    g.bdf = "0000:18:00.0";
    g.vendor = "nvidia";
    return g;
}

TEST(Causes, HiddenGpusExplainEveryDeviceSkipOnce) {
    Environment env;
    env.pci_gpus = {h200()};
    env.gpu_env["CUDA_VISIBLE_DEVICES"] = "";
    std::vector<CheckResult> results;
    for (const char* id : {"async.copy.bandwidth", "async.launch.returns_early", "async.error.deferred"}) {
        results.push_back(result(id, Status::Skip, "no GPU device visible to any runtime (cuda: 0 devices)"));
    }
    results.push_back(result("host.distro", Status::Info, "Ubuntu 24.04"));
    const auto causes = group_causes(results, env);
    ASSERT_EQ(causes.size(), 1u);
    EXPECT_EQ(causes[0].kind, "hidden_gpus");
    EXPECT_EQ(causes[0].results.size(), 3u);
    EXPECT_NE(causes[0].fix.find("unset CUDA_VISIBLE_DEVICES"), std::string::npos);
}

TEST(Causes, NoGpuAndNoDriverAreToldApart) {
    const std::vector<CheckResult> results{
        result("async.copy.bandwidth", Status::Skip, "no GPU device visible to any runtime (cuda: not loadable)")};
    Environment bare;
    EXPECT_EQ(group_causes(results, bare).at(0).id, "no_gpu");
    Environment with_gpu;
    with_gpu.pci_gpus = {h200()};
    EXPECT_EQ(group_causes(results, with_gpu).at(0).id, "no_driver");
}

TEST(Causes, ABusyGpuIsOneCausePerDevice) {
    Environment env;
    std::vector<CheckResult> results;
    for (const char* id : {"async.copy.bandwidth", "async.overlap.copy_compute"}) {
        auto r = result(id, Status::Error, "pid 1186 python3 held 874 MiB during the measurement", 0);
        r.disturbance = {{"summary", "pid 1186 python3 held 874 MiB and 98% utilisation"},
                         {"others", nlohmann::json::array()}};
        results.push_back(r);
    }
    results.push_back(result("async.copy.pinned_returns_early", Status::Pass, "returned early", 0));
    const auto causes = group_causes(results, env);
    ASSERT_EQ(causes.size(), 1u);
    EXPECT_EQ(causes[0].kind, "busy_gpu");
    EXPECT_NE(causes[0].title.find("pid 1186 python3"), std::string::npos) << causes[0].title;
    EXPECT_EQ(causes[0].results,
              (std::vector<std::string>{"async.copy.bandwidth[cuda:0]", "async.overlap.copy_compute[cuda:0]"}));
}

TEST(Causes, ADebuggingVariableIsNamedInTheResultAndTheCause) {
    Environment env;
    env.gpu_env["CUDA_ENABLE_COREDUMP_ON_EXCEPTION"] = "1";
    std::vector<CheckResult> results{result("async.error.deferred", Status::Fail, "an error was swallowed", 0),
                                     result("async.copy.bandwidth", Status::Fail, "47% of the link", 0),
                                     result("host.env", Status::Warn, "CUDA_ENABLE_COREDUMP_ON_EXCEPTION=1 ...")};
    attribute_environment(results, env);
    EXPECT_EQ(results[0].attribution, "host");
    EXPECT_NE(results[0].summary.find("CUDA_ENABLE_COREDUMP_ON_EXCEPTION=1"), std::string::npos) << results[0].summary;
    EXPECT_EQ(results[1].attribution, "") << "core dumps cannot change a bandwidth figure";
    const auto causes = group_causes(results, env);
    const Cause* c = find_kind(causes, "debugger");
    ASSERT_NE(c, nullptr);
    EXPECT_EQ(c->id, "env:CUDA_ENABLE_COREDUMP_ON_EXCEPTION");
    EXPECT_EQ(c->results, (std::vector<std::string>{"async.error.deferred[cuda:0]", "host.env"}));
}

// What changes timing reaches the checks whose CheckDef says their verdict rests on timing, and
// no others: no hand list of ids to fall out of step with the checks.
TEST(Causes, ATimingVariableNamesExactlyTheTimingSensitiveChecks) {
    Environment env;
    env.gpu_env["CUDA_PROFILE"] = "1";
    std::vector<CheckResult> results{result("async.copy.bandwidth", Status::Fail, "47% of the link", 0),
                                     result("acceptance.hbm.bandwidth", Status::Fail, "triad 40% of peak", 0),
                                     result("async.stream.legacy_default_sync", Status::Fail, "did not wait", 0),
                                     result("async.error.deferred", Status::Fail, "an error was swallowed", 0)};
    attribute_environment(results, env);
    EXPECT_EQ(results[0].attribution, "host");
    EXPECT_EQ(results[1].attribution, "host") << "the acceptance layer's figures are timing too";
    EXPECT_EQ(results[2].attribution, "") << "an ordering verdict does not rest on timing";
    EXPECT_EQ(results[3].attribution, "");
    results[3].timing_sensitive = true;  // what the device phase stamped wins over the declaration
    results[3].facts = nlohmann::json::object();
    attribute_environment(results, env);
    EXPECT_EQ(results[3].attribution, "host");
}

// The other categories likewise come from the checks' declarations: a variable that serializes
// work names the checks that rest on asynchrony, one that changes error reporting those that rest
// on it, an interposer every check that runs on a GPU (the acceptance layer's too), never a host check.
TEST(Causes, EachVariableCategoryNamesTheChecksThatDeclareIt) {
    const auto attributed = [](const char* variable, const char* check) {
        Environment env;
        env.gpu_env[variable] = "1";
        std::vector<CheckResult> results{result(check, Status::Fail, "wrong", 0)};
        attribute_environment(results, env);
        return results[0].attribution == "host";
    };
    for (const auto& def : all_checks()) {
        if (def.layer == "async") {
            EXPECT_EQ(attributed("CUDA_LAUNCH_BLOCKING", def.id.c_str()), def.rests_on_asynchrony) << def.id;
            EXPECT_EQ(attributed("CUDA_ENABLE_COREDUMP_ON_EXCEPTION", def.id.c_str()), def.rests_on_error_reporting)
                << def.id;
        }
    }
    EXPECT_TRUE(attributed("CUDA_LAUNCH_BLOCKING", "async.launch.returns_early"));
    EXPECT_TRUE(attributed("CUDA_LAUNCH_BLOCKING", "async.copy.bidirectional"));
    EXPECT_FALSE(attributed("CUDA_LAUNCH_BLOCKING", "async.copy.bandwidth")) << "a rate, not asynchrony";
    EXPECT_TRUE(attributed("CUDA_ENABLE_COREDUMP_ON_EXCEPTION", "async.error.deferred"));
    EXPECT_TRUE(attributed("LD_PRELOAD", "acceptance.memory.pattern_test"));
    EXPECT_TRUE(attributed("LD_PRELOAD", "runtime.cuda.devices"));
    EXPECT_FALSE(attributed("LD_PRELOAD", "host.memlock"));
}

TEST(Causes, PassingResultsExplainNothing) {
    Environment env;
    env.gpu_env["CUDA_LAUNCH_BLOCKING"] = "1";
    std::vector<CheckResult> results{result("async.launch.returns_early", Status::Pass, "returned early", 0)};
    attribute_environment(results, env);
    EXPECT_EQ(results[0].attribution, "");
    EXPECT_TRUE(group_causes(results, env).empty());
}

}  // namespace
}  // namespace gpuconform

// CUDA reads *_VISIBLE_DEVICES up to its first invalid entry: one that is invalid from the start
// (or an empty value) hides every device, which the runtime devices check must not blame on the install.
TEST(VisibilityValue, HidesAllOnlyWhenTheFirstEntryIsInvalid) {
    struct Case {
        std::string value;
        bool hides;
    };
    const std::vector<Case> cases = {
        {"", true},          {"-1", true},   {"NoDevFiles", true}, {"\xEF\xBF\xBD", true},
        {"0", false},        {"1,0", false}, {"0,x", false},       {"GPU-8f3c2a10", false},
        {"MIG-1a2b", false}, {"x,0", true},  {",0", true},
    };
    for (const auto& c : cases) {
        EXPECT_EQ(gpuconform::visibility_value_hides_all(c.value), c.hides) << "'" << c.value << "'";
    }
}
