// The one verdict rule every view uses (core/run_verdict.hpp).
#include <gtest/gtest.h>

#include "core/run_verdict.hpp"

namespace gpuconform {
namespace {

CheckResult with(Status s, bool disturbed = false) {
    CheckResult r;
    r.status = s;
    if (disturbed) {
        r.disturbance = {{"summary", "pid 7 held 98% utilisation"}};
    }
    return r;
}

Verdict judge(const std::vector<CheckResult>& rs, bool interrupted = false, bool strict = false) {
    return verdict_of(tally_results(rs, interrupted, strict));
}

TEST(RunVerdict, PassNeedsSomethingJudgedAndNothingWrong) {
    EXPECT_EQ(judge({with(Status::Pass), with(Status::Info), with(Status::Skip), with(Status::Warn)}), Verdict::Pass);
    EXPECT_EQ(judge({with(Status::Skip), with(Status::Skip)}), Verdict::Inconclusive);
    EXPECT_EQ(judge({}), Verdict::Inconclusive);
}

TEST(RunVerdict, AnUndisturbedFailOutranksEverything) {
    EXPECT_EQ(judge({with(Status::Fail), with(Status::Error)}, true), Verdict::Fail);
    EXPECT_EQ(judge({with(Status::Fail, true), with(Status::Pass)}), Verdict::Inconclusive);
}

TEST(RunVerdict, ErrorsAndStopsCannotBeJudged) {
    EXPECT_EQ(judge({with(Status::Pass), with(Status::Error)}), Verdict::Inconclusive);
    EXPECT_EQ(judge({with(Status::Pass)}, true), Verdict::Inconclusive);
}

TEST(RunVerdict, ANodeWithGpusWhoseDeviceChecksNeverRanIsIncomplete) {
    auto t = tally_results({with(Status::Pass), with(Status::Skip)}, false, false);
    t.device_layer_missing = true;
    EXPECT_EQ(verdict_of(t), Verdict::Inconclusive);
    EXPECT_NE(verdict_reason(t).find("no device check was judged"), std::string::npos);
    t.failed = 1;
    EXPECT_EQ(verdict_of(t), Verdict::Fail);
}

// Acceptance is never partial: a part that could not read or load its GPU leaves the node
// unaccepted, while a skipped check of another layer (no NVLink, no hipcc) does not.
TEST(RunVerdict, ASkippedAcceptancePartLeavesTheNodeUnaccepted) {
    CheckResult clocks = with(Status::Skip);
    clocks.id = "acceptance.load.clocks";
    CheckResult nvlink = with(Status::Skip);
    nvlink.id = "health.nvlink";
    CheckResult hbm = with(Status::Pass);
    hbm.id = "acceptance.hbm.bandwidth";
    EXPECT_EQ(judge({hbm, nvlink}), Verdict::Pass);
    const auto t = tally_results({hbm, nvlink, clocks}, false, false);
    EXPECT_EQ(verdict_of(t), Verdict::Inconclusive);
    EXPECT_EQ(verdict_reason(t), "1 acceptance part skipped: the node was not fully accepted");
    CheckResult wrong = with(Status::Fail);
    wrong.id = "acceptance.compute.checked_matmul";
    EXPECT_EQ(judge({clocks, wrong}), Verdict::Fail);
}

TEST(RunVerdict, StrictMakesAWarnAFail) {
    EXPECT_EQ(judge({with(Status::Pass), with(Status::Warn)}, false, true), Verdict::Fail);
}

TEST(RunVerdict, ReasonsCountWhatTheySay) {
    const auto t =
        tally_results({with(Status::Fail), with(Status::Fail), with(Status::Error), with(Status::Skip)}, false, false);
    EXPECT_EQ(verdict_reason(t), "2 checks failed; 1 check could not run (error)");
    EXPECT_EQ(verdict_reason(tally_results({with(Status::Skip)}, false, false)), "no check was judged (all skipped)");
    EXPECT_EQ(verdict_reason(tally_results({with(Status::Pass)}, true, false)), "the run was interrupted");
}

TEST(RunVerdict, WordsRoundTripAndOldReportsRead) {
    for (Verdict v : {Verdict::Pass, Verdict::Fail, Verdict::Inconclusive}) {
        EXPECT_EQ(verdict_from_string(to_string(v)), v);
    }
    EXPECT_EQ(verdict_from_string("interrupted"), Verdict::Inconclusive);
    EXPECT_FALSE(verdict_from_string("accepted").has_value());
}

}  // namespace
}  // namespace gpuconform
