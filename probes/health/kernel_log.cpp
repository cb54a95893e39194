#include "health/kernel_log.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>

namespace gpuconform {
namespace {

// kmsg refuses a read whose buffer cannot hold the whole record (EINVAL); its records are at most
// 8 KiB with the dictionary (CONSOLE_EXT_LOG_MAX).
constexpr std::size_t k_read_buffer_bytes = 16384;

template <typename T>
bool parse_number(std::string_view text, T& out) {
    const auto* end = text.data() + text.size();
    auto [ptr, ec] = std::from_chars(text.data(), end, out);
    return ec == std::errc() && ptr == end && !text.empty();
}

std::string_view first_line(std::string_view text) {
    const auto nl = text.find('\n');
    return nl == std::string_view::npos ? text : text.substr(0, nl);
}

std::string cut(std::string_view message, std::size_t max_bytes) {
    return std::string(message.substr(0, std::min(message.size(), max_bytes)));
}

std::optional<bool> read_dmesg_restrict(const std::string& path) {
    std::ifstream in(path);
    int value = 0;
    if (!(in >> value)) {
        return std::nullopt;
    }
    return value != 0;
}

std::string unreadable_reason(const KernelLogRead& r) {
    std::string reason = r.path + ": " + std::strerror(r.error_number);
    if (r.error_number == ENOENT) {
        reason += " (no kernel log device here, as in a container without /dev/kmsg)";
    } else if (r.dmesg_restrict == true) {
        reason += " (kernel.dmesg_restrict=1: only root or CAP_SYSLOG may read the kernel log)";
    } else if (r.error_number == EPERM || r.error_number == EACCES) {
        reason += r.dmesg_restrict == false
                      ? " (kernel.dmesg_restrict=0, so the device's permissions or a security module refuse it)"
                      : " (kernel.dmesg_restrict could not be read)";
    }
    return reason;
}

// Takes the complete lines of `pending` as records and keeps an unfinished tail: kmsg gives one
// whole record per read, a regular file (a fixture) gives many and may split one.
void take_records(std::string& pending, bool at_end, const KernelLogLimits& limits, KernelLogRead& out) {
    std::string_view rest(pending);
    while (!rest.empty() && out.records.size() < limits.max_records) {
        const auto nl = rest.find('\n');
        if (nl == std::string_view::npos && !at_end && rest.size() <= limits.max_message_bytes) {
            break;
        }
        const auto line = nl == std::string_view::npos ? rest : rest.substr(0, nl);
        rest = nl == std::string_view::npos ? std::string_view{} : rest.substr(nl + 1);
        if (line.empty() || line.front() == ' ') {
            continue;  // a continuation line (" SUBSYSTEM=pci") belongs to the record before
        }
        if (auto rec = parse_kmsg_record(line)) {
            rec->message = cut(rec->message, limits.max_message_bytes);
            out.records.push_back(std::move(*rec));
        }
    }
    pending = std::string(rest);
}

}  // namespace

std::optional<KernelLogRecord> parse_kmsg_record(std::string_view record) {
    const auto semi = record.find(';');
    if (semi == std::string_view::npos) {
        return std::nullopt;
    }
    std::array<std::string_view, 3> fields;
    std::string_view header = record.substr(0, semi);
    for (auto& f : fields) {
        const auto comma = header.find(',');
        if (comma == std::string_view::npos) {
            return std::nullopt;  // flags and later fields may follow; these three must be there
        }
        f = header.substr(0, comma);
        header.remove_prefix(comma + 1);
    }
    unsigned prio = 0;
    std::uint64_t usec = 0;
    KernelLogRecord r;
    if (!parse_number(fields[0], prio) || !parse_number(fields[1], r.sequence) || !parse_number(fields[2], usec)) {
        return std::nullopt;
    }
    r.level = static_cast<int>(prio & 7u);
    r.facility = static_cast<int>(prio >> 3);
    r.seconds_since_boot = static_cast<double>(usec) / 1e6;
    r.message = std::string(first_line(record.substr(semi + 1)));
    return r;
}

std::vector<KernelLogRecord> parse_dmesg_text(std::string_view text) {
    const KernelLogLimits limits;
    std::vector<KernelLogRecord> out;
    std::uint64_t sequence = 0;
    while (!text.empty() && out.size() < limits.max_records) {
        const auto nl = text.find('\n');
        std::string_view line = nl == std::string_view::npos ? text : text.substr(0, nl);
        text = nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
        if (!line.empty() && line.back() == '\r') {
            line.remove_suffix(1);
        }
        if (line.empty()) {
            continue;
        }
        KernelLogRecord r;
        r.sequence = sequence++;
        const auto close = line.find(']');
        if (line.front() == '[' && close != std::string_view::npos) {
            std::string_view stamp = line.substr(1, close - 1);
            while (!stamp.empty() && stamp.front() == ' ') {
                stamp.remove_prefix(1);
            }
            double seconds = 0;
            if (parse_number(stamp, seconds)) {
                r.seconds_since_boot = seconds;
                line.remove_prefix(close + 1);
                if (!line.empty() && line.front() == ' ') {
                    line.remove_prefix(1);
                }
            }
        }
        r.message = cut(line, limits.max_message_bytes);
        out.push_back(std::move(r));
    }
    return out;
}

KernelLogRead read_kernel_log(const std::string& path, const KernelLogLimits& limits,
                              const std::string& dmesg_restrict_path) {
    KernelLogRead out;
    out.path = path;
    out.dmesg_restrict = read_dmesg_restrict(dmesg_restrict_path);
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        out.error_number = errno;
        out.reason = unreadable_reason(out);
        return out;
    }
    const auto deadline = std::chrono::steady_clock::now() + limits.max_time;
    std::string buffer(k_read_buffer_bytes, '\0');
    std::string pending;
    std::size_t total = 0;
    out.readable = true;
    for (;;) {
        if (out.records.size() >= limits.max_records) {
            out.cut_short = true;
            out.limit = "records";
            break;
        }
        if (total >= limits.max_bytes) {
            out.cut_short = true;
            out.limit = "bytes";
            break;
        }
        if (std::chrono::steady_clock::now() >= deadline) {
            out.cut_short = true;
            out.limit = "time";
            break;
        }
        const ssize_t n = ::read(fd, buffer.data(), buffer.size());
        if (n > 0) {
            total += static_cast<std::size_t>(n);
            pending.append(buffer.data(), static_cast<std::size_t>(n));
            take_records(pending, false, limits, out);
            continue;
        }
        if (n == 0 || errno == EAGAIN) {
            break;  // the end of a file, or every record the ring holds now
        }
        if (errno == EINTR) {
            continue;
        }
        if (errno == EPIPE) {
            ++out.overwritten;  // the ring overwrote records we had not read; the next read goes on
            continue;
        }
        out.error_number = errno;
        if (out.records.empty()) {
            out.readable = false;  // e.g. EPERM at the first read under a security module
            out.reason = unreadable_reason(out);
        } else {
            out.cut_short = true;
            out.limit = std::string("read error: ") + std::strerror(out.error_number);
        }
        break;
    }
    ::close(fd);
    take_records(pending, true, limits, out);
    return out;
}

}  // namespace gpuconform
