// The simulated node's health: healthy H200-like readings (the values an H200 showed, in
// docs/gpu-health.md) on every simulated device, changed by the health fault knobs of the sim
// module's options string (backend/sim/sim_options.hpp), so `selftest` proves each check trips.
#include <ctime>

#include <fmt/format.h>

#include "backend/sim/sim_options.hpp"
#include "health/health_reading.hpp"
#include "nvml/nvml_api.hpp"

namespace gpuconform {

namespace {

using sim::Fault;

constexpr unsigned int k_default_limit_mw = 700'000;
constexpr unsigned int k_capped_limit_mw = 450'000;
constexpr unsigned int k_slowdown_c = 87;
// pcie_replays_growing: replays added at each later reading, above DCGM's 80 per 15 minutes.
constexpr unsigned int k_replays_per_reading = 100;

std::string sim_bdf(int index) { return fmt::format("0000:{:02x}:00.0", 0x18 + index); }

GpuHealth healthy_gpu(int index) {
    GpuHealth g;
    g.backend = "sim";
    g.index = index;
    g.pci_bus_id = sim_bdf(index);
    g.name = "Simulated GPU";
    g.uuid = fmt::format("GPU-sim-{}", index);
    g.vbios = Read<std::string>::of("96.00.A5.00.1A");
    g.inforom = Read<std::string>::of("G520.0200.00.05");
    g.ecc_mode = Read<EccMode>::of({true, true});
    g.ecc = {Read<std::uint64_t>::of(0), Read<std::uint64_t>::of(0), Read<std::uint64_t>::of(0),
             Read<std::uint64_t>::of(0)};
    g.remapped_rows = Read<RemappedRows>::of({});
    g.remap_histogram = Read<BankHistogram>::of({3072, 0, 0, 0, 0});
    g.retired_pages = Read<RetiredPages>::unsupported();  // a GPU that remaps rows retires no pages
    g.clock_event_reasons = Read<std::uint64_t>::of(nvml::k_reason_gpu_idle);
    g.temperature_c = Read<unsigned int>::of(36);
    g.slowdown_c = Read<unsigned int>::of(k_slowdown_c);
    g.shutdown_c = Read<unsigned int>::of(92);
    g.power_limit_mw = Read<unsigned int>::of(k_default_limit_mw);
    g.default_power_limit_mw = Read<unsigned int>::of(k_default_limit_mw);
    g.pcie_replays = Read<unsigned int>::of(0);
    g.aer = Read<AerCounts>::of({});
    g.read_at_unix_s = static_cast<double>(std::time(nullptr));
    g.persistence = Read<bool>::of(true);
    g.compute_mode = Read<unsigned int>::of(nvml::k_compute_default);
    g.mig_current = Read<bool>::of(false);
    g.mig_pending = Read<bool>::of(false);
    g.nvlinks = Read<std::vector<NvLinkState>>::unsupported();  // a PCIe card: no links
    return g;
}

// `reading`: how many readings this reader made before (0 for the first).
void apply_faults(const sim::FaultSet& faults, GpuHealth& g, unsigned int reading) {
    if (faults.has(Fault::EccUncorrectable)) {
        g.ecc.volatile_uncorrected = Read<std::uint64_t>::of(2);
        g.ecc.aggregate_uncorrected = Read<std::uint64_t>::of(2);
    }
    if (faults.has(Fault::RowRemapPending)) {
        g.remapped_rows.value->uncorrectable = 1;
        g.remapped_rows.value->pending = true;
    }
    if (faults.has(Fault::RowRemapFailure)) {
        g.remapped_rows.value->failure = true;
        g.remap_histogram.value->none = 1;
        g.remap_histogram.value->max -= 1;
    }
    if (faults.has(Fault::ThermalSlowdown)) {
        g.clock_event_reasons = Read<std::uint64_t>::of(nvml::k_reason_hw_thermal | nvml::k_reason_hw_slowdown);
        g.temperature_c = Read<unsigned int>::of(k_slowdown_c);
    }
    if (faults.has(Fault::PowerCapped)) {
        g.power_limit_mw = Read<unsigned int>::of(k_capped_limit_mw);
    }
    if (faults.has(Fault::PcieReplaysGrowing)) {
        g.pcie_replays = Read<unsigned int>::of(reading * k_replays_per_reading);
    }
    if (faults.has(Fault::VbiosOdd)) {
        g.vbios = Read<std::string>::of("96.00.74.00.01");
    }
}

class SimHealthReader final : public HealthReader {
public:
    explicit SimHealthReader(std::string options) : m_options(std::move(options)) {}
    std::string name() const override { return "sim"; }
    NodeHealth read() const override {
        NodeHealth node;
        node.source = "sim";
        node.backend = "sim";
        node.driver_version = "sim";
        std::string error;
        const auto opts = sim::parse_sim_options(m_options, &error);
        if (!opts) {
            node.error = error;
            return node;
        }
        node.pci_gpus = opts->devices;
        // The simulated kernel log goes through the real parser and catalog.
        std::string kernel_log;
        for (int d = 0; d < opts->devices; ++d) {
            node.pci_bdfs.push_back(sim_bdf(d));
            const auto& faults = opts->faults[static_cast<std::size_t>(d)];
            if (faults.has(Fault::GpuMissing)) {
                continue;  // on the bus, gone from the driver: as NVML shows a GPU that fell off
            }
            if (faults.has(Fault::Xid79)) {
                kernel_log += fmt::format(
                    "[ 4211.094512] NVRM: Xid (PCI:{}): 79, pid=1186, name=python3, GPU has fallen off the bus.\n",
                    sim_bdf(d));
            }
            GpuHealth g = healthy_gpu(d);
            apply_faults(faults, g, m_readings);
            node.gpus.push_back(std::move(g));
        }
        const auto records = parse_dmesg_text(kernel_log);
        node.kernel_log_read = true;
        node.kernel_log_records = records.size();
        node.gpu_events = find_gpu_events(records);
        ++m_readings;
        return node;
    }

private:
    std::string m_options;
    mutable unsigned int m_readings = 0;  // counters that grow do so from one reading to the next
};

}  // namespace

std::unique_ptr<HealthReader> make_sim_health_reader(std::string sim_options) {
    return std::make_unique<SimHealthReader>(std::move(sim_options));
}

}  // namespace gpuconform
