// A check: a stable id, a layer, where it runs, and one function that measures then judges.
// Adding a check is one file defining a `CheckDef make_...()` and its line in its layer's table.
#pragma once

#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "backend/backend.hpp"
#include "core/backend_info.hpp"
#include "core/environment.hpp"
#include "core/measure_meaning.hpp"
#include "core/profile.hpp"
#include "core/profile_keys.hpp"
#include "core/result.hpp"

namespace gpuconform {

class BufferCache;
class OccupancySampler;
struct NodeHealth;  // health/health_reading.hpp

enum class Scope {
    Host,     // runs in the parent process; no GPU runtime
    Backend,  // once per backend module, judged in the parent from what its worker reported
    Device,   // once per visible device of each backend, in a worker child process
    Node,     // once per backend across all its devices (peer checks), in a worker child process
    // The health layer, in the parent, judged from one reading per vendor made without any GPU
    // runtime (runner/health_phase.hpp):
    Gpu,      // once per GPU the reading holds
    GpuNode,  // once per vendor's set of GPUs (inventory)
};

struct RunOptions {
    bool quick = false;             // fewer sizes and repetitions
    double timeout_override_s = 0;  // > 0: every device check gets this limit (selftest)
    std::vector<int> devices;       // what --device chose; empty: every device
    double budget_s = 0;            // the acceptance layer's time (--budget), shared by its checks' budget_share
};

// True when --device chose `device` (or chose nothing, which means all).
bool device_chosen(const RunOptions& options, int device);
// True when --device chose only some of a backend's `count` devices.
bool some_devices_chosen(const RunOptions& options, int count);

struct CheckContext {
    const Environment& env;
    const Profile& profile;
    const RunOptions& options;
    Backend* backend = nullptr;                   // the live backend, for Scope::Device (in the worker)
    const BackendInfo* backend_info = nullptr;    // for Scope::Backend and Scope::Device
    int device = -1;                              // valid for Scope::Device
    DeviceProps props;                            // valid for Scope::Device
    const OccupancySampler* occupancy = nullptr;  // for checks with in_parent
    BufferCache* buffers = nullptr;               // the worker's buffers kept across checks; null: allocate fresh
    // Scope::Gpu and GpuNode: the vendor's reading; for Gpu, `device` is the position in its gpus.
    const NodeHealth* health = nullptr;

    // Expectation value for this check, resolved for this device's vendor and arch;
    // records what was used into result.expectation.
    double expect(CheckResult& result, const std::string& key) const;
    std::optional<double> expect_optional(CheckResult& result, const std::string& key) const;
};

struct CheckDef {
    std::string id;           // layer.area.name
    std::string layer;        // host, health, runtime, async, framework
    std::string description;  // one line, for `gpuconform list`
    Scope scope = Scope::Host;
    std::string backend;      // Scope::Backend: the one backend this check judges
    bool isolated = false;    // runs after every other device check; its worker is discarded after it (sticky errors)
    double timeout_s = 10.0;  // per device
    bool quick = true;        // part of --quick
    bool parallel_devices = false;  // may run on every device at once (touches no shared host path)
    // Measurements compared across sibling GPUs of one node (same model): a device far below the
    // siblings' median fails even when it meets the absolute expectation.
    std::vector<std::string> sibling_keys;
    // Device and Node checks must decide: true when the verdict rests on timing another GPU user
    // can disturb (bandwidth, overlap, concurrency, launch depth); false when it does not (a copy
    // returning early, event order, error semantics). Unset is a bug that a test catches.
    std::optional<bool> timing_sensitive;
    // What else the verdict rests on, so that a variable that takes it away (host/gpu_env_vars.cpp)
    // explains this check's failure without naming it: calls returning before their work ends or
    // work overlapping (CUDA_LAUNCH_BLOCKING serializes both), and errors being reported where the
    // documentation says (a debugger's core dump on exception stops the process instead).
    bool rests_on_asynchrony = false;
    bool rests_on_error_reporting = false;
    // A reading, not a requirement: on a working install its verdict is `info`, never `pass` (it
    // may still warn, and wrong data still fails). Every other check of the device and health
    // layers passes on a conforming simulated device, which a test holds.
    bool informational = false;
    // Runs in the parent with the occupancy sampler instead of in a worker (async.device.occupancy).
    bool in_parent = false;
    // The selftest scenarios (by name: `gpuconform selftest --list-faults`) whose fault must trip
    // this check, fail or error; "name@K" means its result on device K. The selftest's table of
    // what each fault trips is made from these lists, so a check and the faults that prove it live
    // in one file. A device check with none is proven by nothing, which a test refuses.
    std::vector<std::string> caught_by;
    // The acceptance layer: this check's share of --budget (RunOptions::budget_s). It plans its work
    // to end within it; its time limit is the share and a margin (DevicePhase::timeout_for).
    double budget_share = 0;
    // What the check owns: the profile keys it reads (ctx.expect), and what each measurement it
    // records means. checks/declarations.hpp gathers them; nothing else lists them.
    std::vector<KeySpec> profile_keys;
    std::vector<MeasureSpec> measurements;
    std::function<void(CheckContext&, CheckResult&)> run;
};

// A vendor call that failed: the runner turns it into an `error` result with the message.
class ApiError : public std::runtime_error {
public:
    ApiError(const ApiResult& r, const char* expr, const char* file, int line);
    ApiResult result;
};

// Evaluates a backend call; throws ApiError carrying the error name, the expression and file:line.
#define GC_CHECK(expr)                                                           \
    do {                                                                         \
        const ::gpuconform::ApiResult gc_result_ = (expr);                       \
        if (!gc_result_.ok()) {                                                  \
            throw ::gpuconform::ApiError(gc_result_, #expr, __FILE__, __LINE__); \
        }                                                                        \
    } while (0)

// Data that was wrong after a synchronize: a broken promise whatever the check was measuring.
// The one rule for every check: the runner records `fail` with the message (never `error`).
class WrongData : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Thrown by a check that cannot decide; the runner records `skip` with the reason.
class SkipCheck : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

const std::vector<CheckDef>& all_checks();
const CheckDef* find_check(const std::string& id);

}  // namespace gpuconform
