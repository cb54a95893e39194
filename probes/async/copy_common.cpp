#include "async/copy_common.hpp"

#include <fmt/format.h>

namespace gpuconform::async {

std::string direction_label(CopyKind kind) {
    switch (kind) {
        case CopyKind::HostToDevice:
            return "H2D";
        case CopyKind::DeviceToHost:
            return "D2H";
        case CopyKind::DeviceToDevice:
            return "D2D";
    }
    return "?";
}

GatedCopy gated_copy(Backend& b, StreamHandle stream, CopyKind kind, HostKind host, std::size_t bytes,
                     std::uint64_t gate, BufferSource from) {
    GatedCopy c;
    c.kind = kind;
    c.host = host;
    c.bytes = bytes;
    HostBuffer h(b, bytes, host, from);
    DeviceBuffer d(b, bytes, from);
    const std::uint32_t seed = fresh_seed();
    if (kind == CopyKind::HostToDevice) {
        h.fill(seed);
        GC_CHECK(b.launch_fill(stream, d.data(), d.words(), seed ^ 0x5a5a5a5au));  // stale data differs
        GC_CHECK(b.stream_synchronize(stream));
        c.call = gated_call(b, stream, gate, [&] { return b.memcpy_async(d.data(), h.data(), bytes, kind, stream); });
        c.wrong_words = device_mismatches(b, stream, d, seed);
    } else {
        h.fill(seed ^ 0x5a5a5a5au);
        GC_CHECK(b.launch_fill(stream, d.data(), d.words(), seed));
        GC_CHECK(b.stream_synchronize(stream));
        c.call = gated_call(b, stream, gate, [&] { return b.memcpy_async(h.data(), d.data(), bytes, kind, stream); });
        c.wrong_words = h.mismatches(seed);
    }
    c.klass = classify(c.call);
    return c;
}

void record_gated_copy(CheckResult& r, const GatedCopy& c) {
    const auto key = fmt::format("{}_{}_{}", to_string(c.host), direction_label(c.kind), size_label(c.bytes));
    r.measurements.push_back({"call_ms_" + key, c.call.call_ms, "ms", 1, {}, {}});
    r.facts["copies"].push_back({{"host", to_string(c.host)},
                                 {"direction", direction_label(c.kind)},
                                 {"bytes", c.bytes},
                                 {"class", to_string(c.klass)},
                                 {"return_code", c.call.call_result.ok() ? "success" : c.call.call_result.name},
                                 {"call_ms", c.call.call_ms},
                                 {"gate_ms", c.call.gate_ms},
                                 {"queue_busy_after_call", c.call.queue_busy},
                                 {"wrong_words_after_sync", c.wrong_words}});
}

std::vector<std::size_t> sweep_sizes(bool quick, const std::vector<std::size_t>& full,
                                     const std::vector<std::size_t>& quick_sizes) {
    return quick ? quick_sizes : full;
}

void judge_must_return_early(CheckResult& r, const std::vector<GatedCopy>& copies, const std::string& what) {
    std::string waited;
    std::string wrong;
    std::string undecided;
    std::string failed_call;
    double slowest = 0;
    for (const auto& c : copies) {
        const auto label = fmt::format("{} {}", direction_label(c.kind), size_label(c.bytes));
        slowest = std::max(slowest, c.call.call_ms);
        if (!c.call.call_result.ok()) {
            failed_call += fmt::format("{}{} → {}", failed_call.empty() ? "" : ", ", label, c.call.call_result.name);
        } else if (c.wrong_words != 0) {
            wrong += fmt::format("{}{} ({} words)", wrong.empty() ? "" : ", ", label, c.wrong_words);
        } else if (c.klass == CallClass::Undecided) {
            undecided += (undecided.empty() ? "" : ", ") + label;
        } else if (c.klass != CallClass::ReturnedEarly) {
            waited += fmt::format("{}{} ({:.1f} ms, {})", waited.empty() ? "" : ", ", label, c.call.call_ms,
                                  to_string(c.klass));
        }
    }
    if (!failed_call.empty()) {
        r.status = Status::Fail;
        r.summary = fmt::format("{} async copies returned an error: {}", what, failed_call);
    } else if (!wrong.empty()) {
        r.status = Status::Fail;
        r.summary = fmt::format("{} copies delivered wrong data after synchronize: {}", what, wrong);
        r.remediation =
            "data corruption on a plain copy: check dmesg for Xid/IOMMU errors, the PCIe link, and the driver";
    } else if (!waited.empty()) {
        r.status = Status::Fail;
        r.summary = fmt::format("{} async copies did not return early: {}", what, waited);
        r.remediation =
            "documented to be fully asynchronous; check CUDA_LAUNCH_BLOCKING / HIP_LAUNCH_BLOCKING / "
            "AMD_SERIALIZE_COPY in the environment, then the driver and runtime versions";
    } else if (!undecided.empty()) {
        r.status = Status::Error;
        r.summary = fmt::format(
            "could not judge {}: the queued spin had finished when the call returned ({}); "
            "raise gate_ms in the profile",
            what, undecided);
    } else {
        r.status = Status::Pass;
        r.summary = fmt::format(
            "all {} {} copies returned while queued work was running (slowest call {:.3f} ms); data verified",
            copies.size(), what, slowest);
    }
}

}  // namespace gpuconform::async
