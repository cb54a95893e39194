// Every fail and error is a root cause the terminal and the report name with its fix, even when
// no environment cause explains it; causes of failures come before causes of skips.
#include <gtest/gtest.h>

#include "runner/causes.hpp"

namespace gpuconform {
namespace {

CheckResult failed(const std::string& id, Status s, const std::string& summary, const std::string& fix,
                   std::optional<int> device = 0) {
    CheckResult r;
    r.id = id;
    r.layer = id.substr(0, id.find('.'));
    r.status = s;
    r.summary = summary;
    r.remediation = fix;
    r.device = device;
    r.backend = device ? "sim" : "";
    return r;
}

TEST(FailureCauses, AFailNoEnvironmentCauseExplainsIsACauseOfItsOwn) {
    Environment env;
    std::vector<CheckResult> results{
        failed("framework.torch.build", Status::Skip, "/usr/bin/python3 has no pytest, so the framework checks",
               "apt-get install python3-pytest", std::nullopt),
        failed("async.copy.pinned_returns_early", Status::Fail, "2 of 6 pinned copies blocked",
               "the driver serialises pinned copies: update the driver"),
        failed("async.copy.source_reuse", Status::Fail, "a reused source was copied late",
               "the driver serialises pinned copies: update the driver"),
        failed("async.event.timing_accuracy", Status::Error, "timed out", "raise --check-timeout"),
    };
    const auto causes = group_causes(results, env);
    ASSERT_EQ(causes.size(), 3u);
    // Failures first, and the two results with one fix are one cause.
    EXPECT_EQ(causes[0].kind, "check");
    EXPECT_EQ(causes[0].fix, "the driver serialises pinned copies: update the driver");
    EXPECT_EQ(causes[0].results,
              (std::vector<std::string>{"async.copy.pinned_returns_early[sim:0]", "async.copy.source_reuse[sim:0]"}));
    EXPECT_NE(causes[0].title.find("2 of 6 pinned copies blocked"), std::string::npos);
    EXPECT_EQ(causes[1].results, std::vector<std::string>{"async.event.timing_accuracy[sim:0]"});
    EXPECT_EQ(causes[2].kind, "missing_package");
}

TEST(FailureCauses, AFailAnEnvironmentCauseExplainsIsNotRepeated) {
    Environment env;
    env.gpu_env["CUDA_LAUNCH_BLOCKING"] = "1";
    auto r = failed("async.launch.returns_early", Status::Fail, "launches blocked", "update the driver");
    r.facts["environment"] = std::vector<std::string>{"CUDA_LAUNCH_BLOCKING"};
    const auto causes = group_causes({r}, env);
    ASSERT_EQ(causes.size(), 1u);
    EXPECT_EQ(causes[0].id, "env:CUDA_LAUNCH_BLOCKING");
}

TEST(FailureCauses, PassesAndInfosMakeNoCause) {
    Environment env;
    auto p = failed("async.copy.bandwidth", Status::Pass, "55 GB/s", "");
    auto i = failed("async.copy.pageable_behaviour", Status::Info, "returned early", "");
    EXPECT_TRUE(group_causes({p, i}, env).empty());
}

TEST(FailureCauses, HiddenGpusExplainTheTorchBuildToo) {
    Environment env;
    PciGpu g;
    g.bdf = "0000:18:00.0";
    g.vendor = "nvidia";
    env.pci_gpus = {g};
    env.gpu_env["CUDA_VISIBLE_DEVICES"] = "";
    std::vector<CheckResult> results{
        failed("async.copy.bandwidth", Status::Skip, "no GPU device visible to any runtime (cuda: 0 devices)", "",
               std::nullopt),
        failed("framework.torch.build", Status::Fail,
               "torch 2.11.0+cu130 cannot use the NVIDIA GPU: No CUDA GPUs are available", "check the driver is loaded",
               std::nullopt),
    };
    const auto causes = group_causes(results, env);
    ASSERT_EQ(causes.size(), 1u);
    EXPECT_EQ(causes[0].kind, "hidden_gpus");
    EXPECT_EQ(causes[0].results, (std::vector<std::string>{"async.copy.bandwidth", "framework.torch.build"}));
    attribute_to_causes(results, causes);
    EXPECT_EQ(results[1].attribution, "host");
    EXPECT_NE(results[1].remediation.find("unset CUDA_VISIBLE_DEVICES"), std::string::npos);
    EXPECT_NE(results[1].summary.find("hides every GPU"), std::string::npos);
    EXPECT_EQ(results[1].status, Status::Skip) << "as the native device checks: not run, for that reason";
}

TEST(FailureCauses, UnderASanitizerAFailIsTheToolsNotTheInstalls) {
    Environment env;
    env.instrumentation = {{"compute-sanitizer", "maps /usr/local/cuda-13.0/compute-sanitizer/libsanitizer-public.so",
                            "serialises and instruments GPU work"}};
    std::vector<CheckResult> results{
        failed("async.stream.nonblocking_independent", Status::Fail, "non-blocking streams are not independent here",
               "check CUDA_LAUNCH_BLOCKING"),
        failed("async.overlap.copy_compute", Status::Fail, "overlapped only 11%", "check the host buffer"),
        failed("host.memlock", Status::Fail, "RLIMIT_MEMLOCK is 64 KiB", "raise it", std::nullopt),
    };
    attribute_environment(results, env);
    EXPECT_FALSE(results[0].disturbance.is_null());
    EXPECT_EQ(results[0].attribution, "host");
    EXPECT_TRUE(results[2].disturbance.is_null()) << "a tool does not change a host limit";
    const auto causes = group_causes(results, env);
    ASSERT_EQ(causes.size(), 2u);
    EXPECT_EQ(causes[0].kind, "check");  // the memlock failure is still the install's
    EXPECT_EQ(causes[1].id, "tool:compute-sanitizer");
    EXPECT_EQ(causes[1].kind, "debugger");
    EXPECT_EQ(causes[1].results.size(), 2u);
}

}  // namespace
}  // namespace gpuconform
