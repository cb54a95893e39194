// Host checks on a thread beside the device checks give the same results, in the same order, as
// run here; a compile probe's GPU run waits for the GPU turn a timing-sensitive check holds.
#include "runner/host_checks.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "core/gpu_turn.hpp"

namespace gpuconform {
namespace {

CheckDef host_check(const std::string& id, Status status) {
    CheckDef d;
    d.id = id;
    d.layer = "host";
    d.scope = Scope::Host;
    d.run = [status](CheckContext&, CheckResult& r) {
        r.status = status;
        r.summary = "ran";
    };
    return d;
}

std::vector<std::string> ids_from(bool on_thread, const std::vector<const CheckDef*>& checks, PhaseLog* phases) {
    Environment env;
    Profile profile;
    RunOptions options;
    HostChecks host(checks, env, profile, options);
    if (on_thread) {
        host.start();
    } else {
        host.run_here();
    }
    std::vector<std::string> ids;
    host.finish(phases, [&](CheckResult r) { ids.push_back(r.id + ":" + to_string(r.status)); });
    host.finish(phases, [&](CheckResult r) { ids.push_back("again:" + r.id); });  // once only
    return ids;
}

TEST(HostChecks, OnAThreadTheResultsAndTheirOrderAreThoseOfARunHere) {
    const CheckDef a = host_check("host.a", Status::Pass);
    const CheckDef b = host_check("host.b", Status::Fail);
    CheckDef device = host_check("async.c", Status::Pass);
    device.scope = Scope::Device;  // not a host check: left to the device phase
    const std::vector<const CheckDef*> checks{&a, &device, &b};
    PhaseLog here_phases, thread_phases;
    const auto here = ids_from(false, checks, &here_phases);
    const auto beside = ids_from(true, checks, &thread_phases);
    EXPECT_EQ(here, (std::vector<std::string>{"host.a:pass", "host.b:fail"}));
    EXPECT_EQ(beside, here);
    ASSERT_EQ(thread_phases.phases().size(), 1u);
    EXPECT_EQ(thread_phases.phases().front().name, "host.checks");
}

TEST(HostChecks, AGpuProbeWaitsWhileATimingSensitiveCheckHoldsTheTurn) {
    std::atomic<bool> probe_ran{false};
    CheckDef probe = host_check("host.toolchain.probe", Status::Pass);
    probe.run = [&](CheckContext&, CheckResult& r) {
        std::lock_guard<std::mutex> turn(gpu_timing_turn());
        probe_ran = true;
        r.status = Status::Pass;
    };
    Environment env;
    Profile profile;
    RunOptions options;
    HostChecks host({&probe}, env, profile, options);
    {
        std::lock_guard<std::mutex> measuring(gpu_timing_turn());
        host.start();
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        EXPECT_FALSE(probe_ran) << "the probe ran inside a measurement";
    }
    PhaseLog phases;
    host.finish(&phases, [](CheckResult) {});
    EXPECT_TRUE(probe_ran);
}

}  // namespace
}  // namespace gpuconform
