// The host layer's checks, run either here and now or on a thread beside the device checks.
// They read files and run host tools (a compile takes 1-2 s of one core) and need no GPU; a
// compile probe that does run on the GPU takes the GPU turn first (core/gpu_turn.hpp).
#pragma once

#include <functional>
#include <thread>
#include <vector>

#include "core/check.hpp"
#include "core/phase_log.hpp"

namespace gpuconform {

class HostChecks {
public:
    HostChecks(const std::vector<const CheckDef*>& checks, const Environment& env, const Profile& profile,
               const RunOptions& options);
    ~HostChecks();  // joins a thread still running (a run that ended early)
    HostChecks(const HostChecks&) = delete;
    HostChecks& operator=(const HostChecks&) = delete;

    void start();     // on a thread of its own
    void run_here();  // on this thread, now
    bool started() const { return m_started; }
    // Waits for them, stamps the "host.checks" phase and hands each result to `record` in check
    // order. Once; later calls do nothing.
    void finish(PhaseLog* phases, const std::function<void(CheckResult)>& record);

private:
    void run_all();

    std::vector<const CheckDef*> m_checks;
    const Environment& m_env;
    const Profile& m_profile;
    const RunOptions& m_options;
    std::vector<CheckResult> m_results;
    PhaseLog::Clock::time_point m_start{}, m_end{};
    std::thread m_thread;
    bool m_started = false;
    bool m_finished = false;
};

// One check of Scope::Host or Scope::Backend, in this process.
CheckResult run_host_check(const CheckDef& def, const Environment& env, const Profile& profile,
                           const RunOptions& options, const BackendInfo* info);

}  // namespace gpuconform
