// The per-thread default stream does not synchronize with other streams (only with the legacy
// one): a tiny kernel on it must finish while a long spin on a blocking stream still runs.
#include <fmt/format.h>

#include "async/async_checks.hpp"
#include "async/timing_pair.hpp"

namespace gpuconform {

namespace {

void run(CheckContext& ctx, CheckResult& r) {
    if (!ctx.props.concurrent_kernels) {
        throw SkipCheck("the device reports no concurrent kernel execution, so independent streams cannot be told "
                        "apart by timing");
    }
    async::Stream blocking(*ctx.backend, StreamKind::Blocking);
    const auto t = async::run_ordering_trials(ctx, r, blocking, k_per_thread_stream, /*expect_wait=*/false);
    r.status = t.status;
    switch (t.status) {
    case Status::Pass:
        r.summary = fmt::format("a kernel on the per-thread default stream finished in {:.2f} ms while a {:.0f} ms "
                                "kernel ran on a blocking stream ({} of {} trials), as documented",
                                t.tiny_median_ms, t.long_ms, t.independent, t.trials);
        break;
    case Status::Fail:
        r.summary = fmt::format("a kernel on the per-thread default stream waited for a {:.0f} ms kernel on a "
                                "blocking stream ({} of {} trials): it behaves like the legacy stream",
                                t.long_ms, t.waited, t.trials);
        r.remediation = "programs built with --default-stream per-thread lose their concurrency here: check "
                        "CUDA_LAUNCH_BLOCKING, AMD_SERIALIZE_KERNEL and the runtime's per-thread stream support";
        break;
    default:
        async::explain_undecided(t, r);
        break;
    }
}

}  // namespace

CheckDef make_async_stream_per_thread_independent() {
    CheckDef d;
    d.id = "async.stream.per_thread_independent";
    d.layer = "async";
    d.description = "A kernel on the per-thread default stream does not wait for a blocking stream";
    d.scope = Scope::Device;
    d.timeout_s = 15;
    d.run = run;
    return d;
}

}  // namespace gpuconform
