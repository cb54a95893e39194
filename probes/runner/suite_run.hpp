// One `gpuconform run`, phase by phase (suite_run.cpp lists the phases in their order).
#pragma once

#include <chrono>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/check.hpp"
#include "core/phase_log.hpp"
#include "framework/framework_layer.hpp"
#include "framework/python_choice.hpp"
#include "health/health_reading.hpp"
#include "runner/causes.hpp"
#include "runner/device_phase.hpp"
#include "runner/health_phase.hpp"
#include "runner/host_checks.hpp"
#include "runner/output.hpp"
#include "runner/report.hpp"
#include "runner/runner.hpp"
#include "runner/terminal.hpp"

namespace gpuconform {

class SuiteRun {
public:
    explicit SuiteRun(const RunRequest& request);
    ~SuiteRun();
    SuiteRun(const SuiteRun&) = delete;
    SuiteRun& operator=(const SuiteRun&) = delete;

    // The whole run; the process exit status (README, "gpuconform run").
    int run();

private:
    using Record = std::function<void(CheckResult)>;
    Record recorder();  // prints a result and keeps it for the report

    std::string refuse_bad_input();  // "" or why nothing may run
    void start_framework();
    void settle_python_choice();
    std::string sim_memory_problem() const;
    void start_host_checks();
    void start_backends();
    void read_health();
    void run_backend_checks();
    void run_device_checks();
    void finish_framework();
    void read_health_growth();
    void assemble_report();
    int write_report();
    FrameworkOptions framework_options(const std::string& python) const;

    const RunRequest& m_req;
    const std::chrono::steady_clock::time_point m_t0;
    PhaseLog m_phases;
    const std::vector<const CheckDef*> m_checks;
    bool m_needs_backends = false;      // a backend, device or node check was selected
    bool m_framework_selected = false;  // the framework layer is chosen and --only reaches it
    RunRecord m_run;
    Profile m_profile;
    RunOptions m_options;
    ReportOutput m_output;
    std::FILE* m_term = stdout;
    std::unique_ptr<TerminalView> m_view;
    PythonChoice m_python;
    std::unique_ptr<PythonProbes> m_python_probes;  // from start_framework until the choice is settled
    PhaseLog::Clock::time_point m_python_choice_start;
    std::string m_started_python;  // the Python pytest was started with before the choice settled
    std::unique_ptr<FrameworkRun> m_framework;
    std::unique_ptr<HostChecks> m_host_checks;
    std::unique_ptr<DevicePhase> m_device_phase;
    bool m_backends_started = false;
    std::vector<std::unique_ptr<HealthReader>> m_health;
    std::vector<NodeHealth> m_health_before;
    bool m_health_read = false;
    std::vector<Cause> m_causes;  // grouped when the report is assembled
};

}  // namespace gpuconform
