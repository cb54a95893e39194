// NVIDIA health through NVML (nvml/nvml_library.hpp), one pass over the GPUs with read-only
// queries that need no root. Each call is resolved by name; a driver without it leaves that field
// unread with the reason. The calls, as NVML's reference gives them
// (https://docs.nvidia.com/deploy/nvml-api/group__nvmlDeviceQueries.html, NvLink Methods):
// nvmlDeviceGetCount_v2, nvmlDeviceGetHandleByIndex_v2, nvmlDeviceGetPciInfo_v3, nvmlDeviceGetName,
// nvmlDeviceGetUUID, nvmlDeviceGetVbiosVersion, nvmlDeviceGetInforomImageVersion,
// nvmlDeviceGetEccMode, nvmlDeviceGetTotalEccErrors, nvmlDeviceGetRemappedRows,
// nvmlDeviceGetRowRemapperHistogram, nvmlDeviceGetRetiredPages_v2,
// nvmlDeviceGetRetiredPagesPendingStatus, nvmlDeviceGetCurrentClocksEventReasons (else
// ...ThrottleReasons), nvmlDeviceGetTemperature, nvmlDeviceGetTemperatureThreshold,
// nvmlDeviceGetEnforcedPowerLimit, nvmlDeviceGetPowerManagementDefaultLimit,
// nvmlDeviceGetPcieReplayCounter, nvmlDeviceGetPersistenceMode, nvmlDeviceGetComputeMode,
// nvmlDeviceGetMigMode, nvmlDeviceGetNvLinkState, nvmlDeviceGetNvLinkErrorCounter.
#include <chrono>
#include <cstring>
#include <vector>

#include <fmt/format.h>

#include "health/health_reading.hpp"
#include "health/pcie_aer.hpp"
#include "nvml/nvml_library.hpp"

