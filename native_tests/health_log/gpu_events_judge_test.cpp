#include <gtest/gtest.h>

#include "health/gpu_events_judge.hpp"
#include "health_log_data.hpp"

namespace gpuconform {
namespace {

using test::read_log_sample;

std::vector<GpuEvent> sample_events(const std::string& name = "dmesg-gpu-events.txt") {
    return find_gpu_events(parse_dmesg_text(read_log_sample(name)));
}

TEST(JudgeGpuEvents, AGpuOffTheBusFailsAndAsksForAReboot) {
    const auto j = judge_gpu_events(sample_events(), "00000000:3B:00.0", {});
    EXPECT_EQ(j.status, Status::Fail);
    EXPECT_EQ(j.worst, GpuAction::RebootNode);
    EXPECT_EQ(j.events.size(), 2u);  // the 79 and the unknown 231 on the same GPU
    EXPECT_NE(j.reason.find("Xid 79"), std::string::npos);
}

TEST(JudgeGpuEvents, ADoubleBitErrorFailsWithAReset) {
    const auto j = judge_gpu_events(sample_events(), "0000:5e:00.0", {});
    EXPECT_EQ(j.status, Status::Fail);
    EXPECT_EQ(j.worst, GpuAction::ResetGpu);
}

TEST(JudgeGpuEvents, ApplicationErrorsWarnOnlyAboveTheCount) {
    GpuEventThresholds t;
    t.application_events_warn_above = 2;
    const auto warned = judge_gpu_events(sample_events(), "0000:86:00.0", t);
    EXPECT_EQ(warned.application_events, 3);  // 13, 13, 43
    EXPECT_EQ(warned.status, Status::Warn);
    t.application_events_warn_above = 3;
    EXPECT_EQ(judge_gpu_events(sample_events(), "0000:86:00.0", t).status, Status::Pass);
}

// Seen on the H200: every run's error check (a kernel faulting on purpose) left an Xid 31 naming
// gpuconform in the log, and every later run warned "application-level events since boot".
TEST(JudgeGpuEvents, FaultsOurOwnErrorCheckRaisedAreKeptButNeverCounted) {
    const std::vector<KernelLogRecord> ours{
        {4, 0, 1, 204.9,
         "NVRM: Xid (PCI:0000:00:06): 31, pid=4242, name=gpuconform, Ch 00000008, intr 10000000. "
         "MMU Fault: ENGINE GRAPHICS GPCCLIENT_T1_0 faulted @ 0x7f00_00000000. Fault is of type "
         "FAULT_PDE ACCESS_TYPE_VIRT_READ"},
        {4, 0, 2, 211.9, "NVRM: Xid (PCI:0000:00:06): 43, pid=4300, name=gpuconform, Ch 00000008"}};
    const auto j = judge_gpu_events(find_gpu_events(ours), "00000000:00:06.0", {});
    EXPECT_EQ(j.status, Status::Pass);
    EXPECT_EQ(j.events.size(), 2u);
    EXPECT_EQ(j.own_application_events, 2);
    EXPECT_EQ(j.application_events, 0);
    EXPECT_NE(j.reason.find("raised on purpose by gpuconform"), std::string::npos) << j.reason;
    // Another program's fault still counts, and a hardware event counts whoever raised it.
    auto mixed = ours;
    mixed.push_back({4, 0, 3, 300.0, "NVRM: Xid (PCI:0000:00:06): 31, pid=77, name=python3, Ch 00000010"});
    EXPECT_EQ(judge_gpu_events(find_gpu_events(mixed), "0000:00:06.0", {}).status, Status::Warn);
    mixed.push_back(
        {4, 0, 4, 301.0, "NVRM: Xid (PCI:0000:00:06): 79, pid=4242, name=gpuconform, GPU has fallen off the bus."});
    EXPECT_EQ(judge_gpu_events(find_gpu_events(mixed), "0000:00:06.0", {}).status, Status::Fail);
    // A name that only starts alike is not ours.
    const std::vector<KernelLogRecord> other{
        {4, 0, 5, 12.0, "NVRM: Xid (PCI:0000:00:06): 31, pid=9, name=gpuconform-fake, Ch 00000008"}};
    EXPECT_EQ(judge_gpu_events(find_gpu_events(other), "0000:00:06.0", {}).status, Status::Warn);
}

TEST(JudgeGpuEvents, AContainedErrorIsApplicationLevelAnUncontainedOneFails) {
    GpuEventThresholds t;
    t.application_events_warn_above = 1;
    EXPECT_EQ(judge_gpu_events(sample_events(), "0000:af:00.0", t).status, Status::Pass);
    EXPECT_EQ(judge_gpu_events(sample_events(), "0000:d8:00.0", t).status, Status::Fail);
}

TEST(JudgeGpuEvents, AnUnknownXidWarnsUnlessToldOtherwise) {
    const std::vector<KernelLogRecord> records{{4, 0, 1, 12.0, "NVRM: Xid (PCI:0000:3b:00): 231, pid=1, new"}};
    const auto events = find_gpu_events(records);
    EXPECT_EQ(judge_gpu_events(events, "0000:3b:00.0", {}).status, Status::Warn);
    GpuEventThresholds t;
    t.unknown_warns = false;
    EXPECT_EQ(judge_gpu_events(events, "0000:3b:00.0", t).status, Status::Pass);
}

TEST(JudgeGpuEvents, TheFailThresholdIsAParameter) {
    GpuEventThresholds t;
    t.fail_at = GpuAction::RebootNode;
    EXPECT_EQ(judge_gpu_events(sample_events(), "0000:5e:00.0", t).status, Status::Pass);
    EXPECT_EQ(judge_gpu_events(sample_events(), "0000:3b:00.0", t).status, Status::Fail);
}

TEST(JudgeGpuEvents, AQuietGpuPassesAndSaysNothingWasFound) {
    const auto j = judge_gpu_events(sample_events(), "0000:18:00.0", {});
    EXPECT_EQ(j.status, Status::Pass);
    EXPECT_TRUE(j.events.empty());
    EXPECT_EQ(j.worst, GpuAction::None);
}

TEST(JudgeGpuEvents, AnAmdRasErrorFailsItsGpu) {
    const auto j = judge_gpu_events(sample_events(), "0000:c1:00.0", {});
    EXPECT_EQ(j.status, Status::Fail);
    EXPECT_EQ(j.events.size(), 2u);
}

TEST(JudgeGpuEvents, AFatalSxidFailsEveryGpu) {
    const auto j = judge_gpu_events(sample_events("dmesg-sxid.txt"), "0000:18:00.0", {});
    EXPECT_EQ(j.status, Status::Fail);
    EXPECT_EQ(j.worst, GpuAction::ResetGpu);
}

}  // namespace
}  // namespace gpuconform
