// The sibling rule and the peer-matrix verdict, as tables of cases.
#include <gtest/gtest.h>

#include <algorithm>

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

namespace gpuconform {
namespace {

// Every ordered pair of `n` GPUs at `gbps`, pairs touching a GPU of `slow` at `factor` of it.
std::vector<async::PeerRate> pairs_of(int n, double gbps, std::vector<int> slow = {}, double factor = 1.0) {
    std::vector<async::PeerRate> out;
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j < n; ++j) {
            const bool touches = std::find(slow.begin(), slow.end(), i) != slow.end() ||
                                 std::find(slow.begin(), slow.end(), j) != slow.end();
            if (i != j) {
                out.push_back({i, j, touches ? gbps * factor : gbps});
            }
        }
    }
    return out;
}

// Three GPUs, one 40 % slower: 4 of the 6 pairs touch it, so the median of all pairs is its rate
// and the old rule (each pair against that median) passed. Judged per GPU, it is named, alone.
TEST(PeerBandwidth, OneSlowGpuOfThreeIsNamedThoughMostPairsAreItsOwn) {
    const auto v = async::judge_peer_bandwidth(3, pairs_of(3, 48.0, {2}, 0.6), 0.25, std::nullopt);
    EXPECT_EQ(v.status, Status::Fail) << v.summary;
    EXPECT_EQ(v.slow_gpus, std::vector<int>{2});
    EXPECT_NE(v.summary.find("GPU 2: median 28.8 GB/s over its 4 pairs against 48.0 GB/s"), std::string::npos)
        << v.summary;
    EXPECT_EQ(v.summary.find("slow pairs"), std::string::npos) << "the slow GPU's pairs are its, not the links'";
}

TEST(PeerBandwidth, EightGpusWithOneSlowNameOnlyIt) {
    const auto v = async::judge_peer_bandwidth(8, pairs_of(8, 48.0, {3}, 0.6), 0.25, std::nullopt);
    EXPECT_EQ(v.status, Status::Fail);
    EXPECT_EQ(v.slow_gpus, std::vector<int>{3});
}

TEST(PeerBandwidth, OneBadLinkBetweenGoodGpusIsAPairNotAGpu) {
    auto pairs = pairs_of(4, 48.0);
    for (auto& p : pairs) {
        if (p.from == 0 && p.to == 1) {
            p.gbps = 20.0;
        }
    }
    const auto v = async::judge_peer_bandwidth(4, pairs, 0.25, std::nullopt);
    EXPECT_EQ(v.status, Status::Fail);
    EXPECT_TRUE(v.slow_gpus.empty()) << v.summary;
    EXPECT_NE(v.summary.find("0→1 20.0 GB/s"), std::string::npos) << v.summary;
}

TEST(PeerBandwidth, EvenPairsPassTwoGpusJudgePairsAndTheFloorCounts) {
    EXPECT_EQ(async::judge_peer_bandwidth(3, pairs_of(3, 48.0), 0.25, std::nullopt).status, Status::Pass);
    EXPECT_EQ(async::judge_peer_bandwidth(2, pairs_of(2, 48.0), 0.25, std::nullopt).status, Status::Pass);
    EXPECT_EQ(async::judge_peer_bandwidth(2, pairs_of(2, 48.0), 0.25, 100.0).status, Status::Fail);
    auto two = pairs_of(2, 48.0);
    two[0].gbps = 20.0;
    EXPECT_EQ(async::judge_peer_bandwidth(2, two, 0.25, std::nullopt).status, Status::Fail);
    EXPECT_EQ(async::judge_peer_bandwidth(3, {}, 0.25, std::nullopt).status, Status::Skip);
}

}  // namespace
}  // namespace gpuconform
