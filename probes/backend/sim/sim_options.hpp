// The sim module's options string: `key=value` pairs separated by `;`.
//   devices=N           number of simulated devices (default 1; 0 simulates "no device")
//   fault=a,b           fault knobs on every device
//   fault.K=a,b         fault knobs on device K only
//   pinned_gbps=X       pinned host <-> device bandwidth per direction (default 24 GB/s)
//   pageable_gbps=X     pageable host <-> device bandwidth (default 6 GB/s)
//   peer_gbps=X         device <-> device bandwidth between two simulated devices (default 48 GB/s)
//   cotenant=DIR        another process shares every device (sim_cotenant.hpp): it takes most of
//                       the link and half the compute, and publishes itself in DIR/device-K.json
//   cotenant_quiet_at=T the co-tenant stops at this Unix time (seconds; default: never)
// The defaults make a 256 MiB pinned copy take ~11 ms and a pageable one ~45 ms, so the device
// checks run in seconds. Parsing is a pure function so it can be tested with tables.
#pragma once

#include <iterator>
#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuconform::sim {

// Each knob changes exactly one behaviour; see sim_backend.hpp for what each does.
enum class Fault : std::uint32_t {
    PinnedCopyBlocks,
    LaunchBlocks,
    PageableD2hEarly,
    DefaultStreamNoSync,
    EventsIgnored,
    OneCopyEngine,
    NoOverlap,
    SlowLink,
    Hang,
    Crash,
    StickyError,
    DegradedLink,
    NoPeer,
    LinkAt80,
    ErrorsSwallowed,
    PinnedLimit,
    SmallCopiesCorrupt,
    CopiesCorrupt,
    NumaMisreported,
    LinkDips,
    ReleasesLost,
    LinkShared,
    // Health faults: read by the parent's simulated health reader (health/sim_reader.cpp), not by
    // the module, whose device behaves as ever.
    EccUncorrectable,
    RowRemapPending,
    RowRemapFailure,
    ThermalSlowdown,
    PowerCapped,
    GpuMissing,
    VbiosOdd,
    Xid79,
    PcieReplaysGrowing,  // each later reading shows more replays: growth during our own run
    // Acceptance faults: the load the acceptance layer puts on a device (sim_acceptance.cpp).
    SlowHbm,
    GemmWrongElement,
    BadMemoryCell,
    ThrottlesUnderLoad,
};

struct FaultName {
    Fault fault;
    std::string_view name;
};

// The one list of knobs: its length follows from its entries, and a new enumerator without a name
// fails to compile (below).
constexpr FaultName k_fault_names[]{
    {Fault::PinnedCopyBlocks, "pinned_copy_blocks"},
    {Fault::LaunchBlocks, "launch_blocks"},
    {Fault::PageableD2hEarly, "pageable_d2h_early"},
    {Fault::DefaultStreamNoSync, "default_stream_no_sync"},
    {Fault::EventsIgnored, "events_ignored"},
    {Fault::OneCopyEngine, "one_copy_engine"},
    {Fault::NoOverlap, "no_overlap"},
    {Fault::SlowLink, "slow_link"},
    {Fault::Hang, "hang"},
    {Fault::Crash, "crash"},
    {Fault::StickyError, "sticky_error"},
    {Fault::DegradedLink, "degraded_link"},
    {Fault::NoPeer, "no_peer"},
    {Fault::LinkAt80, "link_at_80pct"},
    {Fault::ErrorsSwallowed, "errors_swallowed"},
    {Fault::PinnedLimit, "pinned_limit"},
    {Fault::SmallCopiesCorrupt, "small_copies_corrupt"},
    {Fault::CopiesCorrupt, "copies_corrupt"},
    {Fault::NumaMisreported, "numa_misreported"},
    {Fault::LinkDips, "link_dips"},
    {Fault::ReleasesLost, "releases_lost"},
    {Fault::LinkShared, "link_shared"},
    {Fault::EccUncorrectable, "ecc_uncorrectable"},
    {Fault::RowRemapPending, "row_remap_pending"},
    {Fault::RowRemapFailure, "row_remap_failure"},
    {Fault::ThermalSlowdown, "thermal_slowdown"},
    {Fault::PowerCapped, "power_capped"},
    {Fault::GpuMissing, "gpu_missing"},
    {Fault::VbiosOdd, "vbios_odd"},
    {Fault::Xid79, "xid_79"},
    {Fault::PcieReplaysGrowing, "pcie_replays_growing"},
    {Fault::SlowHbm, "slow_hbm"},
    {Fault::GemmWrongElement, "gemm_wrong_element"},
    {Fault::BadMemoryCell, "bad_memory_cell"},
    {Fault::ThrottlesUnderLoad, "throttles_under_load"},
};
static_assert(std::size(k_fault_names) == static_cast<std::size_t>(Fault::ThrottlesUnderLoad) + 1,
              "every Fault needs its name in k_fault_names, in order");
static_assert(std::size(k_fault_names) <= 64, "FaultSet holds 64 knobs");

