// AMD health through amdgpu's sysfs under /sys/bus/pci/devices/<bdf>/, readable without root:
// ras/*_err_count (ue/ce per IP block) and ras/gpu_vram_bad_pages (docs.kernel.org/gpu/amdgpu/ras.html),
// vbios_version and pcie_replay_count (driver-misc), hwmon temp1_input/temp1_crit/temp1_emergency
// and power1_cap/power1_cap_default (thermal.html). What sysfs has no file for (row remapping,
// clock event reasons outside the binary gpu_metrics, persistence, compute and MIG modes) is left
// "not supported", never read as healthy.
#include <filesystem>
#include <fstream>
#include <sstream>

#include "health/amdgpu_sysfs.hpp"
#include "health/health_reading.hpp"
#include "health/pcie_aer.hpp"

namespace gpuconform {

namespace {

namespace fs = std::filesystem;

std::optional<std::string> slurp(const fs::path& p) {
    std::ifstream in(p);
    if (!in) {
        return std::nullopt;
    }
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

// A number file (sysfs integers), scaled by 1/`divisor`.
Read<unsigned int> number_file(const fs::path& p, unsigned long long divisor) {
    const auto text = slurp(p);
    if (!text) {
        return Read<unsigned int>::unsupported();
    }
    try {
        return Read<unsigned int>::of(static_cast<unsigned int>(std::stoull(*text) / divisor));
    } catch (const std::exception&) {
        return Read<unsigned int>::failed(p.string() + ": not a number: " + first_line(*text));
    }
}

fs::path hwmon_of(const fs::path& dev) {
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dev / "hwmon", ec)) {
        return e.path();
    }
    return {};
}

void read_ras(const fs::path& dev, GpuHealth& g) {
    const fs::path ras = dev / "ras";
    std::error_code ec;
    if (!fs::is_directory(ras, ec)) {
        g.ecc_mode = Read<EccMode>::unsupported();
        g.ecc = {Read<std::uint64_t>::unsupported(), Read<std::uint64_t>::unsupported(),
                 Read<std::uint64_t>::unsupported(), Read<std::uint64_t>::unsupported()};
        g.retired_pages = Read<RetiredPages>::unsupported();
        return;
    }
    g.ecc_mode = Read<EccMode>::of({true, true});  // RAS is on when the driver made ras/
    RasCount total;
    for (const auto& e : fs::directory_iterator(ras, ec)) {
        const std::string name = e.path().filename().string();
        if (!name.ends_with("_err_count")) {
            continue;
        }
        const auto text = slurp(e.path());
        const auto c = text ? parse_ras_err_count(*text) : std::nullopt;
        if (!c) {
            g.ecc.volatile_uncorrected = Read<std::uint64_t>::failed(e.path().string() + " has no ue/ce lines");
            g.ecc.volatile_corrected = g.ecc.volatile_uncorrected;
            return;
        }
        total.uncorrectable += c->uncorrectable;
        total.correctable += c->correctable;
    }
    // The driver's counts since it loaded; amdgpu keeps no lifetime count in sysfs.
    g.ecc.volatile_uncorrected = Read<std::uint64_t>::of(total.uncorrectable);
    g.ecc.volatile_corrected = Read<std::uint64_t>::of(total.correctable);
    g.ecc.aggregate_uncorrected = Read<std::uint64_t>::unsupported();
    g.ecc.aggregate_corrected = Read<std::uint64_t>::unsupported();
    if (const auto pages = slurp(ras / "gpu_vram_bad_pages")) {
        const BadPages b = parse_bad_pages(*pages);
        g.retired_pages = Read<RetiredPages>::of({0, b.reserved, b.pending > 0});
    } else {
        g.retired_pages = Read<RetiredPages>::unsupported();
    }
}

GpuHealth read_gpu(const fs::path& dev, const std::string& bdf, int index) {
    GpuHealth g;
    g.backend = "hip";
    g.index = index;
    g.pci_bus_id = bdf;
    g.name = first_line(slurp(dev / "product_name").value_or("AMD GPU"));
    g.uuid = first_line(slurp(dev / "unique_id").value_or(""));
    const auto vbios = slurp(dev / "vbios_version");
    g.vbios = vbios ? Read<std::string>::of(first_line(*vbios)) : Read<std::string>::unsupported();
    g.inforom = Read<std::string>::unsupported();
    read_ras(dev, g);
    g.remapped_rows = Read<RemappedRows>::unsupported();
    g.remap_histogram = Read<BankHistogram>::unsupported();
    g.clock_event_reasons = Read<std::uint64_t>::unsupported();
    const fs::path hwmon = hwmon_of(dev);
    g.temperature_c = number_file(hwmon / "temp1_input", 1000);  // millidegrees
    g.slowdown_c = number_file(hwmon / "temp1_crit", 1000);
    g.shutdown_c = number_file(hwmon / "temp1_emergency", 1000);
    g.power_limit_mw = number_file(hwmon / "power1_cap", 1000);  // microwatts
    g.default_power_limit_mw = number_file(hwmon / "power1_cap_default", 1000);
    g.pcie_replays = number_file(dev / "pcie_replay_count", 1);
    g.aer = read_pcie_aer(dev.string());
    g.read_at_unix_s = static_cast<double>(std::time(nullptr));
    g.persistence = Read<bool>::unsupported();
    g.compute_mode = Read<unsigned int>::unsupported();
    g.mig_current = Read<bool>::unsupported();
    g.mig_pending = Read<bool>::unsupported();
    g.nvlinks = Read<std::vector<NvLinkState>>::unsupported();
    return g;
}

class AmdgpuHealthReader final : public HealthReader {
public:
    AmdgpuHealthReader(std::string root, std::vector<std::string> bdfs)
        : m_root(std::move(root)), m_bdfs(std::move(bdfs)) {}
    std::string name() const override { return "amdgpu-sysfs"; }
    NodeHealth read() const override {
        NodeHealth node;
        node.source = "amdgpu-sysfs";
        node.backend = "hip";
        node.pci_gpus = static_cast<int>(m_bdfs.size());
        node.pci_bdfs = m_bdfs;
        node.driver_version = first_line(slurp(fs::path(m_root) / "sys/module/amdgpu/version").value_or(""));
        int index = 0;
        for (const auto& bdf : m_bdfs) {
            const fs::path dev = fs::path(m_root) / "sys/bus/pci/devices" / bdf;
            std::error_code ec;
            // Bound to amdgpu: the driver sees it (a GPU without the driver is host.kernel_driver's finding).
            if (fs::read_symlink(dev / "driver", ec).filename() != "amdgpu") {
                continue;
            }
            node.gpus.push_back(read_gpu(dev, bdf, index++));
        }
        return node;
    }

private:
    std::string m_root;
    std::vector<std::string> m_bdfs;
};

}  // namespace

std::unique_ptr<HealthReader> make_amdgpu_health_reader(std::string root, std::vector<std::string> bdfs) {
    return std::make_unique<AmdgpuHealthReader>(std::move(root), std::move(bdfs));
}

}  // namespace gpuconform
