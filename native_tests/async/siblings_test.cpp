// The sibling rule and the peer-matrix verdict, as tables of cases.
#include <gtest/gtest.h>

#include "async/peer_common.hpp"
#include "runner/siblings.hpp"

namespace gpuconform {
namespace {

std::vector<CheckResult> per_device(const std::vector<double>& gbps) {
    std::vector<CheckResult> out;
    for (std::size_t d = 0; d < gbps.size(); ++d) {
        CheckResult r;
        r.id = "async.copy.bandwidth";
        r.device = static_cast<int>(d);
        r.status = Status::Pass;
        r.measurements.push_back({"bw", gbps[d], "GB/s", 1, {}, {}});
        out.push_back(r);
    }
    return out;
}

std::vector<int> failed(std::vector<CheckResult>& results, const std::vector<std::string>& models) {
    std::vector<CheckResult*> p;
    for (auto& r : results) {
        p.push_back(&r);
    }
    apply_sibling_rule(p, models, {"bw"}, 0.15);
    std::vector<int> out;
    for (const auto& r : results) {
        if (r.status == Status::Fail) {
            out.push_back(*r.device);
        }
    }
    return out;
}

TEST(SiblingRule, NamesTheOneSlowGpuOfEightAndNoHealthyOne) {
    auto results = per_device({55.1, 55.3, 54.9, 33.0, 55.0, 55.2, 54.8, 55.1});
    EXPECT_EQ(failed(results, std::vector<std::string>(8, "H200")), std::vector<int>{3});
    EXPECT_NE(results[3].summary.find("outlier"), std::string::npos);
}

TEST(SiblingRule, NoiseWithinTheToleranceIsNotAnOutlier) {
    auto results = per_device({55.1, 52.0, 54.9, 50.0});
    EXPECT_TRUE(failed(results, std::vector<std::string>(4, "H200")).empty());
}

TEST(SiblingRule, TwoGpusCannotNameTheOddOneOut) {
    auto results = per_device({55.0, 20.0});
    EXPECT_TRUE(failed(results, std::vector<std::string>(2, "H200")).empty());
}

TEST(SiblingRule, DifferentModelsAreNotSiblings) {
    auto results = per_device({55.0, 55.0, 25.0, 25.0, 25.0});
    EXPECT_TRUE(failed(results, {"H200", "H200", "L4", "L4", "L4"}).empty());
}

async::PeerMatrix matrix(const std::vector<std::vector<bool>>& rows) {
    async::PeerMatrix m(static_cast<int>(rows.size()));
    m.access = rows;
    return m;
}

// --device chose some GPUs of a node of identical ones: results stand in for those devices only.
std::vector<CheckResult> chosen(const std::vector<int>& devices, Status status) {
    std::vector<CheckResult> out;
    for (int d : devices) {
        CheckResult r;
        r.id = "async.copy.bandwidth";
        r.device = d;
        r.status = status;
        r.summary = "55.0 GB/s";
        out.push_back(r);
    }
    return out;
}

bool mark(std::vector<CheckResult>& results, const std::vector<std::string>& models) {
    std::vector<CheckResult*> p;
    for (auto& r : results) {
        p.push_back(&r);
    }
    return mark_siblings_not_judged(p, models);
}

TEST(SiblingRule, OneChosenGpuOfFourIsNotJudgedAndDoesNotPass) {
    auto results = chosen({2}, Status::Pass);
    EXPECT_TRUE(mark(results, std::vector<std::string>(4, "H200")));
    EXPECT_EQ(results[0].status, Status::Skip);
    EXPECT_EQ(results[0].summary.rfind("--device selected one GPU; the sibling rule needs all identical GPUs", 0), 0u)
        << results[0].summary;
    EXPECT_NE(results[0].summary.find("55.0 GB/s"), std::string::npos);
    EXPECT_TRUE(results[0].facts["siblings"].contains("not_judged"));
}

TEST(SiblingRule, AChosenGpuThatFailsOnItsOwnStaysFailed) {
    auto results = chosen({1, 3}, Status::Fail);
    EXPECT_TRUE(mark(results, std::vector<std::string>(4, "H200")));
    EXPECT_EQ(results[0].status, Status::Fail);
    EXPECT_NE(results[1].facts["siblings"]["not_judged"].get<std::string>().find("2 of the 4"), std::string::npos);
}

TEST(SiblingRule, ChoosingIsHarmlessWhereTheRuleCanStillCompareOrNeverApplies) {
    auto three = chosen({0, 1, 2}, Status::Pass);
    EXPECT_FALSE(mark(three, std::vector<std::string>(4, "H200")));  // three chosen: the rule compares them
    auto pair = chosen({1}, Status::Pass);
    EXPECT_FALSE(mark(pair, std::vector<std::string>(2, "H200")));  // two on the node: the rule never applies
    auto mixed = chosen({0}, Status::Pass);
    EXPECT_FALSE(mark(mixed, {"A100", "H200", "H200", "H200"}));  // its model has one GPU on the node
    EXPECT_EQ(mixed[0].status, Status::Pass);
}

TEST(PeerMatrix, Verdicts) {
    EXPECT_EQ(async::judge_peer_matrix(matrix({{false, true}, {true, false}}), true).status, Status::Pass);
    EXPECT_EQ(async::judge_peer_matrix(matrix({{false, true}, {false, false}}), true).status, Status::Fail);  // one-way
    EXPECT_EQ(async::judge_peer_matrix(matrix({{false, false}, {false, false}}), true).status, Status::Info);
    const auto missing = matrix({{false, true, true}, {true, false, false}, {true, false, false}});
    EXPECT_EQ(async::judge_peer_matrix(missing, true).status, Status::Fail);   // 1↔2 lacks what the others have
    EXPECT_EQ(async::judge_peer_matrix(missing, false).status, Status::Info);  // mixed models: not judged
}

}  // namespace
}  // namespace gpuconform
