// async.copy.pageable_behaviour: pageable async copies "might be synchronous" (CUDA) or "will be
// performed synchronously" (HIP header): documented-may, so each is classified and reported,
// never failed — except wrong data after synchronize, which no document allows.
#include <fmt/format.h>

#include "async/async_checks.hpp"
#include "async/copy_common.hpp"

namespace gpuconform {

namespace {

void run(CheckContext& ctx, CheckResult& r) {
    using namespace async;
    Backend& b = *ctx.backend;
    Stream s(b, StreamKind::NonBlocking);
    warm_up(b, s);
    const std::uint64_t gate = gate_ns(ctx, r);
    std::string line;
    std::uint64_t wrong = 0;
    bool any_error_code = false;
    bool undecided = false;
    for (const CopyKind kind : {CopyKind::HostToDevice, CopyKind::DeviceToHost}) {
        for (const std::size_t bytes :
             sweep_sizes(ctx.options.quick, {64u << 10, 1u << 20, 4u << 20, 64u << 20}, {64u << 10, 16u << 20})) {
            const auto c = gated_copy(b, s, kind, HostKind::Pageable, bytes, gate, buffers_of(ctx));
            record_gated_copy(r, c);
            wrong += c.wrong_words;
            any_error_code = any_error_code || !c.call.call_result.ok();
            undecided = undecided || (c.call.call_result.ok() && c.klass == CallClass::Undecided);
            line += fmt::format("{}{} {}: {}", line.empty() ? "" : "; ", direction_label(kind), size_label(bytes),
                                c.call.call_result.ok() ? to_string(c.klass) : c.call.call_result.name);
        }
    }
    if (wrong != 0) {
        r.status = Status::Fail;
        r.summary = fmt::format("pageable copies delivered wrong data after synchronize ({} words): {}", wrong, line);
        r.remediation = "data corruption on a plain copy: check dmesg for Xid/IOMMU errors and the driver";
        return;
    }
    if (undecided) {
        r.status = Status::Error;
        r.summary =
            "could not classify every copy: the queued spin had ended (or its launch waited for it) before the "
            "call returned; see async.launch.returns_early. " +
            line;
        return;
    }
    r.status = Status::Info;
    r.summary = fmt::format(
        "{}{}", line,
        any_error_code ? "" : " — every call returned success (no cudaErrorInvalidValue for pageable memory)");
}

}  // namespace

CheckDef make_async_copy_pageable_behaviour() {
    CheckDef d;
    d.id = "async.copy.pageable_behaviour";
    d.profile_keys = {
        keys::ms("gate_ms"),
    };
    d.informational = true;  // a reading: info, never pass
    d.measurements = {
        measure::diagnostic("call_ms_*", Direction::None, 0.50),
    };
    d.caught_by = {"launch_blocks", "copies_corrupt"};
    d.timing_sensitive = false;  // when a pageable copy returns, not how fast
    d.rests_on_asynchrony = true;
    d.layer = "async";
    d.description = "Pageable H2D/D2H async copies classified: returned early, waited then staged, or synchronous";
    d.scope = Scope::Device;
    d.timeout_s = 30;
    d.run = run;
    return d;
}

}  // namespace gpuconform
