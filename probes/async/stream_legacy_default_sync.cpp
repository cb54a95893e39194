// The legacy default stream waits for work on blocking streams (CUDA stream-sync-behavior; HIP's
// null stream likewise): a tiny kernel on it, behind a long spin on a blocking stream, must wait.
#include <fmt/format.h>

#include "async/async_checks.hpp"
#include "async/stream_ordering.hpp"

namespace gpuconform {

namespace {

void run(CheckContext& ctx, CheckResult& r) {
    async::Stream blocking(*ctx.backend, StreamKind::Blocking);
    const auto t = async::run_ordering_trials(ctx, r, blocking, k_legacy_stream, /*expect_wait=*/true);
    r.status = t.status;
    switch (t.status) {
        case Status::Pass:
            r.summary = fmt::format(
                "the legacy default stream waited for a {:.0f} ms kernel on a blocking stream "
                "({:.1f} ms, {} of {} trials), as documented",
                t.long_ms, t.tiny_median_ms, t.waited, t.trials);
            break;
        case Status::Fail:
            r.summary = fmt::format(
                "legacy default stream did not synchronize with a blocking stream: a tiny kernel "
                "finished while a {:.0f} ms kernel still ran ({} of {} trials)",
                t.long_ms, t.independent, t.trials);
            r.remediation =
                "code relying on stream 0 to order work with other streams will race here: check that "
                "nothing builds with --default-stream per-thread, and report the driver/runtime versions";
            break;
        default:
            async::explain_undecided(t, r);
            break;
    }
}

}  // namespace

CheckDef make_async_stream_legacy_default_sync() {
    CheckDef d;
    d.id = "async.stream.legacy_default_sync";
    async::declare_ordering_trials(d);
    d.caught_by = {"launch_blocks", "default_stream_no_sync", "cotenant+default_stream_no_sync"};
    d.timing_sensitive = false;  // ordering semantics: a gated stream must wait
    d.rests_on_asynchrony = true;
    d.layer = "async";
    d.description = "A kernel on the legacy default stream waits for a long kernel on a blocking stream";
    d.scope = Scope::Device;
    d.timeout_s = 15;
    d.run = run;
    return d;
}

}  // namespace gpuconform
