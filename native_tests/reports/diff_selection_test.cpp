// `diff` of runs that selected different checks: what one side left out is not a regression.
#include <gtest/gtest.h>

#include "reports/diff.hpp"
#include "report_builder.hpp"
#include "reports/report_set.hpp"

namespace gpuconform {
namespace {

DiffSide side(std::vector<std::pair<std::string, Status>> statuses, std::vector<RunSelection> selections = {}) {
    DiffSide s;
    s.runs = 1;
    for (const auto& [label, st] : statuses) {
        ++s.statuses[label].counts[severity(st)];
    }
    s.selections = std::move(selections);
    return s;
}

RunSelection parsed(std::vector<std::string> argv, std::vector<std::string> layers = {}) {
    return selection_from_command_line(argv, layers).value();
}

TEST(DiffSelection, ReadsTheRunCommandLineAsCli11Does) {
    const RunSelection s =
        parsed({"/usr/bin/gpuconform", "run", "--quick", "--only", "async.copy.*", "host.cpu", "--json", "-",
                "--only=async.overlap.*,host.env", "--layer=async,host", "--device", "0,2", "--strict"});
    EXPECT_EQ(s.only, (std::vector<std::string>{"async.copy.*", "host.cpu", "async.overlap.*", "host.env"}));
    EXPECT_EQ(s.layers, (std::vector<std::string>{"async", "host"}));
    EXPECT_EQ(s.devices, (std::vector<int>{0, 2}));
    EXPECT_TRUE(s.quick);
    EXPECT_EQ(describe(s),
              "--layer async,host --only async.copy.*,host.cpu,async.overlap.*,host.env --device 0,2 "
              "--quick");
    // The report's run.layers (what ran) wins over the words; a plain run selects everything.
    EXPECT_EQ(parsed({"gpuconform", "run", "--layer", "host"}, {"host", "runtime"}).layers,
              (std::vector<std::string>{"host", "runtime"}));
    EXPECT_EQ(describe(parsed({"gpuconform", "run"}, {"host", "runtime", "async", "framework"})), "every check");
    EXPECT_FALSE(selection_from_command_line({"gpuconform", "selftest"}, {}));
    EXPECT_FALSE(selection_from_command_line({}, {}));
}

TEST(DiffSelection, SelectsByLayerGlobAndDevice) {
    const RunSelection s =
        parsed({"gpuconform", "run", "--layer", "async,host", "--only", "async.copy.*,host.*", "--device", "1"});
    EXPECT_TRUE(selects(s, "async.copy.bandwidth [cuda:1]"));
    EXPECT_FALSE(selects(s, "async.copy.bandwidth [cuda:0]"));  // another device
    EXPECT_FALSE(selects(s, "async.overlap.copy_compute [cuda:1]"));
    EXPECT_TRUE(selects(s, "host.cpu"));
    EXPECT_TRUE(selects(s, "async.copy.peer_matrix"));  // backend-wide: no device index
    EXPECT_FALSE(selects(parsed({"gpuconform", "run", "--layer", "host"}), "runtime.cuda.load"));
}

TEST(DiffSelection, ALeftOutCheckIsListedApartAndNeverARegression) {
    const RunSelection all;
    const RunSelection only = parsed({"gpuconform", "run", "--only", "async.copy.*"});
    const DiffSide full = side({{"async.copy.bandwidth [cuda:0]", Status::Pass},
                                {"async.overlap.copy_compute [cuda:0]", Status::Pass},
                                {"host.cpu", Status::Fail}},
                               {all});
    const DiffSide some = side({{"async.copy.bandwidth [cuda:0]", Status::Pass}}, {only});
    for (const bool full_first : {true, false}) {
        const DiffResult d = compare_sides(full_first ? full : some, full_first ? some : full, ToleranceTable{});
        EXPECT_FALSE(d.regressed());
        EXPECT_TRUE(d.statuses.empty());
        ASSERT_EQ(d.not_selected.size(), 2u);
        EXPECT_EQ(d.not_selected[0].label, "async.overlap.copy_compute [cuda:0]");
        EXPECT_EQ(d.not_selected[0].in_base, full_first);
        EXPECT_EQ(d.not_selected[1].status, Status::Fail);
        EXPECT_EQ(full_first ? d.new_selection : d.base_selection, "--only async.copy.*");
        EXPECT_EQ(diff_exit_code(d), 0);
        const std::string text = render_diff_terminal(d, false);
        EXPECT_NE(text.find("not selected on one side: 2 results only in " +
                            std::string(full_first ? "base (new" : "new (base") + " ran --only async.copy.*)"),
                  std::string::npos)
            << text;
        EXPECT_EQ(text.find("no result"), std::string::npos) << text;
        EXPECT_EQ(diff_to_json(d).at("not_selected").size(), 2u);
    }
}

TEST(DiffSelection, ASelectedCheckThatStoppedReportingStillRegresses) {
    const RunSelection only = parsed({"gpuconform", "run", "--only", "async.*"});
    const DiffResult d = compare_sides(side({{"async.copy.bandwidth [cuda:0]", Status::Pass}}, {RunSelection{}}),
                                       side({}, {only}), ToleranceTable{});
    ASSERT_EQ(d.statuses.size(), 1u);
    EXPECT_EQ(d.statuses[0].change, Change::Worse);
    EXPECT_TRUE(d.not_selected.empty());
    EXPECT_TRUE(d.regressed());
}

TEST(DiffSelection, AQuickRunLeavesOutWholeChecksNotSingleDevices) {
    RunSelection quick;
    quick.quick = true;
    const DiffSide full = side({{"async.copy.bandwidth [cuda:0]", Status::Pass},
                                {"async.copy.bandwidth [cuda:1]", Status::Pass},
                                {"async.stream.many_streams [cuda:0]", Status::Info}},
                               {RunSelection{}});
    const DiffSide nightly = side({{"async.copy.bandwidth [cuda:0]", Status::Pass}}, {quick});
    const DiffResult d = compare_sides(full, nightly, ToleranceTable{});
    ASSERT_EQ(d.not_selected.size(), 1u);
    EXPECT_EQ(d.not_selected[0].label, "async.stream.many_streams [cuda:0]");
    ASSERT_EQ(d.statuses.size(), 1u);  // cuda:1 ran in --quick too: a GPU gone is a regression
    EXPECT_EQ(d.statuses[0].label, "async.copy.bandwidth [cuda:1]");
    EXPECT_TRUE(d.regressed());
    // Both sides --quick: a check gone from one of them stopped reporting.
    EXPECT_TRUE(compare_sides(side({{"async.stream.many_streams [cuda:0]", Status::Info}}, {quick}),
                              side({{"host.cpu", Status::Info}}, {quick}), ToleranceTable{})
                    .regressed());
}

// Read from real report files: the selection comes from run.command_line and run.layers.
TEST(DiffSelection, ReadFromTheReportsThemselves) {
    const test::ScratchDir dir("diff-selection");
    nlohmann::json full = test::make_report("r1", "h", "Debian 12", "NVIDIA H200",
                                            {{"async.copy.bandwidth", "pass", 0}, {"host.cpu", "info"}});
    nlohmann::json some = test::make_report("r2", "h", "Debian 12", "NVIDIA H200", {{"host.cpu", "info"}});
    some["run"]["command_line"] = {"gpuconform", "run", "--only", "host.*"};
    some["run"]["layers"] = {"host", "runtime", "async", "framework"};
    const std::string a = dir.write("full.json", full.dump());
    const std::string b = dir.write("some.json", some.dump());
    EXPECT_EQ(describe(read_selection(b)), "--only host.*");
    EXPECT_EQ(describe(read_selection(a)), "every check");
    EXPECT_EQ(describe(read_selection(dir.path() + "/missing.json")), "every check");
}

// `run --repeat` appends "(worst of N repetitions)": the same finding, said once.
TEST(DiffSelection, AFindingSaidOnceWhateverTheRepetitions) {
    const test::ScratchDir dir("diff-findings");
    const auto report = [&](const std::string& id, const std::string& summary) {
        nlohmann::json r = test::make_report(id, "h", "Debian 12", "NVIDIA H200", {{"async.peer.event_order", "skip"}});
        r["results"][0]["summary"] = summary;
        return r.dump();
    };
    dir.write("base/a.json", report("a", "needs two or more GPUs; 1 visible"));
    dir.write("new/b.json", report("b", "needs two or more GPUs; 1 visible"));
    dir.write("new/c.json", report("c", "needs two or more GPUs; 1 visible (worst of 5 repetitions)"));
    ReadOptions o;
    o.problems = true;
    const DiffSide base = aggregate_side(read_reports({dir.path() + "/base"}, o), {});
    const DiffSide now = aggregate_side(read_reports({dir.path() + "/new"}, o), {});
    ASSERT_EQ(now.findings.at("async.peer.event_order").size(), 1u);
    EXPECT_TRUE(compare_sides(base, now, ToleranceTable{}).findings.empty());
    EXPECT_FALSE(has_one_sided_results(base, now));
}

}  // namespace
}  // namespace gpuconform
