#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "scan_prefilter.hpp"

namespace gpuconform {
namespace {

struct PrefilterCase {
    std::string in;
    std::string out;
};

TEST(ScanPrefilter, DropsUnreadMembersAndWhitespaceKeepingValidJson) {
    const std::vector<PrefilterCase> cases = {
        {R"({ "id" : "a b", "status": "pass" })", R"({"id":"a b","status":"pass"})"},
        {R"({"id": "x", "summary": "s", "status": "fail"})", R"({"id":"x","status":"fail"})"},
        {R"({"id": "x", "facts": {"a": [1, {"b": "}]"}]}})", R"({"id":"x"})"},
        {R"({"summary": "only"})", R"({})"},
        {R"({"id": "say \"summary\": no", "summary": "q\\"})", R"({"id":"say \"summary\": no"})"},
        {R"(["summary", "facts"])", R"(["summary","facts"])"},  // strings that are not keys stay
        {R"({"measurements": [{"name": "bw", "min": 1}]})", R"({})"},
    };
    for (const auto& c : cases) {
        std::string out;
        EXPECT_TRUE(prefilter_report(c.in, false, out)) << c.in;
        EXPECT_EQ(out, c.out) << c.in;
        EXPECT_TRUE(nlohmann::json::accept(out)) << out;
    }
}

TEST(ScanPrefilter, KeepsMeasurementsWhenAsked) {
    std::string out;
    EXPECT_TRUE(prefilter_report(R"({"measurements": [{"name": "bw", "min": 1, "value": 2}]})", true, out));
    // min and max stay: diff reads each measurement's own spread.
    EXPECT_EQ(out, R"({"measurements":[{"name":"bw","min":1,"value":2}]})");
}

TEST(ScanPrefilter, TextThatEndsInsideAValueIsReportedAsTruncated) {
    std::string out;
    EXPECT_FALSE(prefilter_report(R"({"id": "x", "facts": {"a": [1, 2)", false, out));
    EXPECT_FALSE(prefilter_report(R"({"id": "unterminated)", false, out));
}

}  // namespace
}  // namespace gpuconform
