#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "checks/declarations.hpp"
#include "reports/diff.hpp"
#include "report_builder.hpp"
#include "test_paths.hpp"

namespace gpuconform {
namespace {

DiffSide side(std::vector<std::pair<std::string, Status>> statuses) {
    DiffSide s;
    s.runs = 1;
    for (const auto& [label, st] : statuses) {
        ++s.statuses[label].counts[severity(st)];
    }
    return s;
}

Figure figure(std::vector<double> samples, std::string unit = "GB/s") {
    Figure f;
    f.unit = std::move(unit);
    f.medians = {median(samples)};
    f.lo = *std::min_element(samples.begin(), samples.end());
    f.hi = *std::max_element(samples.begin(), samples.end());
    f.samples = static_cast<int>(samples.size());
    return f;
}

struct StatusCase {
    std::optional<Status> base;
    std::optional<Status> now;
    std::optional<Change> expected;  // nullopt: not reported
};

TEST(DiffStatuses, WorseBetterMissingAndNewAreJudged) {
    const std::vector<StatusCase> cases = {
        {Status::Pass, Status::Pass, std::nullopt},    {Status::Pass, Status::Fail, Change::Worse},
        {Status::Pass, Status::Error, Change::Worse},  {Status::Fail, Status::Pass, Change::Better},
        {Status::Info, Status::Warn, Change::Worse},   {Status::Error, Status::Skip, Change::Better},
        {Status::Pass, std::nullopt, Change::Worse},    // stopped reporting
        {std::nullopt, Status::Pass, Change::Changed},  // a new check that passes
        {std::nullopt, Status::Fail, Change::Worse},    // a new check that fails
    };
    for (const auto& c : cases) {
        const DiffSide b = c.base ? side({{"host.x", *c.base}}) : side({});
        const DiffSide n = c.now ? side({{"host.x", *c.now}}) : side({});
        const DiffResult d = compare_sides(b, n, ToleranceTable{});
        if (!c.expected) {
            EXPECT_TRUE(d.statuses.empty());
            continue;
        }
        ASSERT_EQ(d.statuses.size(), 1u);
        EXPECT_EQ(d.statuses[0].change, *c.expected);
        EXPECT_EQ(d.regressed(), *c.expected == Change::Worse);
    }
}

TEST(DiffStatuses, ADisturbedResultCouldNotBeCompared) {
    DiffSide now = side({{"async.copy.bandwidth [cuda:0]", Status::Error}});
    now.disturbed.insert("async.copy.bandwidth [cuda:0]");
    const DiffResult d = compare_sides(side({{"async.copy.bandwidth [cuda:0]", Status::Pass}}), now, ToleranceTable{});
    ASSERT_EQ(d.statuses.size(), 1u);
    EXPECT_EQ(d.statuses[0].change, Change::CouldNotCompare);
    EXPECT_FALSE(d.regressed());
}

struct RuleCase {
    const char* check;
    const char* name;
    std::vector<double> base;
    std::vector<double> now;
    Change expected;  // Changed with note "within noise": not news
    bool regression;
};

// Synthetic tables, shaped like the H200 repeat runs (pinned 256 MiB: 0.4% spread; pageable: 50%).
TEST(DiffRule, NewMedianOutsideTheWidenedBaseRangeIsNews) {
    const std::vector<RuleCase> cases = {
        {"async.copy.bandwidth",
         "bw_pinned_H2D_256MiB",
         {55.2, 55.3, 55.4, 55.3, 55.1},
         {55.0, 55.1, 55.2, 54.9, 55.0},
         Change::Changed,
         false},
        {"async.copy.bandwidth",
         "bw_pinned_H2D_256MiB",
         {55.2, 55.3, 55.4, 55.3, 55.1},
         {44.2, 44.3, 44.1, 44.2, 44.3},
         Change::Worse,
         true},  // 80% link
        {"async.copy.bandwidth",
         "bw_pinned_H2D_256MiB",
         {55.2, 55.3, 55.4, 55.3, 55.1},
         {53.0, 53.1, 52.9, 53.2, 53.0},
         Change::Changed,
         false},  // -4%: inside the 5% floor
        {"async.copy.bandwidth",
         "bw_pinned_H2D_256MiB",
         {44.2, 44.3, 44.1, 44.2, 44.3},
         {55.2, 55.3, 55.4, 55.3, 55.1},
         Change::Better,
         false},
        {"async.copy.bandwidth",
         "bw_pageable_H2D_16MiB",
         {20, 30, 40, 25, 35},
         {9, 10, 11, 10, 9},
         Change::Worse,
         false},  // diagnostic: never a regression
        {"async.copy.bandwidth",
         "bw_pageable_H2D_16MiB",
         {20, 30, 40, 25, 35},
         {16, 17, 18, 17, 16},
         Change::Changed,
         false},  // noise
        {"async.overlap.copy_compute", "overlap_ratio", {0.9, 0.92, 0.91}, {0.3, 0.31, 0.29}, Change::Worse, true},
        {"async.queue.launch_depth", "queued_launches", {1024, 1024, 1024}, {512, 512, 512}, Change::Worse, true},
        {"async.launch.returns_early",
         "launch_call_ms",
         {0.004, 0.005, 0.006},
         {0.05, 0.06, 0.07},
         Change::Worse,
         false},
        {"async.event.timing_accuracy",
         "relative_error",
         {0.002, 0.002, 0.002},
         {0.0005, 0.0005, 0.0005},
         Change::Changed,
         false},  // smaller error: within its floor
        {"async.event.timing_accuracy",
         "relative_error",
         {0.002, 0.002, 0.002},
         {0.0001, 0.0001, 0.0001},
         Change::Changed,
         false},
    };
    for (const auto& c : cases) {
        DiffSide b;
        DiffSide n;
        b.runs = n.runs = 1;
        const std::string label = std::string(c.check) + " [cuda:0]";
        b.figures[{label, c.name}] = figure(c.base);
        n.figures[{label, c.name}] = figure(c.now);
        const MeasurementChange m =
            judge_figure(label, c.name, b.figures.begin()->second, n.figures.begin()->second, {});
        EXPECT_EQ(m.change, c.expected) << c.name << " " << m.now << " note " << m.note;
        EXPECT_EQ(compare_sides(b, n, {}).regressed(), c.regression) << c.name;
    }
}

TEST(DiffRule, ASideWithOneSampleSaysSoAndFallsBackToTheFloor) {
    const MeasurementChange m =
        judge_figure("async.copy.bandwidth [cuda:0]", "bw_train_pinned_H2D_256MiB", figure({55.0}), figure({40.0}), {});
    EXPECT_EQ(m.change, Change::Worse);
    EXPECT_NE(m.note.find("too few repetitions"), std::string::npos) << m.note;
}

TEST(DiffRule, ErroredFiguresCouldNotBeCompared) {
    Figure now = figure({10.0, 10.0, 10.0});
    now.unusable = true;
    const MeasurementChange m =
        judge_figure("async.copy.bandwidth [cuda:0]", "bw_pinned_H2D_256MiB", figure({55.0, 55.1, 55.2}), now, {});
    EXPECT_EQ(m.change, Change::CouldNotCompare);
}

TEST(DiffRule, DifferentGpuModelsAreDifferentNodes) {
    DiffSide b = side({{"host.x", Status::Pass}});
    DiffSide n = side({{"host.x", Status::Fail}});
    b.gpus = {"NVIDIA H200"};
    n.gpus = {"NVIDIA H100 80GB HBM3"};
    const DiffResult d = compare_sides(b, n, {});
    ASSERT_EQ(d.different_nodes.size(), 1u);
    EXPECT_FALSE(d.regressed());
    EXPECT_EQ(diff_exit_code(d), 4);
    EXPECT_NE(render_diff_terminal(d, false).find("verdict: could not compare (not the same node: GPU model"),
              std::string::npos);
}

TEST(DiffTolerances, FileRulesOverrideTheDeclaration) {
    const ToleranceTable t = parse_tolerances(
        "default: 0.2\nmeasurements:\n"
        "  - {match: 'async.copy.bandwidth/bw_pinned_*', tolerance: 0.5}\n"
        "  - {match: 'return_ms', tolerance: 0.5, better: lower, role: key}\n",
        "t.yaml");
    ASSERT_EQ(t.rules.size(), 2u);
    EXPECT_DOUBLE_EQ(*t.find("async.copy.bandwidth", "bw_pinned_H2D_1MiB")->floor, 0.5);
    EXPECT_EQ(*t.find("async.copy.pinned", "return_ms")->role, Role::Key);
    EXPECT_EQ(t.find("async.other", "x"), nullptr);
    // A 20% drop is inside a 50% floor.
    const MeasurementChange m = judge_figure("async.copy.bandwidth [cuda:0]", "bw_pinned_H2D_1MiB",
                                             figure({50, 50, 50}), figure({40, 40, 40}), t);
    EXPECT_EQ(m.change, Change::Changed);
}

TEST(DiffTolerances, BadFilesAreRefusedWithFileAndLine) {
    const std::vector<std::pair<std::string, std::string>> bad = {
        {"measurements:\n  - {match: x, tolerance: .nan}\n", "t.yaml:2: tolerance must be a finite"},
        {"measurements:\n  - {match: x, tolerance: .inf}\n", "t.yaml:2: tolerance must be a finite"},
        {"default: -0.1\n", "t.yaml:1: default must be a finite"},
        {"measurements:\n  - match: x\n    tolerence: 0.1\n", "t.yaml:3: unknown key 'tolerence'"},
        {"defaults: 0.1\n", "t.yaml:1: unknown key 'defaults'"},
        {"measurements:\n  - {match: x, better: up}\n", "t.yaml:2: better must be"},
        {"measurements:\n  - {match: x, tolerance: lots}\n", "t.yaml:2: tolerance must be a number"},
        {"measurements:\n  - {tolerance: 0.1}\n", "t.yaml:2: a measurements entry needs match"},
        {"measurements: [\n", "t.yaml:"},
        // hostile input: typos, repeats and absurd values are refused, never half-applied
        {"measurements:\n  - match: x\n    tolerence: 0.1\n",
         "t.yaml:3: unknown key 'tolerence' (did you mean 'tolerance'?)"},
        {"defualt: 0.1\n", "t.yaml:1: unknown key 'defualt' (did you mean 'default'?)"},
        {"default: 0.1\ndefault: 0.2\n", "t.yaml:2: 'default' given twice"},
        {"measurements:\n  - {match: x, tolerance: 0.1, tolerance: 0.2}\n", "t.yaml:2: 'tolerance' given twice"},
        {"measurements:\n  - {match: x, tolerance: 1e9}\n", "t.yaml:2: tolerance 1e+09 means 1e+11 %"},
        {"? [a, b]\n: 1\n", "t.yaml:1: a key must be a plain word"},
        {"measurements:\n  - {? {a: 1} : x}\n", "t.yaml:2: a key must be a plain word"},
        // a second document was dropped without a word
        {"default: 0.5\n---\ndefault: 0.01\n", "t.yaml:2: a second YAML document"},
    };
    for (const auto& [text, message] : bad) {
        try {
            parse_tolerances(text, "t.yaml");
            ADD_FAILURE() << "accepted: " << text;
        } catch (const std::runtime_error& e) {
            EXPECT_EQ(std::string(e.what()).rfind(message, 0), 0u) << e.what();
        }
    }
    EXPECT_NO_THROW(load_tolerances(std::string(test_paths::source_dir) + "/reports/examples/tolerances.yaml"));
}

TEST(DiffFilters, SelectRunsByGroupKeyGlobs) {
    const auto f = parse_group_filter("distro=Debian*12*,gpu=NVIDIA H200");
    ASSERT_TRUE(f);
    GroupValues v;
    v[static_cast<int>(GroupKey::Distro)] = "Debian GNU/Linux 12 (bookworm)";
    v[static_cast<int>(GroupKey::Gpu)] = "NVIDIA H200";
    EXPECT_TRUE(filter_matches(*f, v));
    v[static_cast<int>(GroupKey::Gpu)] = "NVIDIA H100";
    EXPECT_FALSE(filter_matches(*f, v));
    EXPECT_FALSE(parse_group_filter("reports/run.json"));
    EXPECT_FALSE(parse_group_filter("colour=red"));
}

TEST(DiffSides, GroupsFoldRunsIntoMediansAndSpread) {
    test::ScratchDir dir("diffside");
    for (int i = 0; i < 3; ++i) {
        dir.write(
            std::to_string(i) + ".json",
            test::make_report("r" + std::to_string(i), "h" + std::to_string(i), i < 2 ? "Debian 12" : "Debian 13", "G",
                              {{"async.bw", i == 1 ? "fail" : "pass", 0, {{"h2d_pinned_bw_4096", 10.0 * (i + 1)}}}})
                .dump());
    }
    ReadOptions o;
    o.measurements = true;
    const ReportSet set = read_reports({dir.path()}, o);
    const DiffSide d12 = aggregate_side(set, *parse_group_filter("distro=Debian 12"));
    EXPECT_EQ(d12.runs, 2u);
    EXPECT_EQ(d12.statuses.at("async.bw [cuda:0]").worst(), Status::Fail);
    const Figure& f = d12.figures.at({"async.bw [cuda:0]", "h2d_pinned_bw_4096"});
    EXPECT_DOUBLE_EQ(f.median(), 15.0);
    EXPECT_DOUBLE_EQ(f.lo, 10.0);  // the spread across hosts
    EXPECT_DOUBLE_EQ(f.hi, 20.0);
    const DiffResult r =
        compare_sides(d12, aggregate_side(set, *parse_group_filter("distro=Debian 13")), ToleranceTable{});
    EXPECT_FALSE(r.regressed());  // fail → pass and 15 → 30 GB/s are both improvements
    EXPECT_EQ(diff_exit_code(r), 0);
}

// Real repeat runs: every pair of the committed bw-*.json runs of one machine is "no regression".
TEST(DiffRealSamples, RepeatRunsOfOneMachineAreNoRegression) {
    ReadOptions o;
    o.measurements = true;
    for (const char* folder : {"ubuntu24.04-h200-2026-11-29", "ubuntu24.04-2xh200-2026-11-29"}) {
        const std::string dir = std::string(test_paths::source_dir) + "/reports/samples/" + folder + "/";
        int pairs = 0;
        for (int a = 1; a <= 5; ++a) {
            for (int b = 1; b <= 5; ++b) {
                if (a == b) {
                    continue;
                }
                const auto one = [&](int i) {
                    return aggregate_side(read_reports({dir + "bw-" + std::to_string(i) + ".json"}, o), {});
                };
                const DiffResult d = compare_sides(one(a), one(b), {});
                EXPECT_FALSE(d.regressed()) << folder << " bw-" << a << " → bw-" << b << "\n"
                                            << render_diff_terminal(d, false);
                ++pairs;
            }
        }
        EXPECT_EQ(pairs, 20);
    }
}

// A healthy H200 whose bidirectional figure dipped (87.6 against 99.3 GB/s, every other figure
// as before) is no regression; the same figure at 80 % still is.
TEST(DiffRealSamples, ABidirectionalDipOnAHealthyH200IsNoRegressionButALinkAt80IsOne) {
    ReadOptions o;
    o.measurements = true;
    const std::string samples = std::string(test_paths::source_dir) + "/reports/samples/";
    const DiffSide base =
        aggregate_side(read_reports({samples + "ubuntu24.04-h200-2026-12-01-structure/full.json"}, o), {});
    const DiffSide dipped =
        aggregate_side(read_reports({samples + "ubuntu24.04-h200-2026-12-01-reader/full.json"}, o), {});
    const DiffResult d = compare_sides(base, dipped, {});
    EXPECT_FALSE(d.regressed()) << render_diff_terminal(d, false);
    DiffSide slow = base;
    for (auto& [key, f] : slow.figures) {
        if (key.first.find("async.copy.bidirectional") != std::string::npos) {
            for (double& v : f.medians) {
                v *= 0.8;
            }
            f.lo *= 0.8;
            f.hi *= 0.8;
        }
    }
    const DiffResult s = compare_sides(base, slow, {});
    EXPECT_TRUE(s.regressed()) << render_diff_terminal(s, false);
}

// Old reports (schema 1.0) carry no direction/role: the declarations supply them.
TEST(DiffRealSamples, OldReportsGetTheirMeaningFromTheDeclarations) {
    ReadOptions o;
    o.measurements = true;
    const std::string path =
        std::string(test_paths::source_dir) + "/reports/samples/ubuntu24.04-h200-2026-11-29/bw-1.json";
    const DiffSide base = aggregate_side(read_reports({path}, o), {});
    DiffSide now = base;
    for (auto& [key, f] : now.figures) {
        for (double& v : f.medians) {
            v *= 0.8;  // the same node with its link at 80%
        }
        f.lo *= 0.8;
        f.hi *= 0.8;
    }
    const DiffResult d = compare_sides(base, now, {});
    EXPECT_TRUE(d.regressed());
    const auto it = std::find_if(d.measurements.begin(), d.measurements.end(),
                                 [](const auto& m) { return m.name == "bw_pinned_H2D_256MiB"; });
    ASSERT_NE(it, d.measurements.end());
    EXPECT_EQ(it->role, Role::Key);
    EXPECT_EQ(it->direction, Direction::Higher);
    EXPECT_EQ(it->change, Change::Worse);
}

// Every measurement in the committed reports has a declared meaning (a new one fails here).
TEST(DiffRealSamples, EverySampleMeasurementHasADeclaredDirection) {
    int seen = 0;
    for (const auto& e :
         std::filesystem::recursive_directory_iterator(std::string(test_paths::source_dir) + "/reports/samples")) {
        if (e.path().extension() != ".json") {
            continue;
        }
        std::ifstream in(e.path());
        const nlohmann::json doc = nlohmann::json::parse(in);
        for (const auto& r : doc.at("results")) {
            for (const auto& m : r.at("measurements")) {
                ++seen;
                EXPECT_TRUE(declared_meaning(r.at("id").get<std::string>(), m.at("name").get<std::string>()))
                    << e.path().filename() << ": " << r.at("id") << " " << m.at("name");
            }
        }
    }
    EXPECT_GT(seen, 1000);
}

}  // namespace
}  // namespace gpuconform
