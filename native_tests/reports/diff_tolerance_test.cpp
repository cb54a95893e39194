// Tolerances in one unit: a plain number is a fraction below 1, `15%` a percent. A floor of 1 or
// more puts a higher-is-better figure's band at zero, so `tolerance: 15` meant as 15 % hid a
// halved bandwidth; it is refused with the file, the line and what was probably meant.
#include <gtest/gtest.h>

#include "reports/diff.hpp"
#include "report_builder.hpp"
#include "reports/report_set.hpp"
#include "test_paths.hpp"

namespace gpuconform {
namespace {

const char* k_sample = "/reports/samples/ubuntu24.04-h200-2026-12-01-structure/full.json";

// The real H200 report, and the same with every async.copy.bandwidth figure halved.
std::pair<DiffSide, DiffSide> halved_bandwidth() {
    nlohmann::json doc = test::load_json(std::string(test_paths::source_dir) + k_sample);
    test::ScratchDir dir("difftolerance");
    const std::string base = dir.write("base.json", doc.dump());
    doc["run"]["id"] = "halved";
    for (auto& r : doc["results"]) {
        if (r["id"] == "async.copy.bandwidth") {
            for (auto& m : r["measurements"]) {
                for (const char* k : {"value", "min", "max"}) {
                    if (m[k].is_number()) {
                        m[k] = m[k].get<double>() / 2;
                    }
                }
            }
        }
    }
    const std::string now = dir.write("now.json", doc.dump());
    ReadOptions o;
    o.measurements = true;
    return {aggregate_side(read_reports({base}, o), {}), aggregate_side(read_reports({now}, o), {})};
}

TEST(DiffTolerances, AFloorOfOneOrMoreIsRefusedWithWhatWasMeant) {
    const std::vector<std::pair<std::string, std::string>> bad = {
        {"default: 15\n", "t.yaml:1: default 15 means 1500 %; write 0.15 or 15%"},
        {"measurements:\n  - {match: '*', tolerance: 15}\n", "t.yaml:2: tolerance 15 means 1500 %; write 0.15 or 15%"},
        {"measurements:\n  - {match: '*', tolerance: 1}\n", "t.yaml:2: tolerance 1 means 100 %; write 0.01 or 1%"},
        {"measurements:\n  - {match: '*', tolerance: 100%}\n", "t.yaml:2: tolerance must be below 100%"},
        {"measurements:\n  - {match: '*', tolerance: -5%}\n", "t.yaml:2: tolerance must be"},
        {"measurements:\n  - {match: '*', tolerance: '%'}\n", "t.yaml:2: tolerance must be a number"},
    };
    for (const auto& [text, message] : bad) {
        try {
            parse_tolerances(text, "t.yaml");
            ADD_FAILURE() << "accepted: " << text;
        } catch (const std::runtime_error& e) {
            EXPECT_EQ(std::string(e.what()).rfind(message, 0), 0u) << e.what();
        }
    }
}

TEST(DiffTolerances, APercentIsTakenExplicitly) {
    const ToleranceTable t = parse_tolerances("default: 15%\nmeasurements:\n  - {match: x, tolerance: 2.5%}\n", "t");
    EXPECT_DOUBLE_EQ(*t.default_floor, 0.15);
    EXPECT_DOUBLE_EQ(*t.rules.at(0).floor, 0.025);
    EXPECT_DOUBLE_EQ(*parse_tolerances("default: 0.15\n", "t").default_floor, 0.15);
    EXPECT_DOUBLE_EQ(*parse_tolerances("default: 15 %\n", "t").default_floor, 0.15);
}

// `tolerance: 15` is refused, so it cannot make a halved H200 bandwidth "no regression";
// 15% keeps it a regression.
TEST(DiffTolerances, FifteenPercentStillCatchesAHalvedBandwidthOnARealReport) {
    const auto [base, now] = halved_bandwidth();
    EXPECT_THROW(parse_tolerances("measurements:\n  - {match: 'async.copy.bandwidth/*', tolerance: 15}\n", "t"),
                 std::runtime_error);
    const ToleranceTable t =
        parse_tolerances("measurements:\n  - {match: 'async.copy.bandwidth/*', tolerance: 15%}\n", "t");
    const DiffResult d = compare_sides(base, now, t);
    EXPECT_TRUE(d.regressed()) << render_diff_terminal(d, false);
    EXPECT_GT(d.key_regressions(), 5u);
}

}  // namespace
}  // namespace gpuconform
