// collect_environment() and the environment's JSON (the `environment` object of report-v1).
#include "core/environment.hpp"

#include <cstdlib>

#include "host/collect.hpp"
#include "host/host_fs.hpp"
#include "host/parsers.hpp"

namespace gpuconform {

namespace {

nlohmann::json optional_json(const auto& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); }

void collect_system(Environment& env, const std::string& root) {
    auto os_release = read_text(root, "/etc/os-release");
    if (!os_release) {
        os_release = read_text(root, "/usr/lib/os-release");
    }
    env.distro = parse_os_release(os_release.value_or(""));
    env.kernel = read_line(root, "/proc/sys/kernel/osrelease").value_or("");
    const auto cpu = parse_cpuinfo(read_text(root, "/proc/cpuinfo").value_or(""));
    env.cpu_model = cpu.model;
    env.logical_cpus = cpu.logical_cpus;
    env.numa_nodes = count_numa_nodes(root);
    env.memory_bytes = parse_meminfo_total(read_text(root, "/proc/meminfo").value_or("")).value_or(0);
}

void collect_container(Environment& env, const std::string& root) {
    ContainerHints hints;
    hints.dockerenv = path_exists(root, "/.dockerenv");
    hints.containerenv = path_exists(root, "/run/.containerenv");
    hints.kubernetes_env = std::getenv("KUBERNETES_SERVICE_HOST") != nullptr;
    hints.cgroup_text = read_text(root, "/proc/self/cgroup").value_or("");
    env.container = detect_container(hints);
    env.cgroup = parse_cgroup(hints.cgroup_text);
}

}  // namespace

Environment collect_environment(const std::string& root) {
    Environment env;
    collect_process_facts(env);
    collect_system(env, root);
    collect_container(env, root);
    env.kernel_drivers = read_kernel_drivers(root);
    env.pci_gpus = scan_pci_gpus(root);
    return env;
}

void to_json(nlohmann::json& j, const PciGpu& g) {
    j = nlohmann::json{
        {"bdf", g.bdf},
        {"vendor", g.vendor},
        {"vendor_id", g.vendor_id},
        {"device_id", g.device_id},
        {"class_code", g.class_code},
        {"current_speed_gts", optional_json(g.current_speed_gts)},
        {"max_speed_gts", optional_json(g.max_speed_gts)},
        {"current_width", optional_json(g.current_width)},
        {"max_width", optional_json(g.max_width)},
        {"numa_node", optional_json(g.numa_node)},
    };
}

void to_json(nlohmann::json& j, const Environment& e) {
    j = nlohmann::json{
        {"hostname", e.hostname},
        {"distro", {{"id", e.distro.id}, {"version_id", e.distro.version_id}, {"pretty_name", e.distro.pretty_name}}},
        {"kernel", e.kernel},
        {"glibc", e.glibc},
        {"cpu", {{"model", e.cpu_model}, {"logical_cpus", e.logical_cpus}, {"numa_nodes", e.numa_nodes}}},
        {"memory_bytes", e.memory_bytes},
        {"container", e.container.empty() ? nlohmann::json(nullptr) : nlohmann::json(e.container)},
        {"cgroup", e.cgroup.empty() ? nlohmann::json(nullptr) : nlohmann::json(e.cgroup)},
        {"limits",
         {{"memlock_soft_bytes", optional_json(e.memlock_soft)},
          {"memlock_hard_bytes", optional_json(e.memlock_hard)},
          {"cap_ipc_lock", e.cap_ipc_lock}}},
        {"user", {{"uid", e.uid}, {"name", e.user}, {"groups", e.groups}}},
        {"env", e.gpu_env},
        {"kernel_drivers", e.kernel_drivers},
        {"pci_gpus", e.pci_gpus},
    };
    if (!e.gpu_env_raw.empty()) {
        j["env_raw"] = e.gpu_env_raw;
    }
    if (!e.instrumentation.empty()) {
        nlohmann::json tools = nlohmann::json::array();
        for (const auto& t : e.instrumentation) {
            tools.push_back({{"tool", t.tool}, {"evidence", t.evidence}, {"effect", t.effect}});
        }
        j["instrumentation"] = tools;
    }
}

}  // namespace gpuconform
