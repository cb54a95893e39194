// The timings view of one report (run.phases): ordering, overlap, folded worker starts, and
// hostile or missing fields.
#include <gtest/gtest.h>

#include "reports/render_phases.hpp"

namespace gpuconform {
namespace {

nlohmann::json phase(const std::string& name, double start, double duration) {
    return {{"name", name}, {"start_s", start}, {"duration_s", duration}};
}

nlohmann::json report_with(const nlohmann::json& phases) {
    return {
        {"run", {{"duration_s", 10.0}, {"phases", phases}}},
        {"results",
         {{{"id", "async.copy.bandwidth"}, {"layer", "async"}, {"backend", "cuda"}, {"device", 0}, {"duration_s", 2.5}},
          {{"id", "host.memlock"}, {"layer", "host"}, {"duration_s", 0.01}}}}};
}

TEST(PhasesView, OverlapCountsOnlyStartUpDuringTheDeviceChecks) {
    const nlohmann::json phases = {phase("device.checks", 1.0, 4.0), phase("framework.python_start", 0.5, 1.0),
                                   phase("framework.torch_import", 1.5, 2.0), phase("framework.gpu_start", 4.8, 0.3),
                                   phase("framework.tests", 5.1, 2.0)};
    // python_start overlaps 0.5 s (1.0..1.5), torch_import 2.0 s, gpu_start 0.2 s; the tests come after.
    EXPECT_NEAR(framework_overlap_s(phases), 2.7, 1e-9);
    EXPECT_EQ(framework_overlap_s(nlohmann::json::array({phase("framework.torch_import", 0, 1)})), 0.0);
    EXPECT_EQ(framework_overlap_s("not a list"), 0.0);
}

TEST(PhasesView, TableIsInStartOrderWithWorkerStartsSummed) {
    const nlohmann::json phases = {phase("device.checks", 1.0, 4.0), phase("host.environment", 0.0, 0.2),
                                   phase("worker.cuda.start", 0.9, 0.3), phase("worker.cuda.start", 3.0, 0.2),
                                   phase("framework.torch_import", 1.5, 2.0)};
    const std::string text = render_phases(report_with(phases));
    EXPECT_LT(text.find("host.environment"), text.find("worker.cuda.start")) << text;
    EXPECT_LT(text.find("worker.cuda.start"), text.find("device.checks")) << text;
    EXPECT_NE(text.find("(2 starts in all)"), std::string::npos) << text;
    EXPECT_NE(text.find("0.500"), std::string::npos) << "the summed worker starts: " << text;
    EXPECT_NE(text.find("ran 2.000 s alongside the device checks"), std::string::npos) << text;
    EXPECT_EQ(text.find("framework layer started"), std::string::npos) << "no framework.child phase: " << text;
    EXPECT_NE(text.find("async.copy.bandwidth [cuda:0]"), std::string::npos) << text;
    EXPECT_LT(text.find("async.copy.bandwidth"), text.find("host.memlock")) << "slowest first: " << text;
}

TEST(PhasesView, SaysWhetherTheFrameworkStartedBeforeTheDeviceChecks) {
    const auto early = render_phases(report_with({phase("framework.child", 0.01, 9), phase("device.checks", 0.1, 5)}));
    EXPECT_NE(early.find("framework layer started before the device checks"), std::string::npos) << early;
    const auto late = render_phases(report_with({phase("device.checks", 0.1, 5), phase("framework.child", 5.2, 4)}));
    EXPECT_NE(late.find("framework layer started after the device checks"), std::string::npos) << late;
}

TEST(PhasesView, OldOrHostileReportsAreShownNotThrown) {
    EXPECT_NE(
        render_phases({{"run", {{"duration_s", 1.0}}}, {"results", nlohmann::json::array()}}).find("no run.phases"),
        std::string::npos);
    EXPECT_NE(render_phases(nlohmann::json("text")).find("no run.phases"), std::string::npos);
    const nlohmann::json bad = {
        phase("ok", 0, 1), {{"name", 3}, {"start_s", "x"}}, "junk", phase("\x1b[31mred", 0.5, 0.1)};
    const std::string text = render_phases(report_with(bad));
    EXPECT_NE(text.find("ok"), std::string::npos);
    EXPECT_EQ(text.find('\x1b'), std::string::npos) << "terminal escapes are neutralised";
}

}  // namespace
}  // namespace gpuconform
