// Finding Xid, SXid and amdgpu events in log records; their classes are in xid_catalog.cpp.
#include <cctype>
#include <charconv>
#include <cstdio>

#include "core/utf8.hpp"
#include "health/xid_catalog.hpp"

namespace gpuconform {
namespace {

std::string_view skip_spaces(std::string_view s) {
    while (!s.empty() && s.front() == ' ') {
        s.remove_prefix(1);
    }
    return s;
}

// "<tag> (<device>): <code>, <rest>" after `tag`; false when the shape does not fit.
bool split_coded(std::string_view message, std::string_view tag, std::string& device, int& code,
                 std::string_view& rest) {
    const auto at = message.find(tag);
    if (at == std::string_view::npos) {
        return false;
    }
    auto s = skip_spaces(message.substr(at + tag.size()));
    if (s.empty() || s.front() != '(') {
        return false;
    }
    const auto close = s.find(')');
    if (close == std::string_view::npos) {
        return false;
    }
    device = std::string(s.substr(1, close - 1));
    s = s.substr(close + 1);
    if (s.empty() || s.front() != ':') {
        return false;
    }
    s = skip_spaces(s.substr(1));
    auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), code);
    if (ec != std::errc() || ptr == s.data()) {
        return false;
    }
    rest = skip_spaces(s.substr(static_cast<std::size_t>(ptr - s.data())));
    if (!rest.empty() && rest.front() == ',') {
        rest = skip_spaces(rest.substr(1));
    }
    return true;
}

// amdgpu names its device as the dev_printk prefix: "amdgpu 0000:08:00.0: GPU reset begin!".
std::string amdgpu_device(std::string_view message) {
    const auto at = message.find("amdgpu ");
    if (at == std::string_view::npos) {
        return "";
    }
    auto s = message.substr(at + 7);
    const auto colon_space = s.find(": ");
    if (colon_space > 16) {  // not found (npos) or too far for a PCI address
        return "";
    }
    return normalize_bdf(s.substr(0, colon_space));
}

}  // namespace

std::string normalize_bdf(std::string_view bdf) {
    if (bdf.substr(0, 4) == "PCI:" || bdf.substr(0, 4) == "pci:") {
        bdf.remove_prefix(4);
    }
    const auto dot = bdf.find('.');
    if (dot != std::string_view::npos) {
        bdf = bdf.substr(0, dot);
    }
    unsigned domain = 0;
    unsigned bus = 0;
    unsigned device = 0;
    const auto first = bdf.find(':');
    const auto last = bdf.rfind(':');
    if (first == std::string_view::npos) {
        return "";
    }
    auto hex = [](std::string_view t, unsigned& out) {
        auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), out, 16);
        return ec == std::errc() && ptr == t.data() + t.size() && !t.empty();
    };
    const bool ok = first == last
                        ? hex(bdf.substr(0, first), bus) && hex(bdf.substr(first + 1), device)
                        : hex(bdf.substr(0, first), domain) && hex(bdf.substr(first + 1, last - first - 1), bus) &&
                              hex(bdf.substr(last + 1), device);
    if (!ok || domain > 0xffff || bus > 0xff || device > 0x1f) {
        return "";
    }
    char out[16];
    std::snprintf(out, sizeof out, "%04x:%02x:%02x", domain, bus, device);
    return out;
}

std::optional<GpuEvent> parse_gpu_event(const KernelLogRecord& record) {
    // Only the kernel logs with facility 0: a line any process wrote into /dev/kmsg (facility 1 or
    // above, the kernel refuses 0 from user space) could otherwise fail a GPU with a forged Xid.
    if (record.facility != 0) {
        return std::nullopt;
    }
    const std::string_view m = record.message;
    GpuEvent e;
    e.seconds_since_boot = record.seconds_since_boot;
    std::string device;
    std::string_view rest;
    if (split_coded(m, "SXid", device, e.code, rest)) {
        // Follow-up lines repeat the code with the details ("Severity 5 ...", "Data {...}").
        if (rest.substr(0, 8) == "Severity" || rest.substr(0, 4) == "Data") {
            return std::nullopt;
        }
        e.source = GpuEventSource::NvswitchSxid;
        e.what = classify_sxid(e.code, rest);
    } else if (split_coded(m, "NVRM: Xid", device, e.code, rest)) {
        e.source = GpuEventSource::NvidiaXid;
        e.what = classify_xid(e.code, rest);
    } else if (m.find("amdgpu") != std::string_view::npos) {
        auto c = classify_amdgpu(m);
        if (!c) {
            return std::nullopt;
        }
        e.source = GpuEventSource::Amdgpu;
        e.what = std::move(*c);
        e.bdf = amdgpu_device(m);
        e.message = to_valid_utf8(m);
        return e;
    } else {
        return std::nullopt;
    }
    e.bdf = normalize_bdf(device);
    e.message = to_valid_utf8(m);
    return e;
}

std::vector<GpuEvent> find_gpu_events(const std::vector<KernelLogRecord>& records) {
    std::vector<GpuEvent> out;
    for (const auto& r : records) {
        if (auto e = parse_gpu_event(r)) {
            out.push_back(std::move(*e));
        }
    }
    return out;
}

}  // namespace gpuconform
