// ECC, row remapping and retired pages: each finding gets its vendor's verdict, and a reading
// that could not be made is never a pass.
#include <gtest/gtest.h>

#include "health/judges.hpp"
#include "health_test_data.hpp"

namespace gpuconform {
namespace {

using test::healthy_h200;

TEST(HealthEcc, HealthyH200Passes) {
    const auto v = judge_ecc(healthy_h200(), 0);
    EXPECT_EQ(v.status, Status::Pass) << v.summary;
    EXPECT_TRUE(v.finding.empty());
}

TEST(HealthEcc, UncorrectableErrorsOverTheLimitFailAndAreAFinding) {
    struct Case {
        std::uint64_t errors;
        std::uint64_t limit;
        Status want;
    };
    for (const auto& c :
         {Case{1, 0, Status::Fail}, Case{2, 1, Status::Fail}, Case{2, 2, Status::Pass}, Case{0, 0, Status::Pass}}) {
        auto g = healthy_h200();
        g.ecc.volatile_uncorrected = Read<std::uint64_t>::of(c.errors);
        const auto v = judge_ecc(g, c.limit);
        EXPECT_EQ(v.status, c.want) << c.errors << " of " << c.limit << ": " << v.summary;
        EXPECT_EQ(v.finding.empty(), c.want == Status::Pass);
    }
}

TEST(HealthEcc, CorrectableAndLifetimeCountsAloneDoNotFail) {
    auto g = healthy_h200();
    g.ecc.volatile_corrected = Read<std::uint64_t>::of(40);
    g.ecc.aggregate_uncorrected = Read<std::uint64_t>::of(3);
    EXPECT_EQ(judge_ecc(g, 0).status, Status::Pass);
}

TEST(HealthEcc, DisabledWarnsAndAPendingChangeIsNamed) {
    auto g = healthy_h200();
    g.ecc_mode = Read<EccMode>::of({false, true});
    auto v = judge_ecc(g, 0);
    EXPECT_EQ(v.status, Status::Warn);
    EXPECT_NE(v.summary.find("pending"), std::string::npos) << v.summary;
    g.ecc_mode = Read<EccMode>::of({true, false});
    v = judge_ecc(g, 0);
    EXPECT_EQ(v.status, Status::Warn);
    EXPECT_NE(v.summary.find("pending"), std::string::npos) << v.summary;
}

TEST(HealthEcc, UnreadIsSkipOrErrorNeverPass) {
    auto g = healthy_h200();
    g.ecc_mode = Read<EccMode>::unsupported();
    EXPECT_EQ(judge_ecc(g, 0).status, Status::Skip);
    g.ecc_mode = Read<EccMode>::failed("nvmlDeviceGetEccMode: Unknown Error (999)");
    EXPECT_EQ(judge_ecc(g, 0).status, Status::Error);
    g = healthy_h200();
    g.ecc.volatile_uncorrected = Read<std::uint64_t>::failed("no permission");
    EXPECT_EQ(judge_ecc(g, 0).status, Status::Error);
}

TEST(HealthRemap, FailureFailsAsReplaceTheGpu) {
    auto g = healthy_h200();
    g.remapped_rows.value->failure = true;
    const auto v = judge_memory_remap(g, 60);
    EXPECT_EQ(v.status, Status::Fail);
    EXPECT_NE(v.finding.find("needs replacing"), std::string::npos) << v.finding;
}

TEST(HealthRemap, PendingWarnsThatAResetIsDue) {
    auto g = healthy_h200();
    g.remapped_rows.value->pending = true;
    const auto v = judge_memory_remap(g, 60);
    EXPECT_EQ(v.status, Status::Warn);
    EXPECT_NE(v.remediation.find("reset"), std::string::npos) << v.remediation;
}

TEST(HealthRemap, BanksWithoutSpareRowsWarnAndRemapsAlonePass) {
    auto g = healthy_h200();
    g.remapped_rows.value->uncorrectable = 2;
    EXPECT_EQ(judge_memory_remap(g, 60).status, Status::Pass);
    g.remap_histogram.value->none = 1;
    EXPECT_EQ(judge_memory_remap(g, 60).status, Status::Warn);
}

TEST(HealthRemap, GpusThatRetirePagesAreJudgedByTheirPages) {
    auto g = healthy_h200();
    g.remapped_rows = Read<RemappedRows>::unsupported();
    g.remap_histogram = Read<BankHistogram>::unsupported();
    g.retired_pages = Read<RetiredPages>::of({2, 1, false});
    EXPECT_EQ(judge_memory_remap(g, 60).status, Status::Pass);
    g.retired_pages = Read<RetiredPages>::of({2, 1, true});
    EXPECT_EQ(judge_memory_remap(g, 60).status, Status::Warn);
    g.retired_pages = Read<RetiredPages>::of({30, 30, false});
    EXPECT_EQ(judge_memory_remap(g, 60).status, Status::Fail);
}

TEST(HealthRemap, NeitherSupportedSkipsSayingSo) {
    auto g = healthy_h200();
    g.remapped_rows = Read<RemappedRows>::unsupported();
    const auto v = judge_memory_remap(g, 60);
    EXPECT_EQ(v.status, Status::Skip);
    EXPECT_NE(v.summary.find("not supported"), std::string::npos) << v.summary;
    g.remapped_rows = Read<RemappedRows>::failed("nvmlDeviceGetRemappedRows: GPU is lost (15)");
    EXPECT_EQ(judge_memory_remap(g, 60).status, Status::Error);
}

}  // namespace
}  // namespace gpuconform
