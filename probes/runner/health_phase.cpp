#include "runner/health_phase.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "health/health_checks.hpp"
#include "health/kernel_log.hpp"

#include "runner/worker_child.hpp"

namespace gpuconform {

namespace {

bool is_health(const CheckDef& c) { return c.scope == Scope::Gpu || c.scope == Scope::GpuNode; }

std::vector<std::string> bdfs_of(const Environment& env, const std::string& vendor) {
    std::vector<std::string> out;
    for (const auto& g : env.pci_gpus) {
        if (g.vendor == vendor) {
            out.push_back(g.bdf);
        }
    }
    return out;
}

// NVIDIA's container runtime mounts only the device nodes NVIDIA_VISIBLE_DEVICES names, so NVML
// inside sees only those GPUs while sysfs shows the node's every GPU.
std::string nvidia_visibility(const Environment& env) {
    const auto it = env.gpu_env.find("NVIDIA_VISIBLE_DEVICES");
    if (it == env.gpu_env.end() || it->second == "all") {
        return "";
    }
    return fmt::format("NVIDIA_VISIBLE_DEVICES='{}'", it->second);
}

// Sets what the reader cannot know of the environment.
class WithVisibility final : public HealthReader {
public:
    WithVisibility(std::unique_ptr<HealthReader> inner, std::string visibility)
        : m_inner(std::move(inner)), m_visibility(std::move(visibility)) {}
    std::string name() const override { return m_inner->name(); }
    NodeHealth read() const override {
        NodeHealth node = m_inner->read();
        node.visibility = m_visibility;
        return node;
    }

private:
    std::unique_ptr<HealthReader> m_inner;
    std::string m_visibility;
};

// A per-GPU check on a reading with no GPU in it: one result that says why.
CheckResult without_gpus(const CheckDef& def, const NodeHealth& node) {
    CheckResult r;
    r.id = def.id;
    r.layer = def.layer;
    r.backend = node.backend;
    if (!node.error.empty() && node.pci_gpus > 0) {
        r.status = Status::Error;
        r.summary =
            fmt::format("{} could not be read ({}); {} GPU(s) on the PCI bus", node.source, node.error, node.pci_gpus);
        r.remediation = "install or load the GPU driver (see host.kernel_driver)";
    } else if (node.pci_gpus > 0) {
        r.status = Status::Skip;
        r.summary = fmt::format("{} sees none of the {} GPU(s) on the PCI bus (see health.inventory)", node.source,
                                node.pci_gpus);
    } else {
        r.status = Status::Skip;
        r.summary = node.error.empty()
                        ? "no NVIDIA or AMD GPU on the PCI bus"
                        : fmt::format("no NVIDIA or AMD GPU on the PCI bus ({}: {})", node.source, node.error);
    }
    return r;
}

// The kernel log since boot, read once for every real reader (the sim reader brings its own): a log
// that could not be read leaves each node saying why, so health.xid skips with that reason.
void attach_kernel_log(std::vector<NodeHealth>& nodes) {
    const bool any_real =
        std::any_of(nodes.begin(), nodes.end(), [](const NodeHealth& n) { return n.source != "sim"; });
    if (!any_real) {
        return;
    }
    const KernelLogRead log = read_kernel_log();
    const std::vector<GpuEvent> events = log.readable ? find_gpu_events(log.records) : std::vector<GpuEvent>{};
    for (auto& node : nodes) {
        if (node.source == "sim") {
            continue;
        }
        node.kernel_log_read = log.readable;
        node.kernel_log_unreadable = log.reason;
        node.kernel_log_records = log.records.size();
        node.gpu_events = events;
    }
}

}  // namespace

std::vector<std::unique_ptr<HealthReader>> health_readers(const Environment& env,
                                                          const std::vector<std::string>& backends,
                                                          const std::string& sim_options) {
    std::vector<std::unique_ptr<HealthReader>> readers;
    const auto chosen = [&](const char* b) { return std::find(backends.begin(), backends.end(), b) != backends.end(); };
    if (chosen("sim")) {
        readers.push_back(make_sim_health_reader(sim_options));
    }
    auto nvidia = bdfs_of(env, "nvidia");
    if (chosen("cuda") && (!nvidia.empty() || env.pci_gpus.empty())) {
        readers.push_back(
            std::make_unique<WithVisibility>(make_nvml_health_reader(std::move(nvidia)), nvidia_visibility(env)));
    }
    if (auto amd = bdfs_of(env, "amd"); chosen("hip") && !amd.empty()) {
        readers.push_back(make_amdgpu_health_reader("/", std::move(amd)));
    }
    return readers;
}

bool has_health_checks(const std::vector<const CheckDef*>& checks) {
    return std::any_of(checks.begin(), checks.end(), [](const CheckDef* c) { return is_health(*c); });
}

namespace {

// Every GpuNode check once per reading, every Gpu check once per GPU read.
void judge_nodes(const CheckDef& def, const std::vector<NodeHealth>& nodes, const Environment& env,
                 const Profile& profile, const RunOptions& options, const std::function<void(CheckResult)>& record) {
    for (const NodeHealth& node : nodes) {
        CheckContext ctx{env, profile, options, nullptr, nullptr, -1, {}};
        ctx.health = &node;
        if (def.scope == Scope::GpuNode) {
            CheckResult r = run_check_in_process(def, ctx);
            r.backend = node.backend;
            record(std::move(r));
            continue;
        }
        if (node.gpus.empty()) {
            record(without_gpus(def, node));
            continue;
        }
        for (std::size_t i = 0; i < node.gpus.size(); ++i) {
            ctx.device = static_cast<int>(i);
            CheckResult r = run_check_in_process(def, ctx);
            r.backend = node.gpus[i].backend;
            r.device = node.gpus[i].index;
            record(std::move(r));
        }
    }
}

}  // namespace

std::vector<NodeHealth> run_health_checks(const std::vector<const CheckDef*>& checks,
                                          const std::vector<std::unique_ptr<HealthReader>>& readers,
                                          const Environment& env, const Profile& profile, const RunOptions& options,
                                          PhaseLog* phases, const std::function<void(CheckResult)>& record) {
    std::vector<NodeHealth> nodes;
    {
        PhaseLog::Scope stamp(phases, "health.read");
        for (const auto& reader : readers) {
            nodes.push_back(reader->read());
        }
        attach_kernel_log(nodes);
    }
    PhaseLog::Scope stamp(phases, "health.checks");
    for (const auto* def : checks) {
        if (is_health(*def) && !after_device_layer(*def)) {
            judge_nodes(*def, nodes, env, profile, options, record);
        }
    }
    return nodes;
}

void run_health_growth_checks(const std::vector<const CheckDef*>& checks,
                              const std::vector<std::unique_ptr<HealthReader>>& readers,
                              const std::vector<NodeHealth>& before, const Environment& env, const Profile& profile,
                              const RunOptions& options, PhaseLog* phases,
                              const std::function<void(CheckResult)>& record) {
    const bool any = std::any_of(checks.begin(), checks.end(),
                                 [](const CheckDef* c) { return is_health(*c) && after_device_layer(*c); });
    if (!any) {
        return;
    }
    PhaseLog::Scope stamp(phases, "health.reread");
    std::vector<NodeHealth> after;
    for (std::size_t n = 0; n < readers.size(); ++n) {
        after.push_back(readers[n]->read());  // counters only: the kernel log was read once, before
        after.back().before = n < before.size() ? &before[n] : nullptr;
    }
    for (const auto* def : checks) {
        if (is_health(*def) && after_device_layer(*def)) {
            judge_nodes(*def, after, env, profile, options, record);
        }
    }
}

}  // namespace gpuconform
