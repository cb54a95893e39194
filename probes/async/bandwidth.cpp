#include "async/bandwidth.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "async/copy_common.hpp"

namespace gpuconform::async {

namespace {
void copy_once(Backend& b, StreamHandle s, CopyKind kind, HostBuffer& h, DeviceBuffer& d) {
    if (kind == CopyKind::HostToDevice) {
        GC_CHECK(b.memcpy_async(d.data(), h.data(), h.bytes(), kind, s));
    } else {
        GC_CHECK(b.memcpy_async(h.data(), d.data(), h.bytes(), kind, s));
    }
}

void verify(Backend& b, StreamHandle s, CopyKind kind, const HostBuffer& h, const DeviceBuffer& d, std::uint32_t seed,
            std::size_t bytes) {
    const std::uint64_t wrong = kind == CopyKind::HostToDevice ? device_mismatches(b, s, d, seed) : h.mismatches(seed);
    if (wrong != 0) {
        throw WrongData(
            fmt::format("{} copy of {} delivered {} wrong words", direction_label(kind), size_label(bytes), wrong));
    }
}
}  // namespace

namespace {
// A source holding a fresh pattern and its destination, with one untimed copy made (first touch).
struct CopyRig {
    HostBuffer h;
    DeviceBuffer d;
    std::uint32_t seed;
    CopyRig(Backend& b, StreamHandle s, CopyKind kind, HostKind host, std::size_t bytes, BufferSource from)
        : h(b, bytes, host, from), d(b, bytes, from), seed(fresh_seed()) {
        if (kind == CopyKind::HostToDevice) {
            h.fill(seed);
        } else {
            GC_CHECK(b.launch_fill(s, d.data(), d.words(), seed));
        }
        copy_once(b, s, kind, h, d);
        GC_CHECK(b.stream_synchronize(s));
    }
};
}  // namespace

CopyBandwidth measure_copy_bandwidth(Backend& b, StreamHandle s, CopyKind kind, HostKind host, std::size_t bytes,
                                     int reps, BufferSource from) {
    CopyRig rig(b, s, kind, host, bytes, from);
    std::vector<double> gbps;
    for (int i = 0; i < reps; ++i) {
        const auto once = [&] { copy_once(b, s, kind, rig.h, rig.d); };
        const double ms = host == HostKind::Pinned ? held_event_time_ms(b, s, once) : event_time_ms(b, s, once);
        gbps.push_back(static_cast<double>(bytes) / (ms * 1e6));
    }
    verify(b, s, kind, rig.h, rig.d, rig.seed, bytes);
    const auto name = fmt::format("bw_{}_{}_{}", to_string(host), direction_label(kind), size_label(bytes));
    return {kind, host, bytes, summarize(name, "GB/s", gbps)};
}

double measure_copy_train(Backend& b, StreamHandle s, CopyKind kind, std::size_t bytes, int count, BufferSource from) {
    CopyRig rig(b, s, kind, HostKind::Pinned, bytes, from);
    const double ms = held_event_time_ms(b, s, [&] {
        for (int i = 0; i < count; ++i) {
            copy_once(b, s, kind, rig.h, rig.d);
        }
    });
    verify(b, s, kind, rig.h, rig.d, rig.seed, bytes);
    return static_cast<double>(bytes) * count / (ms * 1e6);
}

void record_bandwidth(CheckResult& r, const CopyBandwidth& m) {
    r.measurements.push_back(m.gbps);
    r.facts["sweep"].push_back({{"host", to_string(m.host)},
                                {"direction", direction_label(m.kind)},
                                {"bytes", m.bytes},
                                {"gbps", m.gbps.value ? nlohmann::json(*m.gbps.value) : nlohmann::json(nullptr)}});
}

BandwidthVerdict judge_pinned_bandwidth(const LinkJudgement& in) {
    const double worst = std::min(in.pinned_h2d_gbps, in.pinned_d2h_gbps);
    if (in.absolute_min_gbps && worst < *in.absolute_min_gbps) {
        return {Status::Fail,
                fmt::format("pinned bandwidth {:.1f} GB/s is below the profile's floor of {:.1f} GB/s", worst,
                            *in.absolute_min_gbps),
                "check the PCIe link (host.pcie.link), the slot, and other traffic on the node"};
    }
    if (in.link_gbps <= 0 || !in.efficiency_min) {
        if (in.absolute_min_gbps) {
            return {
                Status::Pass,
                fmt::format("above the profile's floor of {:.1f} GB/s (no PCIe link figure)", *in.absolute_min_gbps),
                ""};
        }
        return {Status::Info, "no PCIe link figure for this device to judge against (not in sysfs)", ""};
    }
    const double need = in.link_gbps * *in.efficiency_min;
    const double share = worst / in.link_gbps;
    if (worst < need) {
        return {Status::Fail,
                fmt::format("{:.0f}% of the {} link's {:.1f} GB/s; at least {:.0f}% expected", share * 100,
                            in.link_label, in.link_gbps, *in.efficiency_min * 100),
                "a slow pinned copy on a healthy link points at IOMMU settings (iommu=pt), NUMA placement, or a "
                "degraded switch/riser; compare host.pcie.link and run on the GPU's own NUMA node"};
    }
    return {Status::Pass,
            fmt::format("{:.0f}% of the {} link's {:.1f} GB/s (≥ {:.0f}% expected)", share * 100, in.link_label,
                        in.link_gbps, *in.efficiency_min * 100),
            ""};
}

}  // namespace gpuconform::async
