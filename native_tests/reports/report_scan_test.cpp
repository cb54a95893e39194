#include <gtest/gtest.h>

#include "report_builder.hpp"
#include "reports/report_scan.hpp"

namespace gpuconform {
namespace {

TEST(ReportScan, ReadsGroupsResultsAndDevices) {
    const auto doc =
        test::make_report("run-7", "node7", "Debian GNU/Linux 12 (bookworm)", "NVIDIA H200",
                          {{"host.memlock", "warn"}, {"async.copy.bw", "info", 3, {{"h2d_pinned_bw_4096", 1.5}}}});
    std::string error;
    const auto r = scan_report(doc.dump(2), true, error);
    ASSERT_TRUE(r) << error;
    EXPECT_EQ(r->run_id, "run-7");
    EXPECT_EQ(r->groups[static_cast<int>(GroupKey::Distro)], "Debian GNU/Linux 12 (bookworm)");
    EXPECT_EQ(r->groups[static_cast<int>(GroupKey::Gpu)], "NVIDIA H200");
    EXPECT_EQ(r->groups[static_cast<int>(GroupKey::Host)], "node7");
    EXPECT_EQ(r->groups[static_cast<int>(GroupKey::Driver)], "13.0");
    EXPECT_EQ(r->groups[static_cast<int>(GroupKey::Torch)], "2.11.0");
    ASSERT_EQ(r->results.size(), 2u);
    EXPECT_EQ(r->results[0].status, Status::Warn);
    EXPECT_EQ(r->results[0].device, "");
    EXPECT_EQ(r->results[1].device, "cuda:3");
    ASSERT_EQ(r->results[1].measurements.size(), 1u);
    EXPECT_DOUBLE_EQ(r->results[1].measurements[0].value, 1.5);
    EXPECT_EQ(r->results[1].measurements[0].unit, "GB/s");
}

TEST(ReportScan, AReportWithoutDevicesIsGroupedAsNoGpu) {
    std::string error;
    const auto r = scan_report(test::make_report("r", "h", "d", "", {}).dump(), false, error);
    ASSERT_TRUE(r) << error;
    EXPECT_EQ(r->groups[static_cast<int>(GroupKey::Gpu)], "no GPU");
}

struct BadCase {
    const char* what;
    std::string text;
    const char* reason;  // a word the reason must contain
};

TEST(ReportScan, BrokenInputsAreRefusedWithAReason) {
    const std::string good = test::make_report("r", "h", "d", "g", {{"host.x", "pass"}}).dump();
    auto v2 = test::make_report("r", "h", "d", "g", {});
    v2["schema_version"] = "2.0";
    auto no_results = test::make_report("r", "h", "d", "g", {});
    no_results.erase("results");
    auto bad_status = test::make_report("r", "h", "d", "g", {{"host.x", "great"}});
    auto no_run_id = test::make_report("", "h", "d", "g", {});
    // Malformed text inside members the roll-up never reads: the reader before simdjson skipped
    // these unparsed and accepted the file.
    std::string bad_in_facts = good;
    bad_in_facts.replace(bad_in_facts.find("\"results\":["), 11, R"("facts":{"a":tru},"results":[)");
    std::string bad_utf8_in_facts = good;
    bad_utf8_in_facts.replace(bad_utf8_in_facts.find("\"results\":["), 11,
                              "\"facts\":{\"a\":\"\xff\xfe\"},\"results\":[");
    std::string twice = good;  // which of two `results` counts would be up to each reader
    twice.replace(twice.find("\"results\":["), 11, R"("results":[],"results":[)");
    auto scalar_result = test::make_report("r", "h", "d", "g", {});
    scalar_result["results"].push_back(7);
    const std::vector<BadCase> cases = {
        {"empty", "", "empty"},
        {"not JSON", "hello", "JSON"},
        {"truncated", good.substr(0, good.size() / 2), "truncated"},
        {"another schema", R"({"schema": "other"})", "not a gpuconform report"},
        {"major version 2", v2.dump(), "major version"},
        {"no results", no_results.dump(), "results"},
        {"unknown status", bad_status.dump(), "status"},
        {"no run id", no_run_id.dump(), "run.id"},
        {"a JSON array", "[1,2]", "not a gpuconform report"},
        {"a bad literal in a member the roll-up skips", bad_in_facts, "JSON"},
        {"invalid UTF-8 in a member the roll-up skips", bad_utf8_in_facts, "UTF-8"},
        {"trailing text after the document", good + " x", "JSON"},
        {"a result that is not an object", scalar_result.dump(), "not an object"},
        {"a key the roll-up reads, twice", twice, "'results' appears twice"},
    };
    for (const BadCase& c : cases) {
        std::string error;
        EXPECT_FALSE(scan_report(c.text, false, error)) << c.what;
        EXPECT_NE(error.find(c.reason), std::string::npos) << c.what << ": " << error;
    }
}

}  // namespace
}  // namespace gpuconform