namespace gpuconform {

namespace {

using nvml::Device;
using nvml::Return;

double unix_now() { return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count(); }

class NvmlHealthReader final : public HealthReader {
public:
    explicit NvmlHealthReader(std::vector<std::string> bdfs) : m_bdfs(std::move(bdfs)) {}
    std::string name() const override { return "nvml"; }
    NodeHealth read() const override;

private:
    std::vector<std::string> m_bdfs;
};

// Calls one query by name with exactly these argument types; -1 when this NVML lacks it.
template <typename... Args>
Return call(const nvml::Library& lib, const char* name, Args... args) {
    auto f = lib.symbol<Return (*)(Args...)>(name);
    if (f == nullptr) {
        return -1;
    }
    return f(args...);
}

template <typename T>
Read<T> failure(const nvml::Library& lib, const char* name, Return r) {
    if (r == nvml::k_error_not_supported) {
        return Read<T>::unsupported();
    }
    if (r == -1) {
        return Read<T>::failed(fmt::format("this driver's NVML lacks {}", name));
    }
    return Read<T>::failed(fmt::format("{}: {}", name, lib.describe(r)));
}

// A query that fills one value of type V, kept as T.
template <typename T, typename V>
Read<T> scalar(const nvml::Library& lib, const char* name, Device dev) {
    V v{};
    const Return r = call(lib, name, dev, &v);
    return r == nvml::k_success ? Read<T>::of(static_cast<T>(v)) : failure<T>(lib, name, r);
}

Read<std::string> text(const nvml::Library& lib, const char* name, Device dev, unsigned int size) {
    std::string buf(size, '\0');
    const Return r = call(lib, name, dev, buf.data(), size);
    if (r != nvml::k_success) {
        return failure<std::string>(lib, name, r);
    }
    buf.resize(buf.find('\0') == std::string::npos ? buf.size() : buf.find('\0'));
    return Read<std::string>::of(buf);
}

Read<std::uint64_t> ecc_count(const nvml::Library& lib, Device dev, int type, int counter) {
    unsigned long long v = 0;
    const Return r = call(lib, "nvmlDeviceGetTotalEccErrors", dev, type, counter, &v);
    return r == nvml::k_success ? Read<std::uint64_t>::of(v)
                                : failure<std::uint64_t>(lib, "nvmlDeviceGetTotalEccErrors", r);
}

void read_memory(const nvml::Library& lib, Device dev, GpuHealth& g) {
    unsigned int current = 0, pending = 0;
    Return r = call(lib, "nvmlDeviceGetEccMode", dev, &current, &pending);
    g.ecc_mode = r == nvml::k_success ? Read<EccMode>::of({current == nvml::k_enabled, pending == nvml::k_enabled})
                                      : failure<EccMode>(lib, "nvmlDeviceGetEccMode", r);
    g.ecc.volatile_uncorrected = ecc_count(lib, dev, nvml::k_memory_error_uncorrected, nvml::k_volatile_ecc);
    g.ecc.volatile_corrected = ecc_count(lib, dev, nvml::k_memory_error_corrected, nvml::k_volatile_ecc);
    g.ecc.aggregate_uncorrected = ecc_count(lib, dev, nvml::k_memory_error_uncorrected, nvml::k_aggregate_ecc);
    g.ecc.aggregate_corrected = ecc_count(lib, dev, nvml::k_memory_error_corrected, nvml::k_aggregate_ecc);

    unsigned int corr = 0, unc = 0, is_pending = 0, failed = 0;
    r = call(lib, "nvmlDeviceGetRemappedRows", dev, &corr, &unc, &is_pending, &failed);
    g.remapped_rows = r == nvml::k_success ? Read<RemappedRows>::of({corr, unc, is_pending != 0, failed != 0})
                                           : failure<RemappedRows>(lib, "nvmlDeviceGetRemappedRows", r);
    nvml::RowRemapperHistogram h{};
    r = call(lib, "nvmlDeviceGetRowRemapperHistogram", dev, &h);
    g.remap_histogram = r == nvml::k_success ? Read<BankHistogram>::of({h.max, h.high, h.partial, h.low, h.none})
                                             : failure<BankHistogram>(lib, "nvmlDeviceGetRowRemapperHistogram", r);

    // Legacy GPUs retire at most 64 pages: a buffer of twice that holds them all.
    RetiredPages pages;
    std::vector<unsigned long long> addresses(128), stamps(128);
    for (int cause : {nvml::k_retired_multiple_single_bit, nvml::k_retired_double_bit}) {
        auto count = static_cast<unsigned int>(addresses.size());
        r = call(lib, "nvmlDeviceGetRetiredPages_v2", dev, cause, &count, addresses.data(), stamps.data());
        if (r != nvml::k_success && r != nvml::k_error_insufficient_size) {
            g.retired_pages = failure<RetiredPages>(lib, "nvmlDeviceGetRetiredPages_v2", r);
            return;
        }
        (cause == nvml::k_retired_double_bit ? pages.double_bit : pages.single_bit) = count;
    }
    unsigned int retire_pending = 0;
    r = call(lib, "nvmlDeviceGetRetiredPagesPendingStatus", dev, &retire_pending);
    if (r != nvml::k_success) {
        g.retired_pages = failure<RetiredPages>(lib, "nvmlDeviceGetRetiredPagesPendingStatus", r);
        return;
    }
    pages.pending = retire_pending == nvml::k_enabled;
    g.retired_pages = Read<RetiredPages>::of(pages);
}

void read_clocks(const nvml::Library& lib, Device dev, GpuHealth& g) {
    g.clock_event_reasons =
        scalar<std::uint64_t, unsigned long long>(lib, "nvmlDeviceGetCurrentClocksEventReasons", dev);
    if (!g.clock_event_reasons.ok() && !g.clock_event_reasons.not_supported) {
        g.clock_event_reasons =
            scalar<std::uint64_t, unsigned long long>(lib, "nvmlDeviceGetCurrentClocksThrottleReasons", dev);
    }
    unsigned int v = 0;
    Return r = call(lib, "nvmlDeviceGetTemperature", dev, nvml::k_temperature_gpu, &v);
    g.temperature_c =
        r == nvml::k_success ? Read<unsigned int>::of(v) : failure<unsigned int>(lib, "nvmlDeviceGetTemperature", r);
    r = call(lib, "nvmlDeviceGetTemperatureThreshold", dev, nvml::k_threshold_slowdown, &v);
    g.slowdown_c = r == nvml::k_success ? Read<unsigned int>::of(v)
                                        : failure<unsigned int>(lib, "nvmlDeviceGetTemperatureThreshold", r);
    r = call(lib, "nvmlDeviceGetTemperatureThreshold", dev, nvml::k_threshold_shutdown, &v);
    g.shutdown_c = r == nvml::k_success ? Read<unsigned int>::of(v)
                                        : failure<unsigned int>(lib, "nvmlDeviceGetTemperatureThreshold", r);
    g.power_limit_mw = scalar<unsigned int, unsigned int>(lib, "nvmlDeviceGetEnforcedPowerLimit", dev);
    g.default_power_limit_mw = scalar<unsigned int, unsigned int>(lib, "nvmlDeviceGetPowerManagementDefaultLimit", dev);
}

void read_modes(const nvml::Library& lib, Device dev, GpuHealth& g) {
    const auto persistence = scalar<unsigned int, unsigned int>(lib, "nvmlDeviceGetPersistenceMode", dev);
    g.persistence = persistence.ok() ? Read<bool>::of(*persistence.value == nvml::k_enabled)
                                     : Read<bool>{std::nullopt, persistence.not_supported, persistence.error};
    g.compute_mode = scalar<unsigned int, unsigned int>(lib, "nvmlDeviceGetComputeMode", dev);
    unsigned int current = 0, pending = 0;
    const Return r = call(lib, "nvmlDeviceGetMigMode", dev, &current, &pending);
    g.mig_current = r == nvml::k_success ? Read<bool>::of(current != 0) : failure<bool>(lib, "nvmlDeviceGetMigMode", r);
    g.mig_pending = r == nvml::k_success ? Read<bool>::of(pending != 0) : failure<bool>(lib, "nvmlDeviceGetMigMode", r);
}

Read<std::uint64_t> nvlink_counter(const nvml::Library& lib, Device dev, unsigned int link, int counter) {
    unsigned long long v = 0;
    const Return r = call(lib, "nvmlDeviceGetNvLinkErrorCounter", dev, link, counter, &v);
    return r == nvml::k_success ? Read<std::uint64_t>::of(v)
                                : failure<std::uint64_t>(lib, "nvmlDeviceGetNvLinkErrorCounter", r);
}

// Links past the device's last answer NOT_SUPPORTED or INVALID_ARGUMENT; a GPU with none has no links.
void read_nvlinks(const nvml::Library& lib, Device dev, GpuHealth& g) {
    std::vector<NvLinkState> links;
    for (unsigned int link = 0; link < nvml::k_nvlink_max_links; ++link) {
        unsigned int active = 0;
        const Return r = call(lib, "nvmlDeviceGetNvLinkState", dev, link, &active);
        if (r == nvml::k_error_not_supported || r == nvml::k_error_invalid_argument) {
            continue;
        }
        if (r != nvml::k_success) {
            g.nvlinks = failure<std::vector<NvLinkState>>(lib, "nvmlDeviceGetNvLinkState", r);
            return;
        }
        NvLinkState s;
        s.link = link;
        s.active = active == nvml::k_enabled;
        s.replay = nvlink_counter(lib, dev, link, nvml::k_nvlink_error_dl_replay);
        s.recovery = nvlink_counter(lib, dev, link, nvml::k_nvlink_error_dl_recovery);
        s.crc_flit = nvlink_counter(lib, dev, link, nvml::k_nvlink_error_dl_crc_flit);
        s.crc_data = nvlink_counter(lib, dev, link, nvml::k_nvlink_error_dl_crc_data);
        links.push_back(std::move(s));
    }
    g.nvlinks =
        links.empty() ? Read<std::vector<NvLinkState>>::unsupported() : Read<std::vector<NvLinkState>>::of(links);
}

GpuHealth read_gpu(const nvml::Library& lib, Device dev, int index) {
    GpuHealth g;
    g.backend = "cuda";
    g.index = index;
    nvml::PciInfo pci{};
    if (call(lib, "nvmlDeviceGetPciInfo_v3", dev, &pci) == nvml::k_success) {
        g.pci_bus_id = std::string(pci.bus_id, strnlen(pci.bus_id, sizeof pci.bus_id));
    }
    g.name = text(lib, "nvmlDeviceGetName", dev, nvml::k_name_buffer).value.value_or("");
    g.uuid = text(lib, "nvmlDeviceGetUUID", dev, nvml::k_uuid_buffer).value.value_or("");
    g.vbios = text(lib, "nvmlDeviceGetVbiosVersion", dev, nvml::k_vbios_buffer);
    g.inforom = text(lib, "nvmlDeviceGetInforomImageVersion", dev, nvml::k_inforom_buffer);
    read_memory(lib, dev, g);
    read_clocks(lib, dev, g);
    g.pcie_replays = scalar<unsigned int, unsigned int>(lib, "nvmlDeviceGetPcieReplayCounter", dev);
    if (const std::string bdf = sysfs_bdf(g.pci_bus_id); !bdf.empty()) {
        g.aer = read_pcie_aer("/sys/bus/pci/devices/" + bdf);
    } else {
        g.aer = Read<AerCounts>::failed("NVML gave no PCI bus id to find the AER counters by");
    }
    g.read_at_unix_s = unix_now();
    read_modes(lib, dev, g);
    read_nvlinks(lib, dev, g);
    return g;
}

NodeHealth NvmlHealthReader::read() const {
    NodeHealth node;
    node.source = "nvml";
    node.backend = "cuda";
    node.pci_gpus = static_cast<int>(m_bdfs.size());
    node.pci_bdfs = m_bdfs;
    const nvml::Library& lib = nvml::Library::instance();
    if (!lib.ready()) {
        node.error = lib.error();
        return node;
    }
    std::string version(nvml::k_driver_version_buffer, '\0');
    if (call(lib, "nvmlSystemGetDriverVersion", version.data(), nvml::k_driver_version_buffer) == nvml::k_success) {
        node.driver_version = version.c_str();
    }
    unsigned int count = 0;
    if (const Return r = call(lib, "nvmlDeviceGetCount_v2", &count); r != nvml::k_success) {
        node.error = "nvmlDeviceGetCount_v2: " + lib.describe(r);
        return node;
    }
    for (unsigned int i = 0; i < count; ++i) {
        Device dev = nullptr;
        if (const Return r = call(lib, "nvmlDeviceGetHandleByIndex_v2", i, &dev); r != nvml::k_success) {
            // A GPU NVML counts but cannot open (lost, no permission) is read as nothing but its error.
            GpuHealth g;
            g.backend = "cuda";
            g.index = static_cast<int>(i);
            g.vbios = Read<std::string>::failed("nvmlDeviceGetHandleByIndex_v2: " + lib.describe(r));
            node.gpus.push_back(std::move(g));
            continue;
        }
        node.gpus.push_back(read_gpu(lib, dev, static_cast<int>(i)));
    }
    return node;
}

}  // namespace

std::unique_ptr<HealthReader> make_nvml_health_reader(std::vector<std::string> bdfs) {
    return std::make_unique<NvmlHealthReader>(std::move(bdfs));
}

}  // namespace gpuconform
