// The `framework` layer: runs the pytest suite python_tests/framework with the Python it finds
// and reads back its results (already in the report's result shape) and torch's environment.
// Machinery failures (no python, no pytest, timeout, crash, bad output) become one result,
// framework.torch.build, with status skip or error — never an exception out of here.
#pragma once

#include <atomic>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/phase_log.hpp"
#include "core/result.hpp"
#include "core/child_process.hpp"

namespace gpuconform {

struct FrameworkOptions {
    std::string python;     // from choose_python() (framework/python_choice.hpp)
    std::string tests_dir;  // the python_tests folder (holds framework/ and pytest.ini)
    std::string only_glob;  // run only check ids matching these comma-separated globs; empty for all
    bool quick = false;
    std::string profile_json;  // the framework checks' values, every layer (Profile::layers_json); empty: none
    double timeout_s = 60;
    std::string work_dir;                     // where the exchange files go; empty: a temporary folder, removed after
    const std::atomic<bool>* stop = nullptr;  // raised by a stop signal: pytest's group is ended
};

struct FrameworkOutcome {
    std::vector<CheckResult> results;
    nlohmann::json torch;  // {version, cuda, hip, python}, or null when it could not be read
};

// Starts pytest and runs the layer at once (FrameworkRun::start, then finish).
FrameworkOutcome run_framework_layer(const FrameworkOptions& options, const std::vector<CheckResult>& native);

// A pytest child started ahead of its turn: Python, pytest, collection and `import torch` (which
// does not initialise CUDA) proceed while the native device checks run. The plugin blocks before
// it touches the GPU or reads the native results, until finish() writes "go" on the socket named
// by GPUCONFORM_GO_FD (allow_gpu_start() may write "gpu" before it); an end of file instead ends
// it at once.
class FrameworkRun {
public:
    // Never fails: a child that cannot start is reported by finish(). `phases` (optional) gets
    // the child's life, its start-up and, from the plugin, torch's import, the wait, the tests.
    static std::unique_ptr<FrameworkRun> start(const FrameworkOptions& options, PhaseLog* phases = nullptr);
    // Writes "gpu": no measurement of ours is left, so the plugin may start torch's GPU runtime
    // (its initialisation and the device's context; no check runs and nothing is timed) while
    // our last checks, which fault on purpose, and their worker's end finish. At most once, before finish().
    void allow_gpu_start();
    // Writes the native results, says "gpu" (unless said already) and go, waits for pytest (its
    // time limit counts from here) and reads its results back.
    FrameworkOutcome finish(const std::vector<CheckResult>& native);
    // A child never told to go has its process group ended; its folder is removed.
    ~FrameworkRun();
    FrameworkRun(const FrameworkRun&) = delete;
    FrameworkRun& operator=(const FrameworkRun&) = delete;

private:
    FrameworkRun() = default;
    void record_child_phases();
    FrameworkOptions m_options;
    PhaseLog* m_phases = nullptr;
    std::filesystem::path m_dir;
    bool m_own_dir = false;
    std::string m_setup_error;  // no exchange folder: finish() reports it
    StartedChild m_child;
    int m_go_fd = -1;
    bool m_gpu_allowed = false;
};

// The environment variable naming the plugin's go socket.
inline constexpr const char* k_go_fd_variable = "GPUCONFORM_GO_FD";

// The argument vector given to execvp (exposed for tests).
std::vector<std::string> framework_pytest_argv(const FrameworkOptions& options, const std::string& results_path,
                                               const std::string& native_path, const std::string& env_path,
                                               const std::string& timings_path = "");

// Parses the plugin's results file: a JSON list of result objects, every id framework.*.
// Throws std::runtime_error saying what is wrong.
std::vector<CheckResult> parse_framework_results(const std::string& json_text);

// The one result that stands for the whole layer when the machinery failed.
CheckResult framework_machinery_result(Status status, const std::string& summary, const std::string& remediation);

}  // namespace gpuconform
