// Two documented cases of streams that must NOT wait for each other, one family:
// - async.stream.nonblocking_independent: streams created non-blocking do not synchronize with
//   the legacy default stream, so a tiny kernel on stream 0 finishes while a long spin on a
//   non-blocking stream still runs;
// - async.stream.per_thread_independent: the per-thread default stream synchronizes only with
//   the legacy one, so a tiny kernel on it finishes while a long spin on a blocking stream runs.
#include <fmt/format.h>

#include "async/async_checks.hpp"
#include "async/stream_ordering.hpp"

namespace gpuconform {

namespace {

struct Independence {
    StreamKind long_kind;    // where the long spin runs
    StreamHandle tiny;       // where the tiny kernel runs
    const char* tiny_label;  // "the legacy default stream"
    const char* long_label;  // "a non-blocking stream"
    const char* fail_meaning;
    const char* remediation;
};

void judge(CheckContext& ctx, CheckResult& r, const Independence& c) {
    if (!ctx.props.concurrent_kernels) {
        throw SkipCheck(
            "the device reports no concurrent kernel execution, so independent streams cannot be told "
            "apart by timing");
    }
    async::Stream long_stream(*ctx.backend, c.long_kind);
    const auto t = async::run_ordering_trials(ctx, r, long_stream, c.tiny, /*expect_wait=*/false);
    r.status = t.status;
    switch (t.status) {
        case Status::Pass:
            r.summary = fmt::format(
                "a kernel on {} finished in {:.2f} ms while a {:.0f} ms kernel ran on {} ({} of {} trials), "
                "as documented",
                c.tiny_label, t.tiny_median_ms, t.long_ms, c.long_label, t.independent, t.trials);
            break;
        case Status::Fail:
            r.summary = fmt::format("a kernel on {} waited for a {:.0f} ms kernel on {} ({} of {} trials): {}",
                                    c.tiny_label, t.long_ms, c.long_label, t.waited, t.trials, c.fail_meaning);
            r.remediation = c.remediation;
            break;
        default:
            async::explain_undecided(t, r);
            break;
    }
}

CheckDef make(const char* id, const char* description, Independence c) {
    CheckDef d;
    d.id = id;
    d.timing_sensitive = true;  // independence is judged from overlapping durations
    d.rests_on_asynchrony = true;
    d.layer = "async";
    d.description = description;
    d.scope = Scope::Device;
    d.timeout_s = 15;
    async::declare_ordering_trials(d);
    d.run = [c](CheckContext& ctx, CheckResult& r) { judge(ctx, r, c); };
    return d;
}

}  // namespace

CheckDef make_async_stream_nonblocking_independent() {
    CheckDef d =
        make("async.stream.nonblocking_independent",
             "A kernel on the legacy default stream does not wait for a non-blocking stream",
             {StreamKind::NonBlocking, k_legacy_stream, "the legacy default stream", "a non-blocking stream",
              "non-blocking streams are not independent here",
              "overlap that relies on cudaStreamNonBlocking/hipStreamNonBlocking is lost: check CUDA_LAUNCH_BLOCKING, "
              "AMD_SERIALIZE_KERNEL and whether the device runs kernels concurrently"});
    d.caught_by = {"launch_blocks", "no_overlap"};
    return d;
}

CheckDef make_async_stream_per_thread_independent() {
    CheckDef d = make("async.stream.per_thread_independent",
                      "A kernel on the per-thread default stream does not wait for a blocking stream",
                      {StreamKind::Blocking, k_per_thread_stream, "the per-thread default stream", "a blocking stream",
                       "it behaves like the legacy stream",
                       "programs built with --default-stream per-thread lose their concurrency here: check "
                       "CUDA_LAUNCH_BLOCKING, AMD_SERIALIZE_KERNEL and the runtime's per-thread stream support"});
    d.caught_by = {"launch_blocks", "no_overlap"};
    return d;
}

}  // namespace gpuconform
