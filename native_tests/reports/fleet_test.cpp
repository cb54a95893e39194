// A node's verdict, its one-line reason and the root causes across a fleet (fleet.hpp).
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "reports/fleet.hpp"
#include "reports/render_matrix.hpp"
#include "report_builder.hpp"

namespace gpuconform {
namespace {

// Reports whose results carry their own summaries (and a disturbance where asked for).
struct Spec {
    std::string id;
    std::string status;
    std::string summary;
    bool disturbed = false;
    std::string remediation = "";
};

nlohmann::json report(const std::string& run, const std::string& host, const std::vector<Spec>& specs,
                      const std::string& gpu = "G") {
    std::vector<test::ResultSpec> plain;
    for (const Spec& s : specs) {
        plain.push_back({s.id, s.status, 0});
    }
    nlohmann::json doc = test::make_report(run, host, "D", gpu, plain);
    for (std::size_t i = 0; i < specs.size(); ++i) {
        doc["results"][i]["summary"] = specs[i].summary;
        if (specs[i].disturbed) {
            doc["results"][i]["disturbance"] = {{"summary", "python3 used 97% of GPU 0"}};
        }
        if (!specs[i].remediation.empty()) {
            doc["results"][i]["remediation"] = specs[i].remediation;
        }
    }
    return doc;
}

Fleet fleet_of(const std::vector<nlohmann::json>& docs) {
    test::ScratchDir dir("fleet-" + std::to_string(docs.size()) + docs.front()["run"]["id"].get<std::string>());
    for (std::size_t i = 0; i < docs.size(); ++i) {
        dir.write(fmt::format("{:03d}.json", i), docs[i].dump());
    }
    ReadOptions o;
    o.problems = true;
    return build_fleet(read_reports({dir.path()}, o));
}

std::vector<Spec> skips(std::size_t n) {
    std::vector<Spec> out;
    for (std::size_t i = 0; i < n; ++i) {
        out.push_back({fmt::format("async.skipped{:02d}", i), "skip", "the host has 1 NUMA node"});
    }
    return out;
}

TEST(FleetReason, SkipsAreNotCountedAsWarn) {
    std::vector<Spec> specs = skips(23);
    specs.push_back({"framework.torch.non_blocking_h2d", "fail", "framework.torch.non_blocking_h2d: fail"});
    specs.push_back({"async.pass", "pass", "fine"});
    const Fleet f = fleet_of({report("r1", "mi250x-1", specs)});
    // The summary only restated the id and status: the reason says them once, and no "+23 more warn".
    EXPECT_EQ(f.nodes[0].reason, "framework.torch.non_blocking_h2d [cuda:0] fail");
    EXPECT_EQ(f.nodes[0].verdict, Verdict::Fail);
}

TEST(FleetReason, CountsEachKindOnceWithTheFirstResultsOwnSummary) {
    std::vector<Spec> specs = skips(3);
    specs.push_back({"host.memlock", "warn", "memlock soft limit 64 KiB"});
    specs.push_back({"runtime.load", "error", "worker timed out after 60 s"});
    specs.push_back({"async.copy.bandwidth", "fail", "device 1 at 31% of device 0"});
    specs.push_back({"async.copy.bidirectional", "fail", "async.copy.bidirectional: 1.1x, below 1.3x"});
    specs.push_back({"host.groups", "warn", "not in render"});
    const Fleet f = fleet_of({report("r1", "n1", specs)});
    // The undisturbed fail decided the verdict, so it leads; its summary is told once.
    EXPECT_EQ(f.nodes[0].reason,
              "async.copy.bandwidth [cuda:0] fail: device 1 at 31% of device 0 (+2 more "
              "fail/error, +2 warn)");
}

TEST(FleetReason, WarnsOnlyAndSkipsOnly) {
    std::vector<Spec> warned = skips(5);
    warned.push_back({"host.memlock", "warn", "memlock soft limit 64 KiB"});
    warned.push_back({"host.groups", "warn", "not in render"});
    warned.push_back({"host.ok", "pass", "fine"});
    const Fleet f = fleet_of({report("r1", "w", warned), report("r2", "s", skips(4)),
                              report("r3", "p", {{"host.ok", "pass", "fine"}, {"host.skip", "skip", "n/a"}})});
    EXPECT_EQ(f.nodes[0].reason, "host.memlock [cuda:0] warn: memlock soft limit 64 KiB (+1 more warn)");
    EXPECT_EQ(f.nodes[0].verdict, Verdict::Pass);
    EXPECT_EQ(f.nodes[1].reason, "no check was judged (all skipped)");
    EXPECT_EQ(f.nodes[1].verdict, Verdict::Inconclusive);
    EXPECT_EQ(f.nodes[2].reason, "the one judged result is pass or info (1 skipped)");
    EXPECT_EQ(f.nodes[2].verdict, Verdict::Pass);
}

TEST(FleetVerdict, TheOneRuleOfRunVerdict) {
    nlohmann::json interrupted = report("r5", "stopped", {{"host.ok", "pass", "fine"}});
    interrupted["run"]["interrupted"] = true;
    const Fleet f = fleet_of({
        report("r1", "failed", {{"a.x", "fail", "wrong data"}, {"a.y", "error", "timed out"}}),
        report("r2", "errored", {{"a.y", "error", "timed out"}, {"a.z", "pass", "fine"}}),
        report("r3", "busy", {{"a.x", "fail", "slow", true}, {"a.z", "pass", "fine"}}),
        report("r4", "warned", {{"a.w", "warn", "odd"}}),
        interrupted,
    });
    ASSERT_EQ(f.nodes.size(), 5u);
    EXPECT_EQ(f.nodes[0].verdict, Verdict::Fail);
    EXPECT_EQ(f.nodes[1].verdict, Verdict::Inconclusive);
    EXPECT_EQ(f.nodes[2].verdict, Verdict::Inconclusive);  // a failure measured on a busy GPU
    EXPECT_TRUE(f.nodes[2].disturbed);
    EXPECT_EQ(f.nodes[2].reason, "a.x [cuda:0] fail: slow (disturbed: python3 used 97% of GPU 0)");
    EXPECT_EQ(f.nodes[3].verdict, Verdict::Pass);
    EXPECT_EQ(f.nodes[4].verdict, Verdict::Inconclusive);
    EXPECT_EQ(f.nodes[4].reason, "the run was interrupted");
    EXPECT_EQ(f.failed, 1u);
    EXPECT_EQ(f.inconclusive, 3u);
    EXPECT_EQ(f.passed(), 1u);
    EXPECT_EQ(f.disturbed, 1u);
}

TEST(FleetVerdict, ASkippedAcceptancePartIsNotAnAcceptedNode) {
    const Fleet f = fleet_of({
        report("r1", "partial",
               {{"acceptance.hbm.bandwidth", "pass", "triad 4000 GB/s"},
                {"acceptance.load.clocks", "skip", "no clock could be read under load"}}),
        report("r2", "whole",
               {{"acceptance.hbm.bandwidth", "pass", "triad 4000 GB/s"},
                {"health.nvlink", "skip", "this GPU has no NVLink"}}),
    });
    ASSERT_EQ(f.nodes.size(), 2u);
    EXPECT_EQ(f.nodes[0].verdict, Verdict::Inconclusive);
    EXPECT_EQ(f.nodes[0].reason, "1 acceptance part skipped: the node was not fully accepted");
    EXPECT_EQ(f.nodes[1].verdict, Verdict::Pass);
    EXPECT_EQ(f.passed(), 1u);
}

TEST(FleetVerdict, ARunWhoseInterruptedIsNotABooleanIsRejected) {
    nlohmann::json doc = report("r1", "h", {{"host.ok", "pass", "fine"}});
    doc["run"]["interrupted"] = "no";
    test::ScratchDir dir("fleet-interrupted");
    dir.write("a.json", doc.dump());
    const ReportSet set = read_reports({dir.path()}, {});
    ASSERT_EQ(set.rejected.size(), 1u);
    EXPECT_EQ(set.rejected[0].reason, "'run.interrupted' is a string, not a boolean");
}

TEST(FleetCauses, ACheckCauseIsTitledByItsStatusesWithTheRemediationAsFixAndItsTraits) {
    std::vector<nlohmann::json> docs;
    for (int i = 0; i < 6; ++i) {
        const bool mi = i < 3;
        docs.push_back(report(fmt::format("r{}", i), fmt::format("n{}", i),
                              {{"framework.torch.non_blocking_h2d", mi ? "fail" : "pass", "synchronized", false,
                                mi ? "install the torch build for ROCm 6.2" : ""}},
                              mi ? "AMD Instinct MI250X" : "NVIDIA H200"));
    }
    const Fleet f = fleet_of(docs);
    ASSERT_EQ(f.causes.size(), 1u);
    const FleetCause& c = f.causes[0];
    EXPECT_EQ(c.title, "framework.torch.non_blocking_h2d failed");
    EXPECT_EQ(c.fix, "install the torch build for ROCm 6.2");
    EXPECT_EQ(c.traits, "every AMD Instinct MI250X node (3 of 3); no other GPU model has it");
    EXPECT_EQ(c.runs, (std::vector<std::uint32_t>{0, 1, 2}));
    const std::string csv = render_acceptance_csv(f, {});
    EXPECT_NE(csv.find("n0,D · AMD Instinct MI250X,fail,fail,no,framework.torch.non_blocking_h2d failed — every AMD "
                       "Instinct MI250X node (3 of 3); no other GPU model has it,framework.torch.non_blocking_h2d "
                       "[cuda:0] fail: synchronized\r\n"),
              std::string::npos)
        << csv;
    EXPECT_NE(csv.find("n3,D · NVIDIA H200,pass,pass,no,,the one judged result is pass or info\r\n"), std::string::npos)
        << csv;
    const std::string text = render_acceptance_terminal(f, {}, false);
    EXPECT_EQ(text.rfind("Acceptance of 6 nodes: 3 fail, 0 inconclusive, 3 pass", 0), 0u) << text;
    EXPECT_NE(text.find("  3 nodes: framework.torch.non_blocking_h2d failed — fix: install the torch build for ROCm "
                        "6.2\n      every AMD Instinct MI250X node (3 of 3); no other GPU model has it\n"),
              std::string::npos)
        << text;
}

TEST(FleetCauses, GroupedByCheckWithoutReportCauses) {
    test::ScratchDir dir("fleet");
    dir.write("a.json", test::make_report("r1", "good", "D", "G", {{"host.x", "pass", -1, {}}}).dump());
    dir.write("b.json", test::make_report("r2", "warned", "D", "G", {{"host.x", "warn", -1, {}}}).dump());
    dir.write("c.json", test::make_report("r3", "bad", "D", "G", {{"host.x", "fail", -1, {}}}).dump());
    ReadOptions o;
    o.problems = true;
    const Fleet f = build_fleet(read_reports({dir.path()}, o));
    ASSERT_EQ(f.nodes.size(), 3u);
    EXPECT_EQ(f.nodes[0].verdict, Verdict::Pass);
    EXPECT_EQ(f.nodes[1].verdict, Verdict::Pass);
    EXPECT_EQ(f.nodes[2].verdict, Verdict::Fail);
    EXPECT_EQ(f.failed, 1u);
    EXPECT_EQ(f.inconclusive, 0u);
    ASSERT_EQ(f.causes.size(), 1u);
    EXPECT_EQ(f.causes[0].kind, "check");
    EXPECT_EQ(f.causes[0].runs, std::vector<std::uint32_t>{2});
    const std::string csv = render_acceptance_csv(f, {});
    EXPECT_NE(csv.find("bad,D · G,fail,fail,no,host.x failed — one node; 2 nodes with the same fingerprint do not have "
                       "it,host.x fail: was fail"),
              std::string::npos)
        << csv;
}

TEST(FleetCauses, ReportCausesExplainTheResultsTheyName) {
    test::ScratchDir dir("fleet-causes");
    nlohmann::json doc =
        test::make_report("r1", "busy", "D", "G", {{"async.y", "error", 0, {}}, {"host.x", "fail", -1, {}}});
    doc["causes"] = {{{"id", "busy_gpu"},
                      {"kind", "busy_gpu"},
                      {"title", "GPU busy"},
                      {"fix", "drain it"},
                      {"results", {"async.y[cuda:0]"}}}};
    dir.write("a.json", doc.dump());
    ReadOptions o;
    o.problems = true;
    const ReportSet set = read_reports({dir.path()}, o);
    const Fleet f = build_fleet(set);
    ASSERT_EQ(f.causes.size(), 2u);
    EXPECT_EQ(f.nodes[0].causes.size(), 2u);
    const Matrix m = build_matrix(set, k_default_group_keys);
    EXPECT_NE(render_matrix_csv(m).find(",GPU busy\r\n"), std::string::npos) << render_matrix_csv(m);
}

}  // namespace
}  // namespace gpuconform
