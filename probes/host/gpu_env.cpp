#include "host/gpu_env.hpp"

#include <algorithm>
#include <array>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "host/gpu_env_vars.hpp"
#include "host/host_checks.hpp"

namespace gpuconform {

namespace {

// Set to anything but "0": launches (or copies) wait for completion, so nothing is asynchronous.
constexpr std::array<const char*, 4> k_serializing{"CUDA_LAUNCH_BLOCKING", "HIP_LAUNCH_BLOCKING",
                                                   "AMD_SERIALIZE_KERNEL", "AMD_SERIALIZE_COPY"};

// An empty list (or Slurm's "NoDevFiles", or "-1") hides every GPU from the runtime.
bool hides_all(const std::string& value) { return value.empty() || value == "-1" || value == "NoDevFiles"; }

}  // namespace

Verdict judge_gpu_env(const GpuEnvInput& in) {
    std::vector<std::string> problems;
    std::vector<std::string> unset;
    for (const auto* name : k_serializing) {
        const auto it = in.vars.find(name);
        if (it != in.vars.end() && !it->second.empty() && it->second != "0") {
            problems.push_back(fmt::format("{}={} makes GPU work synchronous (a debugging setting)", name, it->second));
            unset.push_back(name);
        }
    }
    // CUDA_VISIBLE_DEVICES is honoured by both CUDA and HIP; the other two by ROCm only.
    const std::array<std::pair<const char*, int>, 3> visibility{{{"CUDA_VISIBLE_DEVICES", in.nvidia_gpus + in.amd_gpus},
                                                                 {"HIP_VISIBLE_DEVICES", in.amd_gpus},
                                                                 {"ROCR_VISIBLE_DEVICES", in.amd_gpus}}};
    for (const auto& [name, gpus] : visibility) {
        const auto it = in.vars.find(name);
        if (it != in.vars.end() && gpus > 0 && hides_all(it->second)) {
            problems.push_back(fmt::format("{}=\"{}\" hides all {} GPU{} on the bus from the runtime", name, it->second,
                                           gpus, gpus == 1 ? "" : "s"));
            unset.push_back(name);
        }
    }
    // The rest of the table's warn entries: DCGM's list, interposers, debugging allocators.
    for (const auto& [name, value] : in.vars) {
        const GpuEnvVar* v = find_gpu_env_var(name);
        if (v == nullptr || !v->warn || std::find(unset.begin(), unset.end(), name) != unset.end() ||
            std::find(k_serializing.begin(), k_serializing.end(), name) != k_serializing.end()) {
            continue;
        }
        problems.push_back(fmt::format("{}={}: {}", name, value, v->effect));  // set at all: DCGM warns too
        unset.push_back(name);
    }
    if (!problems.empty()) {
        return {Status::Warn, fmt::format("{}", fmt::join(problems, "; ")),
                fmt::format("unset {} (shell profile, job script, container or systemd Environment=)",
                            fmt::join(unset, ", "))};
    }
    if (in.vars.empty()) {
        return {Status::Info, "no environment variable that changes GPU runtime behaviour is set", ""};
    }
    std::vector<std::string> shown;
    for (const auto& [k, v] : in.vars) {
        shown.push_back(fmt::format("{}={}", k, v));
    }
    return {Status::Info, fmt::format("set: {}", fmt::join(shown, ", ")), ""};
}

namespace {

// host.env also says which instrumenting tool runs this process (host/instrumentation.hpp).
void add_instrumentation(const Environment& env, CheckResult& r) {
    if (env.instrumentation.empty()) {
        return;
    }
    std::vector<std::string> tools;
    for (const auto& t : env.instrumentation) {
        tools.push_back(fmt::format("{} ({}): {}", t.tool, t.evidence, t.effect));
    }
    r.facts["instrumentation"] = tools;
    const std::string said = fmt::format("this run is instrumented by {}", fmt::join(tools, "; "));
    if (r.status == Status::Warn) {
        r.summary = said + "; " + r.summary;
    } else {
        r.status = Status::Warn;
        r.summary = said;
        r.remediation = "run gpuconform outside the tool for conformance verdicts";
    }
}

}  // namespace

CheckDef make_host_env() {
    return host_check(
        "host.env", "environment variables that change GPU runtime behaviour", [](CheckContext& ctx, CheckResult& r) {
            GpuEnvInput in{ctx.env.gpu_env, count_pci_gpus(ctx.env, "nvidia"), count_pci_gpus(ctx.env, "amd")};
            r.facts = {{"vars", in.vars}};
            if (!ctx.env.gpu_env_raw.empty()) {
                r.facts["vars_raw"] = ctx.env.gpu_env_raw;
            }
            apply(judge_gpu_env(in), r);
            add_instrumentation(ctx.env, r);
        });
}

}  // namespace gpuconform
