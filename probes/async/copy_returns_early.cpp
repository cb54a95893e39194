// Copies documented to be fully asynchronous, one family (CUDA's API synchronization behavior:
// pinned copies "should be fully asynchronous"; HIP's header says the same of pinned memory):
// - async.copy.pinned_returns_early: HostAlloc'd memory, H2D and D2H at 64 KiB, 16 MiB, 256 MiB;
// - async.copy.registered_returns_early: a malloc'd buffer after HostRegister, which must behave
//   as pinned memory, at 16 MiB.
// Each copy is gated: it must come back while a spin queued ahead of it still runs. Fail if not.
#include "async/async_checks.hpp"
#include "async/copy_common.hpp"

namespace gpuconform {

namespace {

using namespace async;

void judge(CheckContext& ctx, CheckResult& r, HostKind host, const std::vector<std::size_t>& sizes, const char* what) {
    Backend& b = *ctx.backend;
    Stream s(b, StreamKind::NonBlocking);
    warm_up(b, s);
    const std::uint64_t gate = gate_ns(ctx, r);
    std::vector<GatedCopy> copies;
    for (const std::size_t bytes : sizes) {
        for (const CopyKind kind : {CopyKind::HostToDevice, CopyKind::DeviceToHost}) {
            copies.push_back(gated_copy(b, s, kind, host, bytes, gate, buffers_of(ctx)));
            record_gated_copy(r, copies.back());
        }
    }
    judge_must_return_early(r, copies, what);
}

CheckDef make(const char* id, const char* description, double timeout_s,
              std::function<void(CheckContext&, CheckResult&)> run) {
    CheckDef d;
    d.id = id;
    d.timing_sensitive = false;  // a gated pinned copy returning early
    d.rests_on_asynchrony = true;
    d.layer = "async";
    d.description = description;
    d.scope = Scope::Device;
    d.timeout_s = timeout_s;
    // Both checks of this file read the same keys and record the same figures.
    d.profile_keys = {
        keys::ms("gate_ms"),
    };
    d.measurements = {
        measure::diagnostic("call_ms_*", Direction::Lower, 1.00),
        measure::diagnostic("return_ms", Direction::Lower, 1.00),
    };
    d.run = std::move(run);
    return d;
}

}  // namespace

CheckDef make_async_copy_pinned_returns_early() {
    CheckDef d = make("async.copy.pinned_returns_early",
                      "Pinned H2D/D2H async copies return while queued work runs (64 KiB, 16 MiB, 256 MiB)", 30,
                      [](CheckContext& ctx, CheckResult& r) {
                          const auto sizes = sweep_sizes(ctx.options.quick, {64u << 10, 16u << 20, 256u << 20},
                                                         {64u << 10, 16u << 20});
                          judge(ctx, r, HostKind::Pinned, sizes, "pinned");
                      });
    d.caught_by = {"pinned_copy_blocks",         "launch_blocks", "hang", "crash", "sticky_error", "copies_corrupt",
                   "cotenant+pinned_copy_blocks"};
    return d;
}

CheckDef make_async_copy_registered_returns_early() {
    CheckDef d = make("async.copy.registered_returns_early",
                      "A malloc'd buffer after HostRegister copies asynchronously, like pinned memory", 20,
                      [](CheckContext& ctx, CheckResult& r) {
                          judge(ctx, r, HostKind::Registered, {16u << 20}, "registered (malloc + HostRegister)");
                      });
    d.caught_by = {"pinned_copy_blocks", "launch_blocks", "copies_corrupt", "cotenant+pinned_copy_blocks"};
    return d;
}

}  // namespace gpuconform
