// What the health layer reads of each GPU, without any GPU runtime: one reading per vendor's set
// of GPUs, made once per run by a HealthReader (NVML, amdgpu sysfs, or the simulated node) and
// judged by the health checks (docs/gpu-health.md). A field that could not be read says why; it
// is never zero.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "health/xid_catalog.hpp"

namespace gpuconform {

// One reading: a value, or why there is none.
template <typename T>
struct Read {
    std::optional<T> value;
    bool not_supported = false;  // the device has no such feature (NVML_ERROR_NOT_SUPPORTED, no sysfs file)
    std::string error;           // any other reason it could not be read

    bool ok() const { return value.has_value(); }
    static Read of(T v) { return Read{std::move(v), false, {}}; }
    static Read unsupported() { return Read{std::nullopt, true, {}}; }
    static Read failed(std::string why) { return Read{std::nullopt, false, std::move(why)}; }
    // "not supported" or the error, for a summary.
    std::string why() const { return not_supported ? "not supported on this GPU" : error; }
};

struct EccMode {
    bool current = false;
    bool pending = false;
};

struct EccCounts {
    Read<std::uint64_t> volatile_uncorrected, volatile_corrected;    // since the driver last loaded
    Read<std::uint64_t> aggregate_uncorrected, aggregate_corrected;  // over the GPU's life
};

struct RemappedRows {  // nvmlDeviceGetRemappedRows
    unsigned int correctable = 0;
    unsigned int uncorrectable = 0;
    bool pending = false;
    bool failure = false;
};

struct BankHistogram {  // nvmlRowRemapperHistogramValues_t: banks by how many spare rows are left
    unsigned int max = 0, high = 0, partial = 0, low = 0, none = 0;
};

struct RetiredPages {             // nvmlDeviceGetRetiredPages_v2 by cause, and the pending status
    unsigned int single_bit = 0;  // retired for multiple single-bit errors
    unsigned int double_bit = 0;  // retired for a double-bit error
    bool pending = false;
};

struct NvLinkState {
    unsigned int link = 0;
    bool active = false;
    Read<std::uint64_t> replay, recovery, crc_flit, crc_data;  // error counters
};

// PCIe Advanced Error Reporting totals the kernel keeps per device (sysfs aer_dev_correctable,
// aer_dev_fatal, aer_dev_nonfatal; health/pcie_aer.hpp), since the kernel found the device.
struct AerCounts {
    std::uint64_t correctable = 0;
    std::uint64_t fatal = 0;
    std::uint64_t nonfatal = 0;
};

struct GpuHealth {
    std::string backend;  // "cuda", "hip", "sim": the results are named <backend>:<index>
    int index = 0;        // the reader's order (NVML's, PCI bus order)
    std::string pci_bus_id;
    std::string name;
    std::string uuid;
    Read<std::string> vbios, inforom;

    Read<EccMode> ecc_mode;
    EccCounts ecc;
    Read<RemappedRows> remapped_rows;
    Read<BankHistogram> remap_histogram;
    Read<RetiredPages> retired_pages;

    Read<std::uint64_t> clock_event_reasons;  // bit mask, nvml_api.hpp's k_reason_*
    Read<unsigned int> temperature_c, slowdown_c, shutdown_c;
    Read<unsigned int> power_limit_mw, default_power_limit_mw;

    Read<unsigned int> pcie_replays;
    Read<AerCounts> aer;        // not supported: the kernel has no AER files for this device
    double read_at_unix_s = 0;  // when the counters were read (health.error_growth judges growth)

    Read<bool> persistence;
    Read<unsigned int> compute_mode;  // nvml_api.hpp's k_compute_*
    Read<bool> mig_current, mig_pending;
    Read<std::vector<NvLinkState>> nvlinks;  // empty value: no links
};

// One vendor's GPUs as one reader saw them.
struct NodeHealth {
    std::string source;                 // "nvml", "amdgpu-sysfs", "sim"
    std::string backend;                // "cuda", "hip", "sim"
    std::string error;                  // the reader could not enumerate at all ("" when it could)
    int pci_gpus = 0;                   // this vendor's GPUs on the PCI bus (the environment's scan)
    std::vector<std::string> pci_bdfs;  // their addresses, "0000:18:00.0"
    // A variable that gives this process only some GPUs (NVIDIA_VISIBLE_DEVICES in a container:
    // NVML sees only the device nodes it was given), "NAME='value'"; "" when none.
    std::string visibility;
    std::string driver_version;
    std::vector<GpuHealth> gpus;
    // GPU error events in the kernel log since boot (health/kernel_log.hpp), read once per run for
    // every reader; when it could not be read, `kernel_log_unreadable` says why (never "no event").
    bool kernel_log_read = false;
    std::string kernel_log_unreadable;
    std::size_t kernel_log_records = 0;
    std::vector<GpuEvent> gpu_events;
    // On a reading made after the device layer: the same reader's reading from before it, which
    // health.error_growth compares with (runner/health_phase.hpp); null on the first reading.
    const NodeHealth* before = nullptr;
};

// A source of health readings for one vendor. Cheap (milliseconds), no GPU work, no root.
class HealthReader {
public:
    virtual ~HealthReader() = default;
    virtual std::string name() const = 0;
    virtual NodeHealth read() const = 0;
};

// NVML (nvml_reader.cpp); `bdfs`: the NVIDIA GPUs the environment found on the PCI bus.
std::unique_ptr<HealthReader> make_nvml_health_reader(std::vector<std::string> bdfs);
// amdgpu sysfs under `root` (amdgpu_reader.cpp): /sys/bus/pci/devices/<bdf>/ of each AMD GPU.
std::unique_ptr<HealthReader> make_amdgpu_health_reader(std::string root, std::vector<std::string> bdfs);
// The simulated node (sim_reader.cpp), from the sim module's options string (fault knobs).
std::unique_ptr<HealthReader> make_sim_health_reader(std::string sim_options);

}  // namespace gpuconform