class FaultSet {
public:
    bool has(Fault f) const { return (m_bits & bit(f)) != 0; }
    void add(Fault f) { m_bits |= bit(f); }
    void add(const FaultSet& other) { m_bits |= other.m_bits; }
    bool empty() const { return m_bits == 0; }

private:
    static std::uint64_t bit(Fault f) { return std::uint64_t{1} << static_cast<std::uint32_t>(f); }
    std::uint64_t m_bits = 0;
};

struct SimOptions {
    int devices = 1;
    std::vector<FaultSet> faults;  // one per device, resolved from fault= and fault.K=
    double pinned_gbps = 24.0;
    double pageable_gbps = 6.0;
    double peer_gbps = 48.0;
    std::string cotenant_dir;      // "" no co-tenant
    double cotenant_quiet_at = 0;  // Unix seconds; 0: busy for the whole run
};

namespace detail {

inline std::string_view trim(std::string_view s) {
    const auto first = s.find_first_not_of(" \t");
    if (first == std::string_view::npos) {
        return {};
    }
    const auto last = s.find_last_not_of(" \t");
    return s.substr(first, last - first + 1);
}

inline std::optional<FaultSet> parse_faults(std::string_view list, std::string* error) {
    FaultSet set;
    while (!list.empty()) {
        const auto comma = list.find(',');
        const auto item = trim(list.substr(0, comma));
        list = comma == std::string_view::npos ? std::string_view{} : list.substr(comma + 1);
        if (item.empty()) {
            continue;
        }
        bool known = false;
        for (const auto& f : k_fault_names) {
            if (f.name == item) {
                set.add(f.fault);
                known = true;
            }
        }
        if (!known) {
            *error = "unknown sim fault '" + std::string(item) + "'";
            return std::nullopt;
        }
    }
    return set;
}

template <typename T>
bool parse_number(std::string_view text, T* value) {
    const auto* end = text.data() + text.size();
    const auto r = std::from_chars(text.data(), end, *value);
    return r.ec == std::errc{} && r.ptr == end;
}

}  // namespace detail

// Returns nullopt and sets *error (naming the offending key or value) when the text is invalid.
inline std::optional<SimOptions> parse_sim_options(std::string_view text, std::string* error) {
    SimOptions opts;
    FaultSet all;
    std::vector<std::pair<int, FaultSet>> per_device;
    while (!text.empty()) {
        const auto semi = text.find(';');
        const auto pair = detail::trim(text.substr(0, semi));
        text = semi == std::string_view::npos ? std::string_view{} : text.substr(semi + 1);
        if (pair.empty()) {
            continue;
        }
        const auto eq = pair.find('=');
        const auto key = detail::trim(pair.substr(0, eq));
        const auto value = eq == std::string_view::npos ? std::string_view{} : detail::trim(pair.substr(eq + 1));
        const std::string where = "sim option '" + std::string(pair) + "'";
        if (eq == std::string_view::npos) {
            *error = where + ": expected key=value";
            return std::nullopt;
        }
        if (key == "devices") {
            if (!detail::parse_number(value, &opts.devices) || opts.devices < 0 || opts.devices > 64) {
                *error = where + ": devices must be an integer from 0 to 64";
                return std::nullopt;
            }
        } else if (key == "pinned_gbps" || key == "pageable_gbps" || key == "peer_gbps") {
            double gbps = 0;
            if (!detail::parse_number(value, &gbps) || !(gbps > 0)) {
                *error = where + ": bandwidth must be a positive number of GB/s";
                return std::nullopt;
            }
            (key == "pinned_gbps" ? opts.pinned_gbps : key == "peer_gbps" ? opts.peer_gbps : opts.pageable_gbps) = gbps;
        } else if (key == "cotenant") {
            if (value.empty()) {
                *error = where + ": cotenant needs the folder the co-tenant publishes itself in";
                return std::nullopt;
            }
            opts.cotenant_dir = std::string(value);
        } else if (key == "cotenant_quiet_at") {
            if (!detail::parse_number(value, &opts.cotenant_quiet_at) || !(opts.cotenant_quiet_at > 0)) {
                *error = where + ": cotenant_quiet_at must be a positive Unix time in seconds";
                return std::nullopt;
            }
        } else if (key == "fault" || key.starts_with("fault.")) {
            int device = -1;
            if (key != "fault" && (!detail::parse_number(key.substr(6), &device) || device < 0)) {
                *error = where + ": fault.K needs a device index K";
                return std::nullopt;
            }
            auto faults = detail::parse_faults(value, error);
            if (!faults) {
                *error = where + ": " + *error;
                return std::nullopt;
            }
            if (device < 0) {
                all.add(*faults);
            } else {
                per_device.emplace_back(device, *faults);
            }
        } else {
            *error = "unknown sim option key '" + std::string(key) + "'";
            return std::nullopt;
        }
    }
    opts.faults.assign(static_cast<std::size_t>(opts.devices), all);
    for (const auto& [device, faults] : per_device) {
        if (device >= opts.devices) {
            *error = "sim option fault." + std::to_string(device) +
                     ": no such device (devices=" + std::to_string(opts.devices) + ")";
            return std::nullopt;
        }
        opts.faults[static_cast<std::size_t>(device)].add(faults);
    }
    return opts;
}

}  // namespace gpuconform::sim
