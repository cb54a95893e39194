// NVIDIA: NVML through nvml/nvml_library.hpp (loaded at run time, never linked). The calls used
// here, as NVML's API reference gives them:
//   https://docs.nvidia.com/deploy/nvml-api/group__nvmlDeviceQueries.html
//   (nvmlDeviceGetComputeRunningProcesses_v3, nvmlDeviceGetGraphicsRunningProcesses_v3,
//    nvmlDeviceGetUtilizationRates, nvmlDeviceGetMemoryInfo, nvmlDeviceGetHandleByPciBusId_v2)
#include <fmt/format.h>

#include "nvml/nvml_library.hpp"
#include "occupancy/occupancy.hpp"
#include "occupancy/proc_names.hpp"

namespace gpuconform {

namespace {

using nvml::Device;
using nvml::Return;

struct Nvml {
    const nvml::Library* lib = nullptr;
    std::string error;
    Return (*by_pci)(const char*, Device*) = nullptr;
    Return (*compute)(Device, unsigned int*, nvml::ProcessInfo*) = nullptr;
    Return (*graphics)(Device, unsigned int*, nvml::ProcessInfo*) = nullptr;
    Return (*utilization)(Device, nvml::Utilization*) = nullptr;
    Return (*memory)(Device, nvml::Memory*) = nullptr;

    template <typename F>
    bool bind(F& f, const char* name) {
        f = lib->symbol<F>(name);
        if (f == nullptr) {
            error = fmt::format("libnvidia-ml.so.1 lacks {}", name);
        }
        return f != nullptr;
    }

    std::string describe(Return r) const { return lib->describe(r); }

    void open() {
        lib = &nvml::Library::instance();
        if (!lib->ready()) {
            error = lib->error();
            return;
        }
        if (!(bind(by_pci, "nvmlDeviceGetHandleByPciBusId_v2") &&
              bind(compute, "nvmlDeviceGetComputeRunningProcesses_v3") &&
              bind(graphics, "nvmlDeviceGetGraphicsRunningProcesses_v3") &&
              bind(utilization, "nvmlDeviceGetUtilizationRates") && bind(memory, "nvmlDeviceGetMemoryInfo"))) {
            by_pci = nullptr;
        }
    }
    bool ready() const { return by_pci != nullptr; }
};

const Nvml& nvml_calls() {
    static const Nvml calls = [] {
        Nvml n;
        n.open();
        return n;
    }();
    return calls;
}

void add_processes(const Nvml& lib, Device dev, decltype(Nvml::compute) query, const char* what, GpuOccupancy& o,
                   const std::set<int>& own) {
    unsigned int count = 0;
    Return r = query(dev, &count, nullptr);
    if (r != nvml::k_success && r != nvml::k_error_insufficient_size) {
        o.error += fmt::format("{}nvml {} processes: {}", o.error.empty() ? "" : "; ", what, lib.describe(r));
        return;
    }
    std::vector<nvml::ProcessInfo> infos(count + 8);  // room for processes that start meanwhile
    count = static_cast<unsigned int>(infos.size());
    r = query(dev, &count, infos.data());
    if (r != nvml::k_success) {
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
        if (infos[i].used_gpu_memory != nvml::k_value_not_available) {
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
        const Nvml& lib = nvml_calls();
        if (!lib.ready()) {
            o.error += (o.error.empty() ? "" : "; ") + lib.error;
            return;
        }
        Device dev = nullptr;
        if (const Return r = lib.by_pci(o.pci_bus_id.c_str(), &dev); r != nvml::k_success) {
            o.error += fmt::format("{}nvml has no device at '{}': {}", o.error.empty() ? "" : "; ", o.pci_bus_id,
                                   lib.describe(r));
            return;
        }
        o.sources.push_back(name());
        add_processes(lib, dev, lib.compute, "compute", o, own);
        add_processes(lib, dev, lib.graphics, "graphics", o, own);
        nvml::Utilization u{};
        if (lib.utilization(dev, &u) == nvml::k_success) {
            o.utilization_pct = u.gpu;
        }
        nvml::Memory m{};
        if (lib.memory(dev, &m) == nvml::k_success) {
            o.memory_used_bytes = static_cast<double>(m.used);
        }
    }
};

}  // namespace

std::unique_ptr<OccupancyProvider> make_nvml_provider() { return std::make_unique<NvmlProvider>(); }

}  // namespace gpuconform
