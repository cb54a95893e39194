// The part of a run that needs GPU runtimes: a worker per backend module reports what the
// runtime sees; device checks then run in one worker per device, each with a time limit, on
// every device at once where the check allows it; node checks (peers) run once per backend.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/check.hpp"
#include "runner/runner.hpp"
#include "runner/worker.hpp"

namespace gpuconform {

class DevicePhase {
public:
    using Record = std::function<void(CheckResult)>;
    DevicePhase(const Environment& env, const Profile& profile, const RunOptions& options, const RunRequest& request,
                Record record);

    // Starts the backend's worker and keeps what it reported (loaded or not).
    void add_backend(const std::string& name, const std::string& module_options);
    std::vector<BackendInfo> backends() const;

    // The first --device index no backend has, or -1.
    int validate_devices() const;
    std::string describe_devices() const;

    void run_device_checks(const std::vector<const CheckDef*>& checks);

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

    const Environment& m_env;
    const Profile& m_profile;
    const RunOptions& m_options;
    const RunRequest& m_request;
    Record m_record;
    std::vector<Slot> m_slots;
};

}  // namespace gpuconform
