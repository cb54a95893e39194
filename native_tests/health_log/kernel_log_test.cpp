#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "core/temp_dir.hpp"
#include "health/kernel_log.hpp"
#include "health_log_data.hpp"

namespace gpuconform {
namespace {

using test::log_data;
using test::read_log_sample;

TEST(KmsgRecord, ReadsLevelSequenceTimeAndMessage) {
    const auto r = parse_kmsg_record("4,2001,1032447210,-;NVRM: Xid (PCI:0000:3b:00): 79, pid=1921\n SUBSYSTEM=pci\n");
    ASSERT_TRUE(r.has_value());
    EXPECT_EQ(r->level, 4);
    EXPECT_EQ(r->facility, 0);
    EXPECT_EQ(r->sequence, 2001u);
    EXPECT_DOUBLE_EQ(r->seconds_since_boot, 1032.44721);
    EXPECT_EQ(r->message, "NVRM: Xid (PCI:0000:3b:00): 79, pid=1921");  // the dictionary line is not the message
}

TEST(KmsgRecord, SplitsPriorityIntoFacilityAndLevel) {
    const auto r = parse_kmsg_record("30,2003,1100000000,-,caller=T1;systemd[1]: started");
    ASSERT_TRUE(r.has_value());
    EXPECT_EQ(r->facility, 3);
    EXPECT_EQ(r->level, 6);
}

TEST(KmsgRecord, RefusesMalformedAndTruncatedHeaders) {
    EXPECT_FALSE(parse_kmsg_record("not a record at all").has_value());
    EXPECT_FALSE(parse_kmsg_record("6,abc,1,-;sequence is not a number").has_value());
    EXPECT_FALSE(parse_kmsg_record("3,2001,10324").has_value());
    EXPECT_FALSE(parse_kmsg_record("3,2001;too few fields").has_value());
    EXPECT_FALSE(parse_kmsg_record("").has_value());
}

TEST(DmesgText, ReadsBootRelativeTimesAndKeepsUntimedLines) {
    const auto records = parse_dmesg_text(read_log_sample("dmesg-gpu-events.txt"));
    ASSERT_EQ(records.size(), 20u);
    EXPECT_DOUBLE_EQ(records[2].seconds_since_boot, 402.11872);
    EXPECT_EQ(records[2].message.rfind("NVRM: Xid (PCI:0000:86:00): 13,", 0), 0u);
    const auto untimed = parse_dmesg_text("a line with no time\r\n\n[  7.5] timed\n");
    ASSERT_EQ(untimed.size(), 2u);
    EXPECT_EQ(untimed[0].message, "a line with no time");
    EXPECT_EQ(untimed[0].seconds_since_boot, 0.0);
    EXPECT_DOUBLE_EQ(untimed[1].seconds_since_boot, 7.5);
}

TEST(DmesgText, SurvivesTruncatedAndHugeLines) {
    const auto damaged = parse_dmesg_text(read_log_sample("dmesg-damaged.bin"));
    ASSERT_EQ(damaged.size(), 3u);
    EXPECT_EQ(damaged[2].message, "[  500.00");  // cut before its closing bracket: kept, untimed
    const std::string huge = "[ 9.0] NVRM: Xid (PCI:0000:3b:00): 13, " + std::string(std::size_t{1} << 20, 'A');
    const auto records = parse_dmesg_text(huge);
    ASSERT_EQ(records.size(), 1u);
    EXPECT_EQ(records[0].message.size(), KernelLogLimits{}.max_message_bytes);
}

TEST(ReadKernelLog, ReadsRecordsFromAFileLikeKmsg) {
    const auto r = read_kernel_log(log_data("kmsg-records.txt"));
    ASSERT_TRUE(r.readable) << r.reason;
    ASSERT_EQ(r.records.size(), 4u);  // two malformed lines and two dictionary lines are not records
    EXPECT_EQ(r.records[1].sequence, 2001u);
    EXPECT_FALSE(r.cut_short);
}

TEST(ReadKernelLog, StopsAtTheRecordLimitAndSaysSo) {
    KernelLogLimits limits;
    limits.max_records = 2;
    const auto r = read_kernel_log(log_data("kmsg-records.txt"), limits);
    EXPECT_EQ(r.records.size(), 2u);
    EXPECT_TRUE(r.cut_short);
    EXPECT_EQ(r.limit, "records");
}

TEST(ReadKernelLog, AMissingDeviceIsUnreadableWithPathAndErrno) {
    const auto r = read_kernel_log("/nonexistent/kmsg");
    EXPECT_FALSE(r.readable);
    EXPECT_EQ(r.error_number, ENOENT);
    EXPECT_NE(r.reason.find("/nonexistent/kmsg"), std::string::npos);
    EXPECT_TRUE(r.records.empty());
}

TEST(ReadKernelLog, APermissionRefusalNamesDmesgRestrict) {
    if (::geteuid() == 0) {
        GTEST_SKIP() << "root opens a file of mode 000, so the refusal cannot be made here";
    }
    const auto dir = make_temp_dir("gpuconform-kmsg");
    const std::string device = dir + "/kmsg";
    const std::string restrict_flag = dir + "/dmesg_restrict";
    std::ofstream(device) << "6,1,1,-;hidden\n";
    std::ofstream(restrict_flag) << "1\n";
    ::chmod(device.c_str(), 0);
    const auto r = read_kernel_log(device, {}, restrict_flag);
    std::filesystem::remove_all(dir);
    EXPECT_FALSE(r.readable);
    EXPECT_EQ(r.error_number, EACCES);
    EXPECT_EQ(r.dmesg_restrict, true);
    EXPECT_NE(r.reason.find("dmesg_restrict=1"), std::string::npos);
}

// This machine's own log: records, or a precise reason; never a hang.
TEST(ReadKernelLog, ThisMachinesKmsgGivesRecordsOrAReason) {
    KernelLogLimits limits;
    limits.max_time = std::chrono::milliseconds(3000);
    const auto start = std::chrono::steady_clock::now();
    const auto r = read_kernel_log("/dev/kmsg", limits);
    const auto took = std::chrono::steady_clock::now() - start;
    EXPECT_LT(took, std::chrono::seconds(10));
    if (r.readable) {
        EXPECT_FALSE(r.records.empty()) << "a readable kernel log holds at least the boot messages";
        std::printf("read %zu records from /dev/kmsg in %.1f ms%s\n", r.records.size(),
                    std::chrono::duration<double, std::milli>(took).count(), r.cut_short ? " (cut short)" : "");
    } else {
        EXPECT_NE(r.error_number, 0);
        EXPECT_NE(r.reason.find("/dev/kmsg"), std::string::npos);
        std::printf("unreadable: %s\n", r.reason.c_str());
    }
}

}  // namespace
}  // namespace gpuconform
