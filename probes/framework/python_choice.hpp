// Which Python runs the framework layer. GPU nodes often have pyenv, conda or a venv first on
// PATH while Debian's python3-pytest and python3-torch serve /usr/bin/python3, so the first
// `python3` is not always the one that can run the layer. Candidates, in order: --python, then
// $GPUCONFORM_PYTHON (both taken as given: the user chose), then each `python3` on PATH, then
// the system's /usr/bin/python3; the first with both pytest and torch wins, else the first with
// pytest, else the first candidate. The choice is said in one line (`note`) that names the one
// that has them when the first has not.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace gpuconform {

struct PythonModules {
    bool pytest = false;
    bool torch = false;
};

struct PythonChoice {
    std::string python;  // the program to start
    std::string source;  // "--python", "$GPUCONFORM_PYTHON", "python3 on PATH", "the system's python3"
    std::optional<PythonModules> modules;  // what it has; empty when not probed (given) or not startable
    std::string note;                      // one line for the terminal and the report
};

// Asks a Python which of pytest and torch it can import, without importing them (importlib's
// find_spec: milliseconds, where `import torch` takes seconds). Empty when it cannot be started.
using PythonProbe = std::function<std::optional<PythonModules>(const std::string& python)>;
std::optional<PythonModules> probe_python(const std::string& python);

// `path` is $PATH's value; `system_python` is /usr/bin/python3 except in tests.
PythonChoice choose_python(const std::string& cli_value, const std::string& env_value, const std::string& path,
                           const PythonProbe& probe, const std::string& system_python = "/usr/bin/python3");

// choose_python with this process's --python value, environment and the real probe.
PythonChoice choose_python(const std::string& cli_value);

// The probes choose_python will ask for, started at once, one child each, and answered later:
// the caller does other work (starting the device workers) while the Pythons start.
class PythonProbes {
public:
    // None when a Python is given (--python, $GPUCONFORM_PYTHON): it is taken as given.
    explicit PythonProbes(const std::string& cli_value);
    ~PythonProbes();  // ends any probe still running and removes its file
    PythonProbes(const PythonProbes&) = delete;
    PythonProbes& operator=(const PythonProbes&) = delete;
    // `python`'s answer, waiting for its probe; a Python not started here is probed now.
    std::optional<PythonModules> answer(const std::string& python);

    struct Started;

private:
    std::vector<std::unique_ptr<Started>> m_started;
};

// choose_python with this process's --python value and environment, from started probes.
PythonChoice choose_python(const std::string& cli_value, PythonProbes& probes);

// The Python choose_python() picks when the first candidate has what it needs, named without
// starting any: the given one, else the first candidate. A caller may start it at once and let
// the probe run beside it (SuiteRun does), replacing it only when the choice differs.
std::string likely_python(const std::string& cli_value, const std::string& env_value, const std::string& path,
                          const std::string& system_python = "/usr/bin/python3");
std::string likely_python(const std::string& cli_value);

}  // namespace gpuconform
