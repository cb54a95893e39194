// The part of a run that needs GPU runtimes: a worker per backend module reports what the
// runtime sees; device checks then run in one worker per device, each with a time limit, on
// every device at once where the check allows it; node checks (peers) run once per backend.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "core/check.hpp"
#include "occupancy/occupancy.hpp"
#include "runner/runner.hpp"
#include "runner/worker.hpp"

namespace gpuconform {

class DevicePhase {
public:
    using Record = std::function<void(CheckResult)>;
    DevicePhase(const Environment& env, const Profile& profile, const RunOptions& options, const RunRequest& request,
                Record record);
    ~DevicePhase();
    DevicePhase(const DevicePhase&) = delete;
    DevicePhase& operator=(const DevicePhase&) = delete;

    // Every worker start from now on is stamped here (the run's phases).
    void set_phase_log(PhaseLog* phases) { m_phases = phases; }
    // Starts the backend's worker and keeps what it reported (loaded or not).
    void add_backend(const std::string& name, const std::string& module_options);
    std::vector<BackendInfo> backends() const;

    // The first --device index no backend has, or -1.
    int validate_devices() const;
    std::string describe_devices() const;

    // `measuring_done` (optional) is called once, when the checks left are isolated ones on the
    // last backend that runs: they fault on purpose and measure nothing, and their worker's end
    // (its context and pinned memory torn down, 0.1-0.3 s) is still to come.
    void run_device_checks(const std::vector<const CheckDef*>& checks,
                           const std::function<void()>& measuring_done = {});
    // The first reading of each GPU's other users (the environment's `gpu_occupancy`).
    const std::vector<GpuOccupancy>& first_occupancy() const { return m_first_occupancy; }

private:
    struct Slot {
        BackendInfo info;
        WorkerSetup setup;
        std::map<int, std::unique_ptr<Worker>> workers;  // by device
    };
    Worker& worker_for(Slot& slot, int device);
    double timeout_for(const CheckDef& def) const;
    CheckResult run_one(Slot& slot, const CheckDef& def, int device);
    std::vector<CheckResult> run_on_devices(Slot& slot, const CheckDef& def, const std::vector<int>& devices);
    void judge_siblings(const Slot& slot, const CheckDef& def, std::vector<CheckResult>& results) const;
    bool device_selected(int device) const;
    std::string why_no_devices() const;
    // busy_guard.cpp: the busy-GPU policy around timing-sensitive checks.
    std::vector<CheckResult> run_guarded(Slot& slot, const CheckDef& def, const std::vector<int>& devices);
    std::vector<CheckResult> run_unguarded(Slot& slot, const CheckDef& def, const std::vector<int>& devices);
    std::vector<CheckResult> run_in_parent(Slot& slot, const CheckDef& def, const std::vector<int>& devices);
    // `look_behind_own`: settle a busy reading that lists only us (occupancy.hpp); always done on a
    // GPU where a tenant the process list cannot show was seen in this run.
    GpuOccupancy sample(const Slot& slot, int device, bool look_behind_own = false);
    double wait_left(const Slot& slot, int device) const;
    // Polls until the GPU reads quiet or its wait budget ends; returns the last reading.
    GpuOccupancy wait_for_quiet(const Slot& slot, int device, GpuOccupancy last, double* waited_s);
    std::string add_cotenant(const std::string& module_options);

    const Environment& m_env;
    const Profile& m_profile;
    const RunOptions& m_options;
    const RunRequest& m_request;
    Record m_record;
    std::vector<Slot> m_slots;
    OccupancySampler m_sampler;
    std::string m_cotenant_dir;                // the sim co-tenant's folder, removed at the end
    std::map<std::string, double> m_waited_s;  // "backend:device" -> seconds waited so far
    std::vector<GpuOccupancy> m_first_occupancy;
    std::set<std::string> m_unlisted_tenant;  // "backend:device" where a busy GPU listed nobody else
    struct Reading {
        std::chrono::steady_clock::time_point at;
        GpuOccupancy occupancy;
    };
    std::map<std::string, Reading> m_last_reading;  // "backend:device" -> its latest reading
    PhaseLog* m_phases = nullptr;
};

}  // namespace gpuconform
