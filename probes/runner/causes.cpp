#include "runner/causes.hpp"

#include <fnmatch.h>

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "core/check.hpp"
#include "host/gpu_env_vars.hpp"
#include "host/instrumentation.hpp"
#include "runtime/runtime_common.hpp"

namespace gpuconform {

namespace {

bool explained_status(Status s) { return s != Status::Pass && s != Status::Info; }

bool matches(std::string_view glob, const std::string& id) {
    return fnmatch(std::string(glob).c_str(), id.c_str(), 0) == 0;
}

// As the result says (the device phase stamps it), else as its check declares.
bool timing_sensitive(const CheckResult& r) {
    if (r.timing_sensitive) {
        return *r.timing_sensitive;
    }
    const CheckDef* def = find_check(r.id);
    return def != nullptr && def->timing_sensitive.value_or(false);
}

// Whether a variable's entry (a check glob, or a category token of host/gpu_env_vars.hpp) names
// this result's check: the categories are read from the check's own CheckDef.
bool entry_names_check(std::string_view entry, const CheckResult& r) {
    if (entry == k_timing_sensitive_checks) {
        return timing_sensitive(r);
    }
    const CheckDef* def = find_check(r.id);
    if (entry == k_asynchrony_checks) {
        return def != nullptr && def->rests_on_asynchrony;
    }
    if (entry == k_error_reporting_checks) {
        return def != nullptr && def->rests_on_error_reporting;
    }
    if (entry == k_device_checks) {
        return def != nullptr && (def->layer == "runtime" || def->layer == "async" || def->layer == "acceptance");
    }
    return matches(entry, r.id);
}

bool hides_all(const std::string& value) { return visibility_value_hides_all(value); }

constexpr std::string_view k_no_device = "no GPU device visible to any runtime";

bool is_no_device_skip(const CheckResult& r) {
    return r.status == Status::Skip &&
           (r.summary.starts_with(k_no_device) || r.summary.find("sees no device") != std::string::npos ||
            r.summary.find("no NVIDIA or AMD GPU on the PCI bus") != std::string::npos ||
            r.summary.find("CPU-only build") != std::string::npos);
}

Cause* find_or_add(std::vector<Cause>& causes, const std::string& id, const std::string& kind, const std::string& title,
                   const std::string& fix) {
    for (auto& c : causes) {
        if (c.id == id) {
            return &c;
        }
    }
    causes.push_back({id, kind, title, fix, {}});
    return &causes.back();
}

// A node whose runtimes see no GPU (hidden by a variable, no driver, no GPU) fails the framework
// layer's GPU checks for the same reason: torch asks the same driver. Those results are the
// device cause's, not the torch build's.
void join_framework_to_device_cause(const std::vector<CheckResult>& results, std::vector<Cause>& causes) {
    Cause* device_cause = nullptr;
    for (auto& c : causes) {
        if (c.kind == "hidden_gpus" || c.kind == "no_driver") {
            device_cause = &c;
            break;
        }
    }
    if (device_cause == nullptr) {
        return;
    }
    for (const auto& r : results) {
        if (r.layer == "framework" && (r.status == Status::Fail || r.status == Status::Error)) {
            const std::string ref = result_ref(r);
            if (std::find(device_cause->results.begin(), device_cause->results.end(), ref) ==
                device_cause->results.end()) {
                device_cause->results.push_back(ref);
            }
        }
    }
}

// The failing result another one's summary points at ("see async.copy.pinned_returns_early"):
// that one is a consequence, explained by the cause of the result it names.
const CheckResult* named_root(const CheckResult& r, const std::vector<CheckResult>& results) {
    for (const auto& other : results) {
        if (&other != &r && other.id != r.id && (other.status == Status::Fail || other.status == Status::Error) &&
            r.summary.find(other.id) != std::string::npos && other.backend == r.backend && other.device == r.device) {
            return &other;
        }
    }
    return nullptr;
}

// A fail or error that no cause above names is a root cause of its own: its summary is what was
// seen, its remediation the fix. Results that share one remediation are one cause (one fix); a
// result whose summary names another failing check joins that check's cause.
void add_failure_causes(const std::vector<CheckResult>& results, std::vector<Cause>& causes) {
    std::map<std::string, std::size_t> cause_of;  // result ref -> index into causes
    for (std::size_t i = 0; i < causes.size(); ++i) {
        for (const auto& ref : causes[i].results) {
            cause_of.emplace(ref, i);
        }
    }
    const auto failing = [](const CheckResult& r) { return r.status == Status::Fail || r.status == Status::Error; };
    std::vector<const CheckResult*> consequences;
    for (const auto& r : results) {
        if (!failing(r) || cause_of.count(result_ref(r)) != 0) {
            continue;
        }
        if (named_root(r, results) != nullptr) {
            consequences.push_back(&r);
            continue;
        }
        // An empty remediation is no shared fix: such a result is a cause of its own.
        std::size_t found = causes.size();
        for (std::size_t i = 0; i < causes.size() && !r.remediation.empty(); ++i) {
            if (causes[i].kind == "check" && causes[i].fix == r.remediation) {
                found = i;
            }
        }
        if (found == causes.size()) {
            const std::string where = r.device ? fmt::format(" [{}:{}]", r.backend, *r.device) : "";
            causes.push_back({"check:" + result_ref(r),
                              "check",
                              fmt::format("{}{} {}: {}", r.id, where, to_string(r.status), r.summary),
                              r.remediation.empty() ? "see " + r.id + " in the report" : r.remediation,
                              {}});
        }
        causes[found].results.push_back(result_ref(r));
        cause_of.emplace(result_ref(r), found);
    }
    for (const CheckResult* r : consequences) {
        const CheckResult* root = named_root(*r, results);
        while (root != nullptr && cause_of.count(result_ref(*root)) == 0) {
            root = named_root(*root, results);  // a chain: follow it to a result with a cause
        }
        if (root == nullptr) {
            causes.push_back({"check:" + result_ref(*r),
                              "check",
                              fmt::format("{} {}: {}", r->id, to_string(r->status), r->summary),
                              r->remediation.empty() ? "see " + r->id + " in the report" : r->remediation,
                              {result_ref(*r)}});
            continue;
        }
        causes[cause_of.at(result_ref(*root))].results.push_back(result_ref(*r));
    }
}

// What decides the verdict first: causes of failures, then of errors, then the rest (skips, warns);
// within a weight, the order they were found in (the run's order).
void order_by_weight(const std::vector<CheckResult>& results, std::vector<Cause>& causes) {
    std::map<std::string, int> weight_of;
    for (const auto& r : results) {
        // An undisturbed failure decides the verdict; a disturbed one or an error leaves it open.
        const bool decides = r.status == Status::Fail && r.disturbance.is_null();
        weight_of[result_ref(r)] = decides ? 0 : (r.status == Status::Fail || r.status == Status::Error) ? 1 : 2;
    }
    const auto weight = [&](const Cause& c) {
        int w = 2;
        for (const auto& ref : c.results) {
            const auto it = weight_of.find(ref);
            w = std::min(w, it == weight_of.end() ? 2 : it->second);
        }
        return w;
    };
    std::stable_sort(causes.begin(), causes.end(),
                     [&](const Cause& a, const Cause& b) { return weight(a) < weight(b); });
}

// Under a sanitizer, profiler or debugger a result that did not pass is no evidence about the
// install: it is marked disturbed by the tool (so the verdict is inconclusive and diff cannot
// compare it), attributed to the host, and the tool is its cause.
void mark_instrumented(std::vector<CheckResult>& results, const Environment& env) {
    if (env.instrumentation.empty()) {
        return;
    }
    const InstrumentationSeen& tool = env.instrumentation.front();
    for (auto& r : results) {
        if ((r.status != Status::Fail && r.status != Status::Error) || !r.disturbance.is_null() ||
            !instrumentation_can_change(r.id)) {
            continue;
        }
        r.disturbance = {
            {"summary", fmt::format("{} instrumented this process ({}): {}", tool.tool, tool.evidence, tool.effect)},
            {"others", nlohmann::json::array()},
            {"instrumentation", {{"tool", tool.tool}, {"evidence", tool.evidence}, {"effect", tool.effect}}}};
        r.attribution = "host";
        r.summary += fmt::format(" (under {}: not a verdict on the install)", tool.tool);
    }
}

std::string hiding_variable(const Environment& env) {
    for (const auto& [name, value] : env.gpu_env) {
        const GpuEnvVar* v = find_gpu_env_var(name);
        if (v != nullptr && v->kind == "hidden_gpus" && hides_all(value)) {
            return name;
        }
    }
    return "";
}

}  // namespace

std::string result_ref(const CheckResult& r) {
    return r.device ? fmt::format("{}[{}:{}]", r.id, r.backend, *r.device) : r.id;
}

void attribute_environment(std::vector<CheckResult>& results, const Environment& env) {
    mark_instrumented(results, env);
    for (auto& r : results) {
        if (!explained_status(r.status) || r.status == Status::Skip || r.id == "host.env" || !r.disturbance.is_null()) {
            continue;
        }
        std::vector<std::string> named;
        bool blames_host = false;
        for (const auto& [name, value] : env.gpu_env) {
            const GpuEnvVar* v = find_gpu_env_var(name);
            if (v == nullptr || v->kind == "hidden_gpus") {
                continue;  // visibility is judged by the runtime checks and the hidden_gpus cause
            }
            for (const auto glob : v->checks) {
                if (entry_names_check(glob, r)) {
                    named.push_back(name);
                    blames_host = blames_host || v->warn;
                    break;
                }
            }
        }
        if (named.empty()) {
            continue;
        }
        r.facts["environment"] = named;
        if (blames_host) {
            r.attribution = "host";
            std::string list;
            for (const auto& n : named) {
                list += fmt::format("{}{}={}", list.empty() ? "" : ", ", n, env.gpu_env.at(n));
            }
            r.summary += fmt::format(" (set here and able to cause this: {}; see host.env)", list);
        }
    }
}

std::vector<Cause> group_causes(const std::vector<CheckResult>& results, const Environment& env) {
    std::vector<Cause> causes;
    const std::string hider = env.pci_gpus.empty() ? "" : hiding_variable(env);
    for (const auto& r : results) {
        if (!explained_status(r.status)) {
            continue;
        }
        const std::string ref = result_ref(r);
        if (!r.disturbance.is_null() && r.disturbance.contains("instrumentation")) {
            const auto& seen = r.disturbance["instrumentation"];
            const std::string tool = seen.value("tool", std::string("a tool"));
            find_or_add(causes, "tool:" + tool, "debugger",
                        fmt::format("{} instruments this run ({}): it {}", tool, seen.value("evidence", std::string()),
                                    seen.value("effect", std::string("changes GPU work"))),
                        fmt::format("for conformance verdicts run gpuconform outside {}; a run under it finds bugs, "
                                    "it cannot judge timing, concurrency or overlap",
                                    tool))
                ->results.push_back(ref);
            continue;
        }
        if (!r.disturbance.is_null() && r.disturbance.contains("link_unsteady")) {
            const std::string where = r.device ? fmt::format("{}:{}", r.backend, *r.device) : r.backend;
            find_or_add(
                causes, "shared_link:" + where, "shared_link",
                fmt::format("GPU {}: {}", where, r.disturbance.value("summary", std::string("its link's rate moved"))),
                r.remediation)
                ->results.push_back(ref);
            continue;
        }
        if (!r.disturbance.is_null()) {
            const std::string where = r.device ? fmt::format("{}:{}", r.backend, *r.device) : r.backend;
            find_or_add(causes, "busy:" + where, "busy_gpu",
                        fmt::format("GPU {} was in use by another user: {}", where,
                                    r.disturbance.value("summary", std::string("another user"))),
                        "run when the GPU is free (drain its jobs first), allow longer with --busy-wait, or "
                        "--when-busy measure to measure anyway")
                ->results.push_back(ref);
            continue;
        }
        if (r.layer == "health" && (r.status == Status::Fail || r.status == Status::Warn) &&
            r.facts.contains("finding") && r.facts["finding"].is_string()) {
            // A hardware finding is the GPU's own: one cause per GPU and finding, named so.
            const std::string where = r.facts.contains("gpu") && r.facts["gpu"].is_string()
                                          ? r.facts["gpu"].get<std::string>()
                                          : r.backend + " GPUs";
            const std::string finding = r.facts["finding"].get<std::string>();
            find_or_add(causes, "hardware:" + ref, "hardware", fmt::format("{}: {}", where, finding),
                        r.remediation.empty() ? "see " + r.id + " in the report" : r.remediation)
                ->results.push_back(ref);
            continue;
        }
        if (is_no_device_skip(r)) {
            if (!hider.empty()) {
                find_or_add(causes, "env:" + hider, "hidden_gpus",
                            fmt::format("{}=\"{}\" hides every GPU from the runtimes", hider, env.gpu_env.at(hider)),
                            fmt::format("unset {} (or list the GPUs this job should use)", hider))
                    ->results.push_back(ref);
            } else if (env.pci_gpus.empty()) {
                find_or_add(causes, "no_gpu", "no_driver", "no NVIDIA or AMD GPU on the PCI bus of this node",
                            "run on a GPU node; in a container, pass the GPU in (--gpus, the device plugin)")
                    ->results.push_back(ref);
            } else {
                find_or_add(causes, "no_driver", "no_driver",
                            fmt::format("{} GPU(s) on the PCI bus, but no runtime sees one", env.pci_gpus.size()),
                            "install or load the GPU driver (see host.kernel_driver and runtime.*.load)")
                    ->results.push_back(ref);
            }
            continue;
        }
        if (!hider.empty() && r.id.starts_with("runtime.") && r.id.ends_with(".devices")) {
            find_or_add(causes, "env:" + hider, "hidden_gpus",
                        fmt::format("{}=\"{}\" hides every GPU from the runtimes", hider, env.gpu_env.at(hider)),
                        fmt::format("unset {} (or list the GPUs this job should use)", hider))
                ->results.push_back(ref);
            continue;
        }
        if (r.facts.contains("environment") && r.facts["environment"].is_array()) {
            for (const auto& n : r.facts["environment"]) {
                const std::string name = n.get<std::string>();
                const GpuEnvVar* v = find_gpu_env_var(name);
                if (v == nullptr || !v->warn) {
                    continue;
                }
                find_or_add(causes, "env:" + name, std::string(v->kind),
                            fmt::format("{}={} is set: {}", name, env.gpu_env.count(name) ? env.gpu_env.at(name) : "",
                                        v->effect),
                            fmt::format("unset {} for production runs (shell profile, job script, container or "
                                        "systemd Environment=)",
                                        name))
                    ->results.push_back(ref);
            }
            continue;
        }
        if (r.id == "host.env" && r.status == Status::Warn) {
            for (const auto& [name, value] : env.gpu_env) {
                const GpuEnvVar* v = find_gpu_env_var(name);
                if (v != nullptr && v->warn) {
                    find_or_add(causes, "env:" + name, std::string(v->kind),
                                fmt::format("{}={} is set: {}", name, value, v->effect),
                                fmt::format("unset {} for production runs (shell profile, job script, container or "
                                            "systemd Environment=)",
                                            name))
                        ->results.push_back(ref);
                }
            }
            continue;
        }
        if (r.status == Status::Fail && r.facts.contains("siblings")) {
            find_or_add(causes, "degraded_link", "degraded_link", "a GPU copies far slower than its identical siblings",
                        "check the slot's PCIe link (host.pcie.link, lspci -vv), reseat or replace the GPU")
                ->results.push_back(ref);
        } else if (r.id == "host.pcie.link" && r.status != Status::Skip) {
            find_or_add(causes, "degraded_link", "degraded_link", "a GPU's PCIe link runs below its maximum",
                        "check the slot's PCIe link (lspci -vv), reseat or replace the GPU")
                ->results.push_back(ref);
        } else if (r.status == Status::Skip && (r.summary.find("no pytest") != std::string::npos ||
                                                r.summary.find("No module named") != std::string::npos ||
                                                r.summary.find("not installed") != std::string::npos)) {
            find_or_add(causes, "missing_package", "missing_package",
                        "a package the checks need is missing: " + r.summary,
                        r.remediation.empty() ? "install the package named above" : r.remediation)
                ->results.push_back(ref);
        }
    }
    join_framework_to_device_cause(results, causes);
    add_failure_causes(results, causes);
    order_by_weight(results, causes);
    return causes;
}

void attribute_to_causes(std::vector<CheckResult>& results, const std::vector<Cause>& causes) {
    for (const auto& c : causes) {
        if (c.kind == "check") {
            continue;
        }
        for (auto& r : results) {
            if (r.layer != "framework" || (r.status != Status::Fail && r.status != Status::Error) ||
                std::find(c.results.begin(), c.results.end(), result_ref(r)) == c.results.end() ||
                r.attribution == "host") {
                continue;
            }
            r.attribution = "host";
            r.remediation = c.fix;
            if (c.kind == "hidden_gpus") {
                // As the native device checks: not run here, for this reason (torch's words kept).
                r.facts["framework_said"] = r.summary;
                r.status = Status::Skip;
                r.summary = "not run: " + c.title + " (torch: " + r.summary + ")";
            } else {
                r.summary += " (explained by the run's cause: " + c.title + ")";
            }
        }
    }
}

void to_json(nlohmann::json& j, const Cause& c) {
    j = {{"id", c.id}, {"kind", c.kind}, {"title", c.title}, {"fix", c.fix}, {"results", c.results}};
}

}  // namespace gpuconform
