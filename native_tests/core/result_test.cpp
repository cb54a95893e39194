#include <gtest/gtest.h>

#include "core/result.hpp"

namespace gpuconform {
namespace {

TEST(Summarize, KeepsMedianMinMaxAndCount) {
    const auto m = summarize("bw", "GB/s", {3.0, 1.0, 2.0, 10.0});
    ASSERT_TRUE(m.value.has_value());
    EXPECT_DOUBLE_EQ(*m.value, 2.5);
    EXPECT_DOUBLE_EQ(*m.min, 1.0);
    EXPECT_DOUBLE_EQ(*m.max, 10.0);
    EXPECT_EQ(m.n, 4);
}

TEST(Summarize, NoSamplesIsNotMeasuredRatherThanZero) {
    const auto m = summarize("bw", "GB/s", {});
    EXPECT_FALSE(m.value.has_value());
    EXPECT_EQ(nlohmann::json(m).at("value"), nullptr);
}

TEST(Status, SeverityOrdersPassBelowInfoBelowSkipBelowWarnBelowFailBelowError) {
    EXPECT_LT(severity(Status::Pass), severity(Status::Info));
    EXPECT_LT(severity(Status::Info), severity(Status::Skip));
    EXPECT_LT(severity(Status::Skip), severity(Status::Warn));
    EXPECT_LT(severity(Status::Warn), severity(Status::Fail));
    EXPECT_LT(severity(Status::Fail), severity(Status::Error));
}

TEST(Status, NamesRoundTripAndUnknownNamesAreRejected) {
    for (Status s : {Status::Pass, Status::Fail, Status::Warn, Status::Skip, Status::Error, Status::Info}) {
        EXPECT_EQ(status_from_string(to_string(s)), s);
    }
    EXPECT_FALSE(status_from_string("ok").has_value());
}

TEST(CheckResultJson, RoundTripsEveryField) {
    CheckResult r;
    r.id = "async.copy.bandwidth";
    r.layer = "async";
    r.backend = "cuda";
    r.device = 3;
    r.status = Status::Warn;
    r.summary = "slow";
    r.remediation = "reseat";
    r.measurements.push_back(summarize("bw", "GB/s", {1, 2, 3}));
    r.facts["x"] = "y";
    r.expectation["min"] = 0.7;
    r.duration_s = 1.5;
    const CheckResult back = nlohmann::json(r).get<CheckResult>();
    EXPECT_EQ(back.id, r.id);
    EXPECT_EQ(back.backend, "cuda");
    EXPECT_EQ(back.device, 3);
    EXPECT_EQ(back.status, Status::Warn);
    EXPECT_EQ(back.remediation, "reseat");
    ASSERT_EQ(back.measurements.size(), 1u);
    EXPECT_DOUBLE_EQ(*back.measurements[0].value, 2.0);
    EXPECT_EQ(back.facts.at("x"), "y");
    EXPECT_DOUBLE_EQ(back.duration_s, 1.5);
}

TEST(CheckResultJson, HostResultsHaveNullBackendAndDevice) {
    CheckResult r;
    r.id = "host.memlock";
    r.layer = "host";
    r.status = Status::Info;
    const nlohmann::json j = r;
    EXPECT_TRUE(j.at("backend").is_null());
    EXPECT_TRUE(j.at("device").is_null());
    EXPECT_TRUE(j.at("remediation").is_null());
}

}  // namespace
}  // namespace gpuconform
