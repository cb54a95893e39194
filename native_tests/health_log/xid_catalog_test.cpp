#include <algorithm>

#include <gtest/gtest.h>

#include "core/utf8.hpp"
#include "health/xid_catalog.hpp"
#include "health_log_data.hpp"

namespace gpuconform {
namespace {

using test::read_log_sample;

std::vector<GpuEvent> events_of(const std::string& sample) {
    return find_gpu_events(parse_dmesg_text(read_log_sample(sample)));
}

const GpuEvent* find_code(const std::vector<GpuEvent>& events, int code) {
    auto it = std::find_if(events.begin(), events.end(), [code](const GpuEvent& e) { return e.code == code; });
    return it == events.end() ? nullptr : &*it;
}

TEST(NormalizeBdf, BringsKernelAndNvmlFormsTogether) {
    EXPECT_EQ(normalize_bdf("PCI:0000:3B:00"), "0000:3b:00");
    EXPECT_EQ(normalize_bdf("00000000:3B:00.0"), "0000:3b:00");  // NVML pads the domain
    EXPECT_EQ(normalize_bdf("0000:3b:00.1"), "0000:3b:00");
    EXPECT_EQ(normalize_bdf("03:00"), "0000:03:00");
    EXPECT_EQ(normalize_bdf("garbage"), "");
    EXPECT_EQ(normalize_bdf("0000:3b:zz"), "");
}

struct XidCase {
    int code;
    GpuAction action;
    const char* vendor_action;
    bool application_level;
};

class XidCatalog : public ::testing::TestWithParam<XidCase> {};

TEST_P(XidCatalog, GivesTheCatalogsImmediateAction) {
    const auto c = classify_xid(GetParam().code, "");
    EXPECT_EQ(c.action, GetParam().action) << GetParam().code;
    EXPECT_EQ(c.vendor_action, GetParam().vendor_action);
    EXPECT_EQ(c.application_level, GetParam().application_level);
    EXPECT_FALSE(c.meaning.empty());
}

INSTANTIATE_TEST_SUITE_P(
    CommonlyActedOn, XidCatalog,
    ::testing::Values(
        XidCase{13, GpuAction::RestartApp, "RESTART_APP", true},
        XidCase{31, GpuAction::RestartApp, "RESTART_APP", true},
        XidCase{32, GpuAction::RestartApp, "RESTART_APP", true}, XidCase{43, GpuAction::None, "IGNORE", true},
        XidCase{45, GpuAction::None, "WORKFLOW_XID_45", true},
        XidCase{48, GpuAction::ResetGpu, "WORKFLOW_XID_48", false},
        XidCase{61, GpuAction::ContactVendor, "UNEXPECTED_ERR_REPORT_ISSUE", false},
        XidCase{62, GpuAction::ResetGpu, "RESET_GPU", false}, XidCase{63, GpuAction::None, "IGNORE", false},
        XidCase{64, GpuAction::ResetGpu, "RESET_GPU", false}, XidCase{68, GpuAction::RestartApp, "RESTART_APP", true},
        XidCase{69, GpuAction::RestartApp, "RESTART_APP", true},
        XidCase{74, GpuAction::ResetGpu, "WORKFLOW_NVLINK_ERR", false},
        XidCase{79, GpuAction::RebootNode, "RESTART_BM", false}, XidCase{92, GpuAction::None, "IGNORE", false},
        XidCase{94, GpuAction::RestartApp, "RESTART_APP", true}, XidCase{95, GpuAction::ResetGpu, "RESET_GPU", false},
        XidCase{119, GpuAction::ResetGpu, "RESET_GPU", false}, XidCase{120, GpuAction::ResetGpu, "RESET_GPU", false},
        XidCase{121, GpuAction::None, "IGNORE", false}, XidCase{140, GpuAction::ResetGpu, "RESET_GPU", false},
        XidCase{143, GpuAction::ResetGpu, "RESET_GPU", false},
        XidCase{144, GpuAction::ResetGpu, "WORKFLOW_NVLINK5_ERR", false},
        XidCase{150, GpuAction::ResetGpu, "WORKFLOW_NVLINK5_ERR", false}));

TEST(XidCatalogUnknown, AnUnknownCodeIsUnknownNeverIgnored) {
    const auto c = classify_xid(231, "");
    EXPECT_EQ(c.action, GpuAction::Unknown);
    EXPECT_NE(c.meaning.find("unknown Xid 231"), std::string::npos);
}

TEST(XidCatalogUnknown, Xid154FollowsTheDriversRecoveryAction) {
    EXPECT_EQ(classify_xid(154, "GPU recovery action changed from 0x0 (None) to 0x2 (Node Reboot Required)").action,
              GpuAction::RebootNode);
    EXPECT_EQ(classify_xid(154, "GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset Required)").action,
              GpuAction::ResetGpu);
    EXPECT_EQ(classify_xid(154, "GPU recovery action changed from 0x1 (GPU Reset Required) to 0x0 (None)").action,
              GpuAction::None);
}

TEST(GpuEvents, FindsEachXidWithDeviceCodeTimeAndClass) {
    const auto events = events_of("dmesg-gpu-events.txt");
    const auto* off_bus = find_code(events, 79);
    ASSERT_NE(off_bus, nullptr);
    EXPECT_EQ(off_bus->source, GpuEventSource::NvidiaXid);
    EXPECT_EQ(off_bus->bdf, "0000:3b:00");
    EXPECT_DOUBLE_EQ(off_bus->seconds_since_boot, 1032.44721);
    EXPECT_EQ(off_bus->what.action, GpuAction::RebootNode);
    EXPECT_NE(off_bus->message.find("GPU has fallen off the bus"), std::string::npos);
    EXPECT_EQ(find_code(events, 48)->bdf, "0000:5e:00");
    EXPECT_EQ(find_code(events, 95)->what.action, GpuAction::ResetGpu);
    EXPECT_EQ(find_code(events, 231)->what.action, GpuAction::Unknown);
    // "NVRM: GPU at ..." and "GPU has fallen off the bus." without "Xid" are not events of their own.
    EXPECT_EQ(std::count_if(events.begin(), events.end(), [](const GpuEvent& e) { return e.code == 79; }), 1);
}

TEST(GpuEvents, ClassifiesAmdgpuRasResetTimeoutAndFault) {
    const auto events = events_of("dmesg-gpu-events.txt");
    std::vector<const GpuEvent*> amd;
    for (const auto& e : events) {
        if (e.source == GpuEventSource::Amdgpu) {
            amd.push_back(&e);
        }
    }
    ASSERT_EQ(amd.size(), 4u);  // "reset succeeded" and the correctable count are not trouble
    EXPECT_EQ(amd[0]->bdf, "0000:c1:00");
    EXPECT_EQ(amd[0]->what.action, GpuAction::ResetGpu);  // RAS uncorrectable
    EXPECT_EQ(amd[1]->what.action, GpuAction::ResetGpu);  // GPU reset begin
    EXPECT_EQ(amd[2]->bdf, "");                           // the ring time-out line names no device
    EXPECT_TRUE(amd[2]->what.application_level);
    EXPECT_EQ(amd[3]->what.action, GpuAction::RestartApp);
    EXPECT_EQ(classify_amdgpu("amdgpu 0000:c1:00.0: amdgpu: GPU reset(2) failed")->action, GpuAction::RebootNode);
    EXPECT_EQ(classify_amdgpu("amdgpu: RAS records:5000 exceed threshold:4000")->action, GpuAction::ContactVendor);
}

TEST(GpuEvents, TakesTheFatalSxidAndSkipsItsDetailLines) {
    const auto events = events_of("dmesg-sxid.txt");
    ASSERT_EQ(events.size(), 2u);
    EXPECT_EQ(events[0].source, GpuEventSource::NvswitchSxid);
    EXPECT_EQ(events[0].code, 20034);
    EXPECT_EQ(events[0].bdf, "0000:c6:00");
    EXPECT_EQ(events[0].what.action, GpuAction::ResetGpu);
    EXPECT_EQ(events[1].what.action, GpuAction::None);  // non-fatal
}

TEST(GpuEvents, MakesInvalidBytesValidUtf8AndSurvivesATruncatedLine) {
    const auto events = events_of("dmesg-damaged.bin");
    ASSERT_EQ(events.size(), 1u);  // the line cut inside "(PCI:0000:3b:0" holds no event
    EXPECT_EQ(events[0].code, 13);
    EXPECT_TRUE(is_valid_utf8(events[0].message));
    EXPECT_NE(events[0].message.find("\xEF\xBF\xBD"), std::string::npos);  // U+FFFD where the bytes were
}

TEST(GpuEvents, IgnoresAnXidThatUserSpaceWroteIntoKmsg) {
    // What `echo "NVRM: Xid ..." > /dev/kmsg` leaves: facility 1 (user), which the kernel never uses.
    const auto forged = parse_kmsg_record("12,3000,2000000000,-;NVRM: Xid (PCI:0000:3b:00): 79, pid=1, forged");
    const auto real =
        parse_kmsg_record("4,3001,2000000001,-;NVRM: Xid (PCI:0000:3b:00): 79, pid=1, GPU has fallen off");
    ASSERT_TRUE(forged.has_value() && real.has_value());
    EXPECT_FALSE(parse_gpu_event(*forged).has_value());
    EXPECT_TRUE(parse_gpu_event(*real).has_value());
}

TEST(GpuEvents, FindsTheXidAtTheStartOfAHugeLine) {
    const std::string huge = "[ 9.0] NVRM: Xid (PCI:0000:3b:00): 13, " + std::string(std::size_t{1} << 20, 'A');
    const auto events = find_gpu_events(parse_dmesg_text(huge));
    ASSERT_EQ(events.size(), 1u);
    EXPECT_LE(events[0].message.size(), KernelLogLimits{}.max_message_bytes);
}

}  // namespace
}  // namespace gpuconform
