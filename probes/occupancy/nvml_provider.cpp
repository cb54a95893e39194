// NVIDIA: NVML, opened with dlopen("libnvidia-ml.so.1") when first needed and never linked, so
// the executable runs on nodes without the driver. Only the few calls and structs used here are
// declared, as NVML's API reference gives them:
//   https://docs.nvidia.com/deploy/nvml-api/group__nvmlDeviceQueries.html
//   (nvmlDeviceGetComputeRunningProcesses_v3, nvmlDeviceGetGraphicsRunningProcesses_v3,
//    nvmlDeviceGetUtilizationRates, nvmlDeviceGetMemoryInfo, nvmlDeviceGetHandleByPciBusId_v2)
//   https://docs.nvidia.com/deploy/nvml-api/group__nvmlInitializationAndCleanup.html (nvmlInit_v2)
#include <dlfcn.h>

#include <mutex>

#include <fmt/format.h>

#include "occupancy/occupancy.hpp"
#include "occupancy/proc_names.hpp"

namespace gpuconform {

namespace {

using NvmlReturn = int;
constexpr NvmlReturn k_nvml_success = 0;
constexpr NvmlReturn k_nvml_insufficient_size = 7;
using NvmlDevice = void*;

struct NvmlProcessInfo {  // nvmlProcessInfo_t as the _v3 queries fill it
    unsigned int pid;
    unsigned long long used_gpu_memory;
    unsigned int gpu_instance_id;
    unsigned int compute_instance_id;
};
struct NvmlUtilization {
    unsigned int gpu;
    unsigned int memory;
};
struct NvmlMemory {
    unsigned long long total;
    unsigned long long free;
    unsigned long long used;
};
// NVML reports "not available" memory as this value (NVML_VALUE_NOT_AVAILABLE).
constexpr unsigned long long k_nvml_value_not_available = ~0ull;

struct Nvml {
    void* handle = nullptr;
    std::string error;
    NvmlReturn (*init)() = nullptr;
    const char* (*error_string)(NvmlReturn) = nullptr;
    NvmlReturn (*by_pci)(const char*, NvmlDevice*) = nullptr;
    NvmlReturn (*compute)(NvmlDevice, unsigned int*, NvmlProcessInfo*) = nullptr;
    NvmlReturn (*graphics)(NvmlDevice, unsigned int*, NvmlProcessInfo*) = nullptr;
    NvmlReturn (*utilization)(NvmlDevice, NvmlUtilization*) = nullptr;
    NvmlReturn (*memory)(NvmlDevice, NvmlMemory*) = nullptr;

    template <typename F>
    bool bind(F& f, const char* symbol) {
        f = reinterpret_cast<F>(dlsym(handle, symbol));
        if (f == nullptr) {
            error = fmt::format("libnvidia-ml.so.1 lacks {}", symbol);
        }
        return f != nullptr;
    }

    std::string describe(NvmlReturn r) const {
        return error_string != nullptr ? fmt::format("{} ({})", error_string(r), r) : fmt::format("NVML error {}", r);
    }

    void open() {
        handle = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
        if (handle == nullptr) {
            const char* why = dlerror();
            error = fmt::format("NVML not loadable: {}", why != nullptr ? why : "dlopen failed");
            return;
        }
        if (!(bind(init, "nvmlInit_v2") && bind(error_string, "nvmlErrorString") &&
              bind(by_pci, "nvmlDeviceGetHandleByPciBusId_v2") &&
              bind(compute, "nvmlDeviceGetComputeRunningProcesses_v3") &&
              bind(graphics, "nvmlDeviceGetGraphicsRunningProcesses_v3") &&
              bind(utilization, "nvmlDeviceGetUtilizationRates") && bind(memory, "nvmlDeviceGetMemoryInfo"))) {
            init = nullptr;
            return;
        }
        if (const NvmlReturn r = init(); r != k_nvml_success) {
            error = "nvmlInit_v2 failed: " + describe(r);
            init = nullptr;
        }
    }
    bool ready() const { return init != nullptr; }
};

// Opened once per process; NVML stays initialised until exit (nvmlShutdown is not needed).
const Nvml& nvml() {
    static Nvml lib;
    static std::once_flag once;
    std::call_once(once, [] { lib.open(); });
    return lib;
}

void add_processes(const Nvml& lib, NvmlDevice dev, decltype(Nvml::compute) query, const char* what, GpuOccupancy& o,
                   const std::set<int>& own) {
    unsigned int count = 0;
    NvmlReturn r = query(dev, &count, nullptr);
    if (r != k_nvml_success && r != k_nvml_insufficient_size) {
        o.error += fmt::format("{}nvml {} processes: {}", o.error.empty() ? "" : "; ", what, lib.describe(r));
        return;
    }
    std::vector<NvmlProcessInfo> infos(count + 8);  // room for processes that start meanwhile
    count = static_cast<unsigned int>(infos.size());
    r = query(dev, &count, infos.data());
    if (r != k_nvml_success) {
        o.error += fmt::format("{}nvml {} processes: {}", o.error.empty() ? "" : "; ", what, lib.describe(r));
        return;
    }
    for (unsigned int i = 0; i < count; ++i) {
        const int pid = static_cast<int>(infos[i].pid);
        if (own.count(pid) != 0) {
            o.list_sees_us = true;
            continue;
        }
        OtherProcess p{pid, process_name("/", pid), std::nullopt};
        if (infos[i].used_gpu_memory != k_nvml_value_not_available) {
            p.memory_bytes = infos[i].used_gpu_memory;
        }
        merge_process(o.others, p);
    }
}

class NvmlProvider final : public OccupancyProvider {
public:
    std::string name() const override { return "nvml"; }
    bool handles(const std::string& backend) const override { return backend == "cuda"; }
    void read(GpuOccupancy& o, const std::set<int>& own) const override {
        const Nvml& lib = nvml();
        if (!lib.ready()) {
            o.error += (o.error.empty() ? "" : "; ") + lib.error;
            return;
        }
        NvmlDevice dev = nullptr;
        if (const NvmlReturn r = lib.by_pci(o.pci_bus_id.c_str(), &dev); r != k_nvml_success) {
            o.error += fmt::format("{}nvml has no device at '{}': {}", o.error.empty() ? "" : "; ", o.pci_bus_id,
                                   lib.describe(r));
            return;
        }
        o.sources.push_back(name());
        add_processes(lib, dev, lib.compute, "compute", o, own);
        add_processes(lib, dev, lib.graphics, "graphics", o, own);
        NvmlUtilization u{};
        if (lib.utilization(dev, &u) == k_nvml_success) {
            o.utilization_pct = u.gpu;
        }
        NvmlMemory m{};
        if (lib.memory(dev, &m) == k_nvml_success) {
            o.memory_used_bytes = static_cast<double>(m.used);
        }
    }
};

}  // namespace

std::unique_ptr<OccupancyProvider> make_nvml_provider() { return std::make_unique<NvmlProvider>(); }

}  // namespace gpuconform
