// The part of a run that needs GPU runtimes: one worker per backend module reports what the
// runtime sees; device checks then run in that worker, one per device, each with a time limit.
#pragma once

#include <functional>
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
        std::unique_ptr<Worker> worker;
    };
    CheckResult run_one(Slot& slot, const CheckDef& def, int device);
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
