// End to end: every report says where its time went (run.phases), and the framework layer's
// early start overlaps the device checks without changing a verdict.
#include <gtest/gtest.h>

#include <map>
#include <optional>

#include "cli_helpers.hpp"
#include "test_paths.hpp"

namespace gpuconform::test {
namespace {

namespace fs = std::filesystem;

struct Span {
    double start = 0;
    double end = 0;
};

// The first phase of that name, or nullopt.
std::optional<Span> phase(const nlohmann::json& report, const std::string& name) {
    for (const auto& p : report.at("run").value("phases", nlohmann::json::array())) {
        if (p.at("name") == name) {
            const double start = p.at("start_s").get<double>();
            return Span{start, start + p.at("duration_s").get<double>()};
        }
    }
    return std::nullopt;
}

bool python_has(const std::string& module) {
    return std::system(("/usr/bin/python3 -c 'import " + module + "' >/dev/null 2>&1").c_str()) == 0;
}

// id [backend:device] -> status, for comparing two runs' verdicts. A device check's status is
// compared only when asked: the simulated device is host threads, which a loaded 2-core test
// machine starves in either mode (that is why auto starts late there); the GPU bench compares
// every status (reports/bench/side_by_side.sh). The framework layer's run after go is compared.
std::map<std::string, std::string> verdicts(const nlohmann::json& report, bool device_checks_too) {
    std::map<std::string, std::string> out;
    for (const auto& r : report.at("results")) {
        std::string key = r.at("id").get<std::string>();
        if (r.contains("device") && r.at("device").is_number_integer()) {
            key += " [" + r.value("backend", "") + ":" + std::to_string(r.at("device").get<int>()) + "]";
        }
        const bool compared = device_checks_too || r.value("layer", "") != "async";
        out[key] = compared ? r.at("status").get<std::string>() : "(ran)";
    }
    return out;
}

TEST(RunPhases, EveryPhaseLiesWithinTheRunAndTheSchemaHoldsThem) {
    const auto dir = temp_dir("phases");
    const auto path = dir / "r.json";
    const auto out = run_cli("run --backend sim --layer host,runtime,async --quick --json " + path.string());
    ASSERT_TRUE(out.exit_code == 0 || out.exit_code == 1) << out.output;
    const auto report = read_json(path);
    EXPECT_EQ(report.at("schema_version"), "1.3");
    const double run_s = report.at("run").at("duration_s").get<double>();
    for (const char* name :
         {"host.environment", "host.checks", "worker.sim.start", "device.checks", "report.assemble"}) {
        const auto p = phase(report, name);
        ASSERT_TRUE(p) << name << " missing";
        EXPECT_GE(p->start, 0.0) << name;
        EXPECT_LE(p->end, run_s + 1e-3) << name << " ends after the run";
    }
    // In run order: the environment first, the workers within the device phase's run, the report last.
    EXPECT_LE(phase(report, "host.environment")->end, phase(report, "host.checks")->start + 1e-6);
    EXPECT_LE(phase(report, "device.checks")->end, phase(report, "report.assemble")->start + 1e-6);
    EXPECT_FALSE(phase(report, "framework.child")) << "no framework layer was asked for";
    const auto err = schema_error(path);
    if (err != "unavailable") {
        EXPECT_EQ(err, "") << err;
    }
}

TEST(RunPhases, TimingsFlagPrintsTheTableAndRenderShowsIt) {
    const auto dir = temp_dir("timings");
    const auto path = dir / "r.json";
    const auto out = run_cli("run --backend sim --layer host,runtime,async --quick --timings --json " + path.string());
    EXPECT_NE(out.output.find("phase"), std::string::npos) << out.output;
    EXPECT_NE(out.output.find("worker.sim.start"), std::string::npos) << out.output;
    EXPECT_NE(out.output.find("report.write"), std::string::npos) << out.output;
    EXPECT_NE(out.output.find("slowest checks"), std::string::npos) << out.output;
    const auto rendered = run_cli("render -f timings " + path.string());
    EXPECT_EQ(rendered.exit_code, 0) << rendered.output;
    EXPECT_NE(rendered.output.find("device.checks"), std::string::npos) << rendered.output;
    // A report from before schema 1.2 is still shown, with the reason it has no phases.
    const auto old = run_cli("render -f timings " + std::string(test_paths::source_dir) +
                             "/reports/samples/ubuntu24.04-h200-2026-12-01/quick.json");
    EXPECT_EQ(old.exit_code, 0) << old.output;
    EXPECT_NE(old.output.find("no run.phases"), std::string::npos) << old.output;
}

TEST(RunPhases, FrameworkStartsDuringTheDeviceChecksAndKeepsEveryVerdict) {
    if (!python_has("pytest")) {
        GTEST_SKIP() << "/usr/bin/python3 has no pytest (apt-get install python3-pytest)";
    }
    const auto dir = temp_dir("overlap");
    const std::string common =
        "run --backend sim --layer host,runtime,async,framework --quick --python /usr/bin/python3 ";
    const auto early_out = run_cli(common + "--framework-start early --json " + (dir / "early.json").string());
    const auto late_out = run_cli(common + "--framework-start late --json " + (dir / "late.json").string());
    const auto early = read_json(dir / "early.json");
    const auto late = read_json(dir / "late.json");

    const auto device = phase(early, "device.checks");
    const auto child = phase(early, "framework.child");
    const auto wait = phase(early, "framework.wait_for_go");
    const auto layer = phase(early, "framework.layer");
    ASSERT_TRUE(device && child && wait && layer) << early.at("run").dump();
    EXPECT_LT(child->start, device->start) << "pytest starts before the device checks";
    EXPECT_TRUE(phase(early, "framework.python_start")) << early.at("run").dump();
    // The plugin waits for go until the device checks have finished, and only then runs its tests.
    EXPECT_GE(wait->end, device->end - 1e-3);
    EXPECT_GE(layer->start, device->end - 1e-6);
    if (const auto tests = phase(early, "framework.tests")) {
        EXPECT_GE(tests->start, device->end - 1e-3);
    } else {
        ADD_FAILURE() << "no framework.tests phase";
    }
    // The sim's fault check runs last: gpuconform says "gpu" before it, and torch's GPU start-up
    // (here: finding no GPU) comes before the tests.
    const auto gpu_start = phase(early, "framework.gpu_start");
    ASSERT_TRUE(gpu_start) << early.at("run").dump();
    if (const auto tests = phase(early, "framework.tests")) {
        EXPECT_LE(gpu_start->end, tests->start + 1e-3);
    }
    if (python_has("torch")) {
        const auto import = phase(early, "framework.torch_import");
        ASSERT_TRUE(import);
        EXPECT_LT(import->start, device->end) << "torch's import began while the device checks ran";
    }

    const auto late_device = phase(late, "device.checks");
    const auto late_child = phase(late, "framework.child");
    ASSERT_TRUE(late_device && late_child);
    EXPECT_GE(late_child->start, late_device->end - 1e-6) << "--framework-start late starts pytest after them";
    // Started late, it hears "gpu" with go, and starts the GPU before its tests all the same.
    const auto late_gpu_start = phase(late, "framework.gpu_start");
    const auto late_tests = phase(late, "framework.tests");
    ASSERT_TRUE(late_gpu_start && late_tests) << late.at("run").dump();
    EXPECT_LE(late_gpu_start->end, late_tests->start + 1e-3);

    EXPECT_EQ(verdicts(early, false), verdicts(late, false));
    EXPECT_EQ(early.at("environment").at("torch"), late.at("environment").at("torch"));
}

// NVML's state does not survive fork(): a worker forked after this process opened NVML (the
// health readers do) cannot open it again, and the acceptance layer reads clocks and link
// counters in the worker (seen on an H200, driver 580). So every worker starts before the
// health layer's first reading, and the reading after the device checks still comes after them.
TEST(RunPhases, WorkersAreForkedBeforeTheHealthLayerOpensNvml) {
    const auto dir = temp_dir("fork-order");
    const auto path = dir / "r.json";
    const auto out = run_cli("run --backend sim --layer host,health,async --quick --json " + path.string());
    ASSERT_TRUE(out.exit_code == 0 || out.exit_code == 1) << out.output;
    const auto report = read_json(path);
    const auto worker = phase(report, "worker.sim.start");
    const auto read = phase(report, "health.read");
    const auto reread = phase(report, "health.reread");
    const auto device = phase(report, "device.checks");
    ASSERT_TRUE(worker && read && reread && device) << report.at("run").at("phases").dump(1);
    EXPECT_LE(worker->end, read->start + 1e-6) << "the worker was forked after NVML was opened";
    EXPECT_LE(read->end, device->start + 1e-6) << "the health layer reads before any device check";
    EXPECT_GE(reread->start, device->end - 1e-6);
}

}  // namespace
}  // namespace gpuconform::test
