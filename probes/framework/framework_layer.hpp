// The `framework` layer: runs the pytest suite python_tests/framework with the Python it finds
// and reads back its results (already in the report's result shape) and torch's environment.
// Machinery failures (no python, no pytest, timeout, crash, bad output) become one result,
// framework.torch.build, with status skip or error — never an exception out of here.
#pragma once

#include <atomic>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/result.hpp"

namespace gpuconform {

struct FrameworkOptions {
    std::string python;     // from find_python()
    std::string tests_dir;  // the python_tests folder (holds framework/ and pytest.ini)
    std::string only_glob;  // run only check ids matching these comma-separated globs; empty for all
    bool quick = false;
    double timeout_s = 60;
    std::string work_dir;   // where the exchange files go; empty: a temporary folder, removed after
    const std::atomic<bool>* stop = nullptr;  // raised by a stop signal: pytest's group is ended
};

struct FrameworkOutcome {
    std::vector<CheckResult> results;
    nlohmann::json torch;  // {version, cuda, hip, python}, or null when it could not be read
};

// --python, else $GPUCONFORM_PYTHON, else python3 on PATH (as a full path when found).
std::string find_python(const std::string& cli_value);

FrameworkOutcome run_framework_layer(const FrameworkOptions& options, const std::vector<CheckResult>& native);

// The argument vector given to execvp (exposed for tests).
std::vector<std::string> framework_pytest_argv(const FrameworkOptions& options, const std::string& results_path,
                                               const std::string& native_path, const std::string& env_path);

// Parses the plugin's results file: a JSON list of result objects, every id framework.*.
// Throws std::runtime_error saying what is wrong.
std::vector<CheckResult> parse_framework_results(const std::string& json_text);

// The one result that stands for the whole layer when the machinery failed.
CheckResult framework_machinery_result(Status status, const std::string& summary, const std::string& remediation);

}  // namespace gpuconform
