// The kernel log since boot, read without root where the kernel allows it: /dev/kmsg, one record
// per read(2) (https://www.kernel.org/doc/Documentation/ABI/testing/dev-kmsg). A log that cannot
// be read says which path, why, and whether kernel.dmesg_restrict is set, so a check built on it
// can be a skip with that reason, never an empty "no Xid" answer. docs/gpu-health-kernel-log.md.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuconform {

struct KernelLogRecord {
    int level = 6;     // syslog level, 0 (emerg) .. 7 (debug)
    int facility = 0;  // 0 is the kernel
    std::uint64_t sequence = 0;
    double seconds_since_boot = 0;  // CLOCK_MONOTONIC at the time it was logged
    std::string message;            // the bytes as logged: not yet UTF-8 (kmsg escapes, dmesg text may not)
};

// One /dev/kmsg record "prio,seq,usec,flags[,...];message" (continuation lines " KEY=value"
// after the first newline are dropped). Empty when the header is malformed.
std::optional<KernelLogRecord> parse_kmsg_record(std::string_view record);
// `dmesg` text, one "[  123.456789] message" line each (journal and fixture text); a line
// without the bracketed time is kept with time 0. Caps as read_kernel_log's.
std::vector<KernelLogRecord> parse_dmesg_text(std::string_view text);

struct KernelLogLimits {
    std::size_t max_bytes = std::size_t{32} << 20;  // the ring buffer is at most 32 MiB (CONFIG_LOG_BUF_SHIFT 25)
    std::size_t max_records = 500000;
    std::size_t max_message_bytes = 8192;  // longer messages are cut (kmsg's own record limit)
    std::chrono::milliseconds max_time{2000};
};

struct KernelLogRead {
    bool readable = false;
    std::string path;
    int error_number = 0;                // errno of the failed open or read
    std::optional<bool> dmesg_restrict;  // /proc/sys/kernel/dmesg_restrict, empty when unreadable
    std::string reason;                  // why it is not readable, one sentence for a skip
    std::vector<KernelLogRecord> records;
    bool cut_short = false;  // a limit stopped the read; `limit` says which
    std::string limit;
    std::uint64_t overwritten = 0;  // times the ring overwrote records before we read them (EPIPE)
};

// Reads every record since boot (or what the ring still holds) until EAGAIN or end of file.
KernelLogRead read_kernel_log(const std::string& path = "/dev/kmsg", const KernelLogLimits& limits = {},
                              const std::string& dmesg_restrict_path = "/proc/sys/kernel/dmesg_restrict");

}  // namespace gpuconform
