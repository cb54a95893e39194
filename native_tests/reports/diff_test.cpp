#include <gtest/gtest.h>

#include "diff.hpp"
#include "report_builder.hpp"

namespace gpuconform {
namespace {

DiffSide side(std::vector<std::pair<std::string, Status>> statuses,
              std::vector<std::tuple<std::string, std::string, std::string, double>> medians = {}) {
    DiffSide s;
    s.runs = 1;
    for (const auto& [label, st] : statuses) {
        ++s.statuses[label].counts[severity(st)];
    }
    for (const auto& [label, name, unit, v] : medians) {
        s.medians[{label, name}] = {unit, v};
    }
    return s;
}

struct StatusCase {
    std::optional<Status> base;
    std::optional<Status> now;
    std::optional<Change> expected;  // nullopt: not reported
};

TEST(DiffStatuses, WorseBetterMissingAndNewAreJudged) {
    const std::vector<StatusCase> cases = {
        {Status::Pass, Status::Pass, std::nullopt},
        {Status::Pass, Status::Fail, Change::Worse},
        {Status::Fail, Status::Pass, Change::Better},
        {Status::Info, Status::Warn, Change::Worse},
        {Status::Error, Status::Skip, Change::Better},
        {Status::Pass, std::nullopt, Change::Worse},     // stopped reporting
        {std::nullopt, Status::Pass, Change::Changed},   // a new check that passes
        {std::nullopt, Status::Fail, Change::Worse},     // a new check that fails
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

struct MoveCase {
    std::string unit;
    double base;
    double now;
    std::optional<Change> expected;
};

TEST(DiffMeasurements, MovesBeyondToleranceAreJudgedByDirection) {
    ToleranceTable t;  // 10% by default
    t.rules.push_back({"*_bw_*", 0.15, std::nullopt});
    const std::vector<MoveCase> cases = {
        {"GB/s", 50.0, 49.5, std::nullopt},     // 1%: noise
        {"GB/s", 50.0, 44.0, std::nullopt},     // 12%: within the 15% bandwidth rule
        {"GB/s", 50.0, 42.0, Change::Worse},    // 16% down
        {"GB/s", 50.0, 60.0, Change::Better},
        {"ms", 10.0, 12.0, Change::Worse},      // latency up 20%
        {"ms", 10.0, 8.0, Change::Better},
        {"bytes", 100.0, 150.0, Change::Changed},  // no good direction: news, not a regression
    };
    for (const auto& c : cases) {
        const std::string name = c.unit == "GB/s" ? "h2d_pinned_bw_4096" : "value";
        const DiffResult d = compare_sides(side({}, {{"async.x [cuda:0]", name, c.unit, c.base}}),
                                           side({}, {{"async.x [cuda:0]", name, c.unit, c.now}}), t);
        if (!c.expected) {
            EXPECT_TRUE(d.measurements.empty()) << c.unit << " " << c.now;
            continue;
        }
        ASSERT_EQ(d.measurements.size(), 1u) << c.unit << " " << c.now;
        EXPECT_EQ(d.measurements[0].change, *c.expected) << c.unit << " " << c.now;
    }
}

TEST(DiffTolerances, FileRulesMatchQualifiedOrBareNames) {
    test::ScratchDir dir("tolerances");
    const std::string path = dir.write("t.yaml",
                                       "default: 0.2\nmeasurements:\n"
                                       "  - {match: 'async.copy.bandwidth/*', tolerance: 0.15}\n"
                                       "  - {match: 'return_ms', tolerance: 0.5, better: lower}\n");
    const ToleranceTable t = load_tolerances(path);
    EXPECT_DOUBLE_EQ(t.resolve("async.copy.bandwidth", "h2d_pinned_bw_4096", "GB/s").first, 0.15);
    EXPECT_DOUBLE_EQ(t.resolve("async.copy.pinned", "return_ms", "ms").first, 0.5);
    EXPECT_DOUBLE_EQ(t.resolve("async.other", "x", "GB/s").first, 0.2);
    EXPECT_THROW(load_tolerances(dir.write("bad.yaml", "measurements: [{match: x, tolerance: 1, better: up}]\n")),
                 std::runtime_error);
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

TEST(DiffSides, GroupsAggregateToMediansAndWorstStatus) {
    test::ScratchDir dir("diffside");
    for (int i = 0; i < 3; ++i) {
        dir.write(std::to_string(i) + ".json",
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
    EXPECT_DOUBLE_EQ(d12.medians.at({"async.bw [cuda:0]", "h2d_pinned_bw_4096"}).second, 15.0);
    const DiffResult r = compare_sides(d12, aggregate_side(set, *parse_group_filter("distro=Debian 13")), ToleranceTable{});
    EXPECT_FALSE(r.regressed());  // fail → pass and 15 → 30 GB/s are both improvements
    EXPECT_EQ(diff_exit_code(r), 0);
}

}  // namespace
}  // namespace gpuconform
