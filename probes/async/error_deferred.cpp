// Where and when errors surface: (a) an invalid launch configuration, (b) a kernel that faults.
// An error that is never reported is a fail (work silently lost). Runs isolated: the fault
// leaves the context unusable, and the runner throws this worker away afterwards.
#include <fmt/format.h>

#include "async/async_checks.hpp"
#include "async/judges.hpp"

namespace gpuconform {

namespace {

struct Surfaced {
    std::string where;    // launch call, last_error, synchronize, device synchronize, never
    std::string name;     // the error's name where it surfaced
    bool sticky = false;  // later, unrelated work failed too
};

Surfaced first_error(const ApiResult& launch, const ApiResult& last, const ApiResult& sync) {
    const std::string where = async::where_surfaced(launch, last, sync);
    const ApiResult& e = !launch.ok() ? launch : (!last.ok() ? last : sync);
    return {where, e.ok() ? "" : e.name};
}

std::string describe(const Surfaced& e) {
    return e.where == "never" ? "never reported" : fmt::format("{} at {}", e.name, e.where);
}

// (a) An invalid launch; then whether the stream still runs work (the error was not sticky).
Surfaced invalid_launch(Backend& b, StreamHandle s, CheckResult& r) {
    const ApiResult launch = b.launch_invalid(s);
    const ApiResult last = b.last_error();
    const ApiResult sync = b.stream_synchronize(s);
    b.last_error();  // drain: the next call must not see this error again
    Surfaced e = first_error(launch, last, sync);
    e.sticky = !(b.launch_spin(s, 1000).ok() && b.stream_synchronize(s).ok() && b.last_error().ok());
    r.facts["invalid_launch"] = {{"surfaced_at", e.where}, {"error", e.name}, {"stream_still_works", !e.sticky}};
    return e;
}

// (b) A faulting kernel: the launch, then synchronize, then an unrelated later call (sticky?).
Surfaced faulting_kernel(Backend& b, StreamHandle s, CheckResult& r) {
    const ApiResult launch = b.launch_fault(s);
    const ApiResult sync = b.stream_synchronize(s);
    // Not every runtime reports the fault on the stream: look once more, device-wide.
    const ApiResult later_sync = sync.ok() ? b.device_synchronize() : sync;
    Surfaced e = first_error(launch, ApiResult{}, later_sync);
    if (sync.ok() && !later_sync.ok()) {
        e.where = "device synchronize";
    }
    void* p = nullptr;
    const ApiResult later = b.device_alloc(4096, &p);
    if (later.ok()) {
        b.device_free(p);
    }
    e.sticky = !later.ok();
    r.facts["fault"] = {{"launch_result", launch.ok() ? "success" : launch.name},
                        {"synchronize_result", sync.ok() ? "success" : sync.name},
                        {"surfaced_at", e.where},
                        {"error", e.name},
                        {"sticky", e.sticky},
                        {"later_call_result", later.ok() ? "success" : later.name}};
    return e;
}

void run(CheckContext& ctx, CheckResult& r) {
    Backend& b = *ctx.backend;
    async::Stream s(b, StreamKind::NonBlocking);
    async::warm_up(b, s);
    const Surfaced invalid = invalid_launch(b, s, r);
    const Surfaced fault = faulting_kernel(b, s, r);
    const std::string seen = fmt::format("invalid launch: {}; faulting kernel: {}{}", describe(invalid),
                                         describe(fault), fault.sticky ? " (sticky: later calls fail too)" : "");
    if (invalid.where == "never" || fault.where == "never") {
        r.status = Status::Fail;
        r.summary =
            fmt::format("an error was swallowed: {} was never reported; {}",
                        invalid.where == "never" ? "an invalid launch" : "a kernel's illegal memory access", seen);
        r.remediation =
            "failed work is reported as success on this install: report the driver and runtime "
            "versions; check for a debugger, profiler or interposer hiding errors";
    } else if (invalid.sticky) {
        r.status = Status::Warn;
        r.summary = "an invalid launch configuration left the stream unusable (it should not be sticky); " + seen;
        r.remediation = "a recoverable launch error poisons the context here: report the driver and runtime versions";
    } else {
        r.status = Status::Pass;
        r.summary = "errors surface where documented; " + seen;
    }
}

}  // namespace

CheckDef make_async_error_deferred() {
    CheckDef d;
    d.id = "async.error.deferred";
    d.caught_by = {"errors_swallowed"};
    d.timing_sensitive = false;  // error semantics
    d.rests_on_error_reporting = true;
    d.layer = "async";
    d.description = "An invalid launch and an in-kernel fault: where each error surfaces, and whether it sticks";
    d.scope = Scope::Device;
    d.isolated = true;
    d.timeout_s = 20;
    d.run = run;
    return d;
}

}  // namespace gpuconform
