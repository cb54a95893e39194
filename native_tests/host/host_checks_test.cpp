// The host table and its checks run end to end on the fake roots of native_tests/data/host.
#include <regex>
#include <set>

#include <gtest/gtest.h>
#include <unistd.h>

#include "checks/declarations.hpp"
#include "checks/layer_tables.hpp"
#include "host/host_checks.hpp"
#include "host_test_data.hpp"
#include "host/environment_reader.hpp"

namespace gpuconform {
namespace {

using test::host_data;

std::set<std::string> host_ids() {
    std::set<std::string> ids;
    for (const auto& c : host_checks()) {
        ids.insert(c.id);
    }
    return ids;
}

// The built-in profile also holds other layers' ids, which this test binary does not link: no id check.
Profile builtin_profile() { return Profile::builtin(profile_catalogue()); }

CheckResult run_check(const CheckDef& def, const Environment& env) {
    const auto profile = builtin_profile();
    const RunOptions options;
    CheckContext ctx{env, profile, options};
    CheckResult r;
    r.id = def.id;
    r.layer = def.layer;
    def.run(ctx, r);
    return r;
}

// The fake device nodes are plain files: opening them O_RDWR needs write permission here.
bool openable_here(const std::string& path) { return ::access(path.c_str(), R_OK | W_OK) == 0; }

TEST(HostTable, HasEveryCheckOnceWithStableIds) {
    const std::set<std::string> want{
        "host.distro", "host.kernel",       "host.glibc",     "host.cpu", "host.memory",        "host.memlock",
        "host.vm",     "host.device_nodes", "host.container", "host.env", "host.kernel_driver", "host.pcie.link"};
    const auto table = host_checks();
    EXPECT_EQ(table.size(), want.size());
    EXPECT_EQ(host_ids(), want);
    const std::regex id_pattern("^[a-z]+(\\.[a-z0-9_]+)+$");  // the report schema's
    for (const auto& c : table) {
        EXPECT_TRUE(std::regex_match(c.id, id_pattern)) << c.id;
        EXPECT_EQ(c.layer, "host") << c.id;
        EXPECT_EQ(c.scope, Scope::Host) << c.id;
        EXPECT_FALSE(c.description.empty()) << c.id;
        EXPECT_TRUE(static_cast<bool>(c.run)) << c.id;
    }
}

TEST(HostTable, BuiltinProfileHoldsTheHostExpectations) {
    const auto profile = builtin_profile();
    EXPECT_TRUE(profile.lookup("host.memlock", "min_soft_bytes", "", "").has_value());
    EXPECT_TRUE(profile.lookup("host.memlock", "amd_min_soft_bytes", "", "").has_value());
    EXPECT_TRUE(profile.lookup("host.pcie.link", "fail_on_speed_downshift_flag", "", "").has_value());
}

TEST(HostChecks, EveryCheckGivesAStatusAndASummaryOnEachFakeRoot) {
    for (const char* root : {"roots/degraded-nvidia", "roots/old-kernel-amd", "roots/no-gpu"}) {
        const auto env = collect_environment(host_data(root));
        for (const auto& def : host_checks()) {
            const auto r = run_check(def, env);
            EXPECT_NE(r.status, Status::Error) << root << " " << def.id;
            EXPECT_FALSE(r.summary.empty()) << root << " " << def.id;
            if (r.status == Status::Fail || r.status == Status::Warn) {
                EXPECT_FALSE(r.remediation.empty()) << root << " " << def.id << ": " << r.summary;
            }
        }
    }
}

TEST(HostChecks, DegradedLinkFailsWithMeasurementsPerGpu) {
    const auto env = collect_environment(host_data("roots/degraded-nvidia"));
    auto r = run_check(make_host_pcie_link(), env);
    EXPECT_EQ(r.status, Status::Fail) << r.summary;
    ASSERT_NE(r.find("0000:18:00.0 current_width"), nullptr);
    EXPECT_EQ(r.find("0000:18:00.0 current_width")->value, 8.0);
    ASSERT_NE(r.find("0000:9a:00.0 max_speed"), nullptr);
    EXPECT_EQ(r.find("0000:9a:00.0 max_speed")->unit, "GT/s");
    EXPECT_EQ(r.expectation["fail_on_speed_downshift_flag"], 0.0);
}

TEST(HostChecks, IdleSpeedDownshiftWarns) {
    const auto env = collect_environment(host_data("roots/old-kernel-amd"));
    const auto r = run_check(make_host_pcie_link(), env);
    EXPECT_EQ(r.status, Status::Warn) << r.summary;
}

TEST(HostChecks, NoGpuSkipsTheGpuChecks) {
    const auto env = collect_environment(host_data("roots/no-gpu"));
    EXPECT_EQ(run_check(make_host_pcie_link(), env).status, Status::Skip);
    EXPECT_EQ(run_check(make_host_kernel_driver(), env).status, Status::Skip);
    EXPECT_EQ(run_check(make_host_device_nodes(host_data("roots/no-gpu")), env).status, Status::Skip);
}

TEST(HostChecks, MissingUvmNodeAloneWarns) {
    const auto root = host_data("roots/degraded-nvidia");
    if (!openable_here(root + "/dev/nvidiactl")) {
        GTEST_SKIP() << "the sample tree is not writable by this user, so its fake nodes cannot be opened";
    }
    const auto env = collect_environment(root);
    const auto r = run_check(make_host_device_nodes(root), env);
    EXPECT_EQ(r.status, Status::Warn) << r.summary;
    EXPECT_NE(r.summary.find("/dev/nvidia-uvm"), std::string::npos) << r.summary;
}

TEST(HostChecks, AmdNodesOpenPass) {
    const auto root = host_data("roots/old-kernel-amd");
    if (!openable_here(root + "/dev/kfd")) {
        GTEST_SKIP() << "the sample tree is not writable by this user, so its fake nodes cannot be opened";
    }
    const auto env = collect_environment(root);
    const auto r = run_check(make_host_device_nodes(root), env);
    EXPECT_EQ(r.status, Status::Pass) << r.summary;
}

TEST(HostChecks, KernelDriverPassesWithTheModuleLoaded) {
    const auto env = collect_environment(host_data("roots/degraded-nvidia"));
    EXPECT_EQ(run_check(make_host_kernel_driver(), env).status, Status::Pass);
    auto stripped = env;
    stripped.kernel_drivers.clear();
    EXPECT_EQ(run_check(make_host_kernel_driver(), stripped).status, Status::Fail);
}

TEST(HostChecks, VmReadsOvercommitAndHugepages) {
    const auto root = host_data("roots/degraded-nvidia");
    auto r = run_check(make_host_vm(root), collect_environment(root));
    EXPECT_EQ(r.status, Status::Info);
    EXPECT_EQ(r.facts["transparent_hugepage"], "madvise");
    ASSERT_NE(r.find("overcommit_memory"), nullptr);
    EXPECT_EQ(r.find("overcommit_memory")->value, 0.0);
}

TEST(HostChecks, MemlockUsesTheProfileThresholds) {
    auto env = collect_environment(host_data("roots/old-kernel-amd"));
    env.memlock_soft = 8ull << 20;
    env.memlock_hard = 8ull << 20;
    env.cap_ipc_lock = false;
    auto r = run_check(make_host_memlock(), env);
    EXPECT_EQ(r.status, Status::Warn) << r.summary;
    EXPECT_TRUE(r.expectation.contains("amd_min_soft_bytes"));
    ASSERT_NE(r.find("memlock_soft"), nullptr);
    EXPECT_EQ(r.find("memlock_soft")->value, static_cast<double>(8ull << 20));
}

}  // namespace
}  // namespace gpuconform
