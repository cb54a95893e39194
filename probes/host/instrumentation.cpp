#include "host/instrumentation.hpp"

#include <unistd.h>

#include <fstream>
#include <sstream>

#include "core/proc_file.hpp"

extern char** environ;

namespace gpuconform {

namespace {

constexpr std::string_view k_serialises =
    "serialises and instruments GPU work: launches, copies and kernels no longer overlap or keep their timing";

bool matches_variable(std::string_view pattern, const std::string& name) {
    return pattern.ends_with('*') ? name.starts_with(pattern.substr(0, pattern.size() - 1)) : name == pattern;
}

std::string file_name(const std::string& path) {
    const auto slash = path.rfind('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

// The evidence for one tool, or empty.
std::string evidence_for(const InstrumentationTool& t, const ProcessView& view) {
    for (const auto& path : view.mapped) {
        for (const auto lib : t.libraries) {
            if (file_name(path) == lib) {
                return "maps " + path;
            }
        }
        for (const auto fragment : t.path_fragments) {
            if (path.find(fragment) != std::string::npos) {
                return "maps " + path;
            }
        }
    }
    for (const auto& [name, value] : view.environment) {
        for (const auto pattern : t.variables) {
            if (matches_variable(pattern, name)) {
                return name + " is set";
            }
        }
        if (name == "LD_LIBRARY_PATH") {
            std::istringstream dirs(value);
            for (std::string dir; std::getline(dirs, dir, ':');) {
                for (const auto fragment : t.path_fragments) {
                    if ((dir + "/").find(fragment) != std::string::npos) {
                        return "LD_LIBRARY_PATH holds the tool's folder " + dir;
                    }
                }
            }
        }
    }
    return "";
}

}  // namespace

// Paths and names as each tool installs them, and the variables their launchers set, as seen on an
// H200 under Compute Sanitizer 2025.3 (reports/samples/ubuntu24.04-h200-2026-12-02-trust/).
const std::vector<InstrumentationTool>& instrumentation_tools() {
    static const std::vector<InstrumentationTool> tools{
        {"compute-sanitizer",
         {"/compute-sanitizer/"},
         {"libsanitizer-collection.so", "libsanitizer-public.so"},
         {"NV_SANITIZER_*"},
         k_serialises,
         "https://docs.nvidia.com/compute-sanitizer/ComputeSanitizer/index.html"},
        {"Nsight Compute (ncu)",
         {"/nsight-compute/", "/nsight-compute-"},
         {},
         {},
         "serialises every kernel launch to profile it, and replays kernels",
         "https://docs.nvidia.com/nsight-compute/ProfilingGuide/index.html#serialization"},
        {"Nsight Systems (nsys)",
         {"/nsight-systems/", "/nsight-systems-"},
         {"libToolsInjection64.so", "libToolsInjectionProxy64.so"},
         {},
         "traces every CUDA call and copy: calls take longer and timings move",
         "https://docs.nvidia.com/nsight-systems/UserGuide/index.html"},
        {"rocprof",
         {"/rocprofiler/", "/rocprofiler-sdk/", "/roctracer/"},
         {"librocprofiler64.so", "librocprofiler64.so.1", "librocprofiler64.so.2", "libroctracer64.so",
          "librocprofiler-sdk-tool.so", "librocprofiler-sdk.so"},
         {"ROCP_TOOL_LIB", "ROCPROFILER_*", "ROCPROF_*"},
         "intercepts HIP and HSA calls and can serialise kernels to count them",
         "https://rocm.docs.amd.com/projects/rocprofiler-sdk/en/latest/"},
        // The launcher NVIDIA's developer tools share (its libraries and variables were seen under
        // the sanitizer): named only when no tool above names itself.
        {"an NVIDIA developer tool's launcher (Nsight Systems, Nsight Compute or Compute Sanitizer)",
         {},
         {"libTreeLauncherTargetInjection.so", "libInterceptorInjectionTarget.so"},
         {"NVIDIA_PROCESS_INJECTION_*"},
         k_serialises,
         "https://docs.nvidia.com/nsight-systems/UserGuide/index.html"},
    };
    return tools;
}

std::vector<InstrumentationSeen> detect_instrumentation(const ProcessView& view) {
    std::vector<InstrumentationSeen> seen;
    const auto& tools = instrumentation_tools();
    for (std::size_t i = 0; i < tools.size(); ++i) {
        const bool generic = i + 1 == tools.size();
        if (generic && !seen.empty()) {
            break;  // a named tool explains the shared launcher's traces
        }
        const std::string evidence = evidence_for(tools[i], view);
        if (!evidence.empty()) {
            seen.push_back({std::string(tools[i].name), evidence, std::string(tools[i].effect)});
        }
    }
    if (!view.tracer.empty()) {
        const std::string name = view.tracer.find("cuda-gdb") != std::string::npos ? "cuda-gdb"
                                 : view.tracer.find("rocgdb") != std::string::npos ? "rocgdb"
                                                                                   : "a debugger or tracer";
        seen.push_back({name, "the process is traced by " + view.tracer + " (ptrace)",
                        "stops the process at breakpoints and events: nothing it times is the install's timing"});
    }
    return seen;
}

std::vector<InstrumentationSeen> collect_instrumentation() {
    ProcessView view;
    std::istringstream maps(read_proc_file("/proc/self/maps").value_or(""));
    for (std::string line; std::getline(maps, line) && view.mapped.size() < 4096;) {
        const auto slash = line.find('/');
        if (slash != std::string::npos) {
            const std::string path = line.substr(slash);
            if (view.mapped.empty() || view.mapped.back() != path) {
                view.mapped.push_back(path);
            }
        }
    }
    for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
        const std::string entry(*e);
        const auto eq = entry.find('=');
        if (eq != std::string::npos) {
            view.environment.emplace(entry.substr(0, eq), entry.substr(eq + 1));
        }
    }
    std::istringstream status(read_proc_file("/proc/self/status").value_or(""));
    for (std::string line; std::getline(status, line);) {
        if (line.starts_with("TracerPid:")) {
            std::istringstream in(line.substr(10));
            long pid = 0;
            in >> pid;
            if (pid > 0) {
                std::istringstream comm(read_proc_file("/proc/" + std::to_string(pid) + "/comm").value_or(""));
                std::getline(comm, view.tracer);
                view.tracer = view.tracer.empty() ? "pid " + std::to_string(pid) : view.tracer;
            }
            break;
        }
    }
    return detect_instrumentation(view);
}

bool instrumentation_can_change(const std::string& check_id) {
    return check_id.starts_with("async.") || check_id.starts_with("framework.");
}

}  // namespace gpuconform
