// Streams created non-blocking do not synchronize with the legacy default stream: a tiny kernel
// on stream 0 must finish while a long spin on a non-blocking stream still runs.
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
    async::Stream nonblocking(*ctx.backend, StreamKind::NonBlocking);
    const auto t = async::run_ordering_trials(ctx, r, nonblocking, k_legacy_stream, /*expect_wait=*/false);
    r.status = t.status;
    switch (t.status) {
    case Status::Pass:
        r.summary = fmt::format("a kernel on the legacy default stream finished in {:.2f} ms while a {:.0f} ms kernel "
                                "ran on a non-blocking stream ({} of {} trials), as documented",
                                t.tiny_median_ms, t.long_ms, t.independent, t.trials);
        break;
    case Status::Fail:
        r.summary = fmt::format("a kernel on the legacy default stream waited for a {:.0f} ms kernel on a non-blocking "
                                "stream ({} of {} trials): non-blocking streams are not independent here",
                                t.long_ms, t.waited, t.trials);
        r.remediation = "overlap that relies on cudaStreamNonBlocking/hipStreamNonBlocking is lost: check "
                        "CUDA_LAUNCH_BLOCKING, AMD_SERIALIZE_KERNEL and whether the device runs kernels concurrently";
        break;
    default:
        async::explain_undecided(t, r);
        break;
    }
}

}  // namespace

CheckDef make_async_stream_nonblocking_independent() {
    CheckDef d;
    d.id = "async.stream.nonblocking_independent";
    d.layer = "async";
    d.description = "A kernel on the legacy default stream does not wait for a non-blocking stream";
    d.scope = Scope::Device;
    d.timeout_s = 15;
    d.run = run;
    return d;
}

}  // namespace gpuconform
