// Readings for the health tests: a healthy H200 as the lent one read (docs/gpu-health.md), to be
// changed one field at a time.
#pragma once

#include "health/health_reading.hpp"
#include "nvml/nvml_api.hpp"

namespace gpuconform::test {

inline GpuHealth healthy_h200(int index = 0) {
    GpuHealth g;
    g.backend = "cuda";
    g.index = index;
    g.pci_bus_id = "00000000:18:00.0";
    g.name = "NVIDIA H200";
    g.vbios = Read<std::string>::of("96.00.A5.00.1A");
    g.inforom = Read<std::string>::of("G520.0200.00.05");
    g.ecc_mode = Read<EccMode>::of({true, true});
    g.ecc = {Read<std::uint64_t>::of(0), Read<std::uint64_t>::of(0), Read<std::uint64_t>::of(0),
             Read<std::uint64_t>::of(0)};
    g.remapped_rows = Read<RemappedRows>::of({});
    g.remap_histogram = Read<BankHistogram>::of({3072, 0, 0, 0, 0});
    g.retired_pages = Read<RetiredPages>::unsupported();
    g.clock_event_reasons = Read<std::uint64_t>::of(0);
    g.temperature_c = Read<unsigned int>::of(36);
    g.slowdown_c = Read<unsigned int>::of(87);
    g.shutdown_c = Read<unsigned int>::of(92);
    g.power_limit_mw = Read<unsigned int>::of(700'000);
    g.default_power_limit_mw = Read<unsigned int>::of(700'000);
    g.pcie_replays = Read<unsigned int>::of(1);
    g.aer = Read<AerCounts>::unsupported();  // the lent H200's VM exposes no aer_dev_* files
    g.persistence = Read<bool>::of(true);
    g.compute_mode = Read<unsigned int>::of(nvml::k_compute_default);
    g.mig_current = Read<bool>::of(false);
    g.mig_pending = Read<bool>::of(false);
    g.nvlinks = Read<std::vector<NvLinkState>>::unsupported();
    return g;
}

inline NodeHealth node_of(int gpus, int on_bus) {
    NodeHealth n;
    n.source = "nvml";
    n.backend = "cuda";
    n.pci_gpus = on_bus;
    for (int i = 0; i < on_bus; ++i) {
        n.pci_bdfs.push_back("0000:" + std::to_string(18 + i) + ":00.0");
    }
    for (int i = 0; i < gpus; ++i) {
        n.gpus.push_back(healthy_h200(i));
        n.gpus.back().pci_bus_id = "00000000:" + std::to_string(18 + i) + ":00.0";
    }
    return n;
}

}  // namespace gpuconform::test
