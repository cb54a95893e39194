// async.copy.registered_returns_early: a malloc'd buffer after HostRegister behaves as pinned.
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
    for (const CopyKind kind : {CopyKind::HostToDevice, CopyKind::DeviceToHost}) {
        copies.push_back(gated_copy(b, s, kind, HostKind::Registered, 16u << 20, gate));
        record_gated_copy(r, copies.back());
    }
    judge_must_return_early(r, copies, "registered (malloc + HostRegister)");
}

}  // namespace

CheckDef make_async_copy_registered_returns_early() {
    CheckDef d;
    d.id = "async.copy.registered_returns_early";
    d.layer = "async";
    d.description = "A malloc'd buffer after HostRegister copies asynchronously, like pinned memory";
    d.scope = Scope::Device;
    d.timeout_s = 20;
    d.run = run;
    return d;
}

}  // namespace gpuconform
