// One root cause, named once: after a run, results that share a cause (a variable, hidden GPUs,
// no driver, a busy GPU, a debugger or interposer, a degraded link, a missing package, a GPU's
// own hardware finding) are grouped into the report's `causes`, and the terminal ends with them.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/environment.hpp"
#include "core/result.hpp"

namespace gpuconform {

struct Cause {
    std::string id;  // stable within a report: "env:CUDA_LAUNCH_BLOCKING", "busy:cuda:0", "no_driver"
    // env_var, hidden_gpus, no_driver, busy_gpu, shared_link, debugger, degraded_link, missing_package, hardware
    // (a health-layer finding, "cuda:3: row remap failure — the GPU needs replacing"); "check" for
    // a fail or error that nothing above explains (its own summary and remediation)
    std::string kind;
    std::string title;                 // one line: what is wrong
    std::string fix;                   // one line: what to change
    std::vector<std::string> results;  // "<check id>" or "<check id>[<backend>:<device>]"
};

// "<id>" or "<id>[<backend>:<device>]", as causes name results.
std::string result_ref(const CheckResult& r);

// Results a set variable can explain (host/gpu_env_vars.cpp) that did not pass: facts.environment
// names the variables; for the table's warn entries the attribution becomes "host" and the summary
// says so, instead of blaming the install.
void attribute_environment(std::vector<CheckResult>& results, const Environment& env);

// Every fail and error ends up in exactly one cause or more; causes of failures come first.
std::vector<Cause> group_causes(const std::vector<CheckResult>& results, const Environment& env);

// A framework result that a cause of the node explains (hidden GPUs, no driver, a variable) is
// the node's, not the torch build's: its attribution becomes "host", its remediation the cause's fix.
void attribute_to_causes(std::vector<CheckResult>& results, const std::vector<Cause>& causes);

void to_json(nlohmann::json& j, const Cause& c);

}  // namespace gpuconform
