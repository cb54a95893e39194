// async.copy.pinned_returns_early: pinned H2D and D2H async copies return while earlier work on
// the stream is still running. Documented-required ("should be fully asynchronous"): fail if not.
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
    std::vector<GatedCopy> copies;
    for (const std::size_t bytes : sweep_sizes(ctx.options.quick, {64u << 10, 16u << 20, 256u << 20}, {64u << 10, 16u << 20})) {
        for (const CopyKind kind : {CopyKind::HostToDevice, CopyKind::DeviceToHost}) {
            copies.push_back(gated_copy(b, s, kind, HostKind::Pinned, bytes, gate));
            record_gated_copy(r, copies.back());
        }
    }
    judge_must_return_early(r, copies, "pinned");
}

}  // namespace

CheckDef make_async_copy_pinned_returns_early() {
    CheckDef d;
    d.id = "async.copy.pinned_returns_early";
    d.layer = "async";
    d.description = "Pinned H2D/D2H async copies return while queued work runs (64 KiB, 16 MiB, 256 MiB)";
    d.scope = Scope::Device;
    d.timeout_s = 30;
    d.run = run;
    return d;
}

}  // namespace gpuconform
