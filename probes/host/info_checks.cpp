// Facts of the node that nothing is required of: reported as info, so a roll-up can group by them.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "host/host_checks.hpp"
#include "host/verdict.hpp"

namespace gpuconform {

namespace {

// An empty fact means the file it comes from could not be read: say so, and what it breaks.
void unknown(CheckResult& r, const std::string& what, const std::string& file) {
    r.status = Status::Warn;
    r.summary =
        fmt::format("{} unknown: {} could not be read; reports from this node cannot be grouped by it", what, file);
    r.remediation = fmt::format("make {} readable to this user (or mount it into the container)", file);
}

}  // namespace

CheckDef make_host_distro() {
    return host_check("host.distro", "distribution id, version and name (/etc/os-release)",
                      [](CheckContext& ctx, CheckResult& r) {
                          const auto& d = ctx.env.distro;
                          r.facts = {{"id", d.id}, {"version_id", d.version_id}, {"pretty_name", d.pretty_name}};
                          if (d.id.empty()) {
                              unknown(r, "distribution", "/etc/os-release");
                              return;
                          }
                          r.status = Status::Info;
                          r.summary = fmt::format("{} (id {}, version {})", d.pretty_name, d.id,
                                                  d.version_id.empty() ? "none" : d.version_id);
                      });
}

CheckDef make_host_kernel() {
    return host_check("host.kernel", "running kernel release", [](CheckContext& ctx, CheckResult& r) {
        r.facts = {{"release", ctx.env.kernel}};
        if (ctx.env.kernel.empty()) {
            unknown(r, "kernel release", "/proc/sys/kernel/osrelease");
            return;
        }
        r.status = Status::Info;
        r.summary = fmt::format("kernel {}", ctx.env.kernel);
    });
}

CheckDef make_host_glibc() {
    return host_check("host.glibc", "C library version (gnu_get_libc_version)", [](CheckContext& ctx, CheckResult& r) {
        r.facts = {{"version", ctx.env.glibc}};
        r.status = Status::Info;
        r.summary = fmt::format("glibc {}", ctx.env.glibc);
    });
}

CheckDef make_host_cpu() {
    CheckDef d = host_check(
        "host.cpu", "CPU model, logical CPUs, NUMA nodes and each GPU's node", [](CheckContext& ctx, CheckResult& r) {
            const auto& env = ctx.env;
            r.measurements.push_back(single("logical_cpus", env.logical_cpus, "count"));
            r.measurements.push_back(single("numa_nodes", env.numa_nodes, "count"));
            nlohmann::json gpu_nodes = nlohmann::json::object();
            std::vector<std::string> placed;
            for (const auto& g : env.pci_gpus) {
                gpu_nodes[g.bdf] = g.numa_node ? nlohmann::json(*g.numa_node) : nlohmann::json(nullptr);
                placed.push_back(g.numa_node ? fmt::format("{} on node {}", g.bdf, *g.numa_node)
                                             : fmt::format("{} without NUMA affinity", g.bdf));
            }
            r.facts = {{"model", env.cpu_model}, {"gpu_numa_nodes", gpu_nodes}};
            r.status = Status::Info;
            r.summary =
                fmt::format("{}: {} logical CPUs, {} NUMA node{}{}{}",
                            env.cpu_model.empty() ? "unknown CPU" : env.cpu_model, env.logical_cpus, env.numa_nodes,
                            env.numa_nodes == 1 ? "" : "s", placed.empty() ? "" : "; ", fmt::join(placed, ", "));
        });
    d.measurements = {
        measure::diagnostic("logical_cpus", Direction::None, 0.00),
        measure::diagnostic("numa_nodes", Direction::None, 0.00),
    };
    return d;
}

CheckDef make_host_memory() {
    CheckDef d = host_check("host.memory", "installed memory (MemTotal)", [](CheckContext& ctx, CheckResult& r) {
        if (ctx.env.memory_bytes == 0) {
            unknown(r, "memory size", "/proc/meminfo");
            return;
        }
        r.measurements.push_back(single("memory", static_cast<double>(ctx.env.memory_bytes), "bytes"));
        r.status = Status::Info;
        r.summary = fmt::format("{} of memory", format_bytes(ctx.env.memory_bytes));
    });
    d.measurements = {
        measure::diagnostic("memory", Direction::None, 0.00),
    };
    return d;
}

CheckDef make_host_container() {
    return host_check(
        "host.container", "container runtime and cgroup of this process", [](CheckContext& ctx, CheckResult& r) {
            const auto& env = ctx.env;
            r.facts = {{"container", env.container.empty() ? nlohmann::json(nullptr) : nlohmann::json(env.container)},
                       {"cgroup", env.cgroup}};
            r.status = Status::Info;
            if (env.container.empty()) {
                r.summary = fmt::format("not in a container (cgroup {})", env.cgroup.empty() ? "unknown" : env.cgroup);
                return;
            }
            // Inside a container the runtime decides which device nodes exist and the memlock limit.
            r.summary =
                fmt::format("in a {} container (cgroup {}): device nodes and limits come from its runtime settings",
                            env.container, env.cgroup.empty() ? "unknown" : env.cgroup);
        });
}

}  // namespace gpuconform
