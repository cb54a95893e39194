// Pinned bandwidth by NUMA node: host memory placed on the GPU's own node and on a remote one
// (HostNuma: the host's kernel, or the sim's two simulated nodes), registered, and a large H2D
// timed with events from each. Info; a remote node faster than the GPU's own suggests the
// topology (sysfs numa_node) is misreported.
#include <fmt/format.h>

#include "async/async_checks.hpp"
#include "async/kernel_numa.hpp"
#include "async/toolkit.hpp"
#include "backend/pattern_host.hpp"

namespace gpuconform {

namespace {

// The host clock brackets the events, so they can only be shorter: by launch and wake-up time,
// and on the sim (or a loaded host) by host work too, about half of it. Ten times shorter means
// the events did not time the copy (the sim's events_ignored: microseconds against milliseconds).
constexpr double k_min_event_share_of_host = 0.1;

// Memory on one node, touched and registered; freed whatever throws after it was placed.
class BoundHost {
public:
    BoundHost(Backend& b, HostNuma& numa, std::size_t bytes, int node) : m_backend(b), m_numa(numa), m_bytes(bytes) {
        std::string why;
        m_ptr = numa.alloc_on_node(bytes, node, &why);
        if (m_ptr == nullptr) {
            throw SkipCheck(why);
        }
        if (const ApiResult r = b.host_register(m_ptr, bytes); !r.ok()) {
            numa.free_on_node(m_ptr, bytes);
            throw ApiError(r, "host_register(memory on one node)", __FILE__, __LINE__);
        }
    }
    ~BoundHost() {
        m_backend.host_unregister(m_ptr);
        m_numa.free_on_node(m_ptr, m_bytes);
    }
    BoundHost(const BoundHost&) = delete;
    BoundHost& operator=(const BoundHost&) = delete;
    std::uint32_t* words() const { return static_cast<std::uint32_t*>(m_ptr); }

private:
    Backend& m_backend;
    HostNuma& m_numa;
    std::size_t m_bytes;
    void* m_ptr = nullptr;
};

// Median pinned H2D bandwidth in GB/s from memory bound to `node`; the data is verified after.
double bandwidth_from(Backend& b, HostNuma& numa, StreamHandle s, async::DeviceBuffer& dev, int node, int reps) {
    BoundHost host(b, numa, dev.bytes(), node);
    const std::uint32_t seed = async::fresh_seed();
    write_pattern(host.words(), 0, dev.words(), seed);
    std::vector<double> ms;
    std::vector<double> host_ms;
    for (int i = 0; i < reps; ++i) {
        auto start = async::Clock::now();
        ms.push_back(async::held_event_time_ms(b, s, [&] {
            start = async::Clock::now();  // the copy's call, after the hold's spin was queued
            GC_CHECK(b.memcpy_async(dev.data(), host.words(), dev.bytes(), CopyKind::HostToDevice, s));
        }));
        GC_CHECK(b.stream_synchronize(s));  // the host clock's end: the copy done, whatever the events say
        host_ms.push_back(async::ms_since(start));
    }
    if (async::device_mismatches(b, s, dev, seed) != 0) {
        throw WrongData(fmt::format("the copy from NUMA node {} delivered wrong data", node));
    }
    // A comparison of two figures the events did not time would say nothing.
    if (median(ms) < k_min_event_share_of_host * median(host_ms)) {
        throw std::runtime_error(
            fmt::format("events timed the copy from node {} at {:.3f} ms, the host clock at {:.3f} ms: event "
                        "timing cannot be trusted here (see async.event.timing_accuracy)",
                        node, median(ms), median(host_ms)));
    }
    return static_cast<double>(dev.bytes()) / median(ms) / 1e6;
}

int known(std::optional<int> node, const std::string& why) {
    if (!node) {
        throw SkipCheck(why);
    }
    return *node;
}

void run(CheckContext& ctx, CheckResult& r) {
    Backend& b = *ctx.backend;
    async::KernelNuma kernel(ctx.env, ctx.props.pci_bus_id);
    HostNuma& numa = b.host_numa() != nullptr ? *b.host_numa() : kernel;
    if (numa.node_count() <= 1) {
        throw SkipCheck(fmt::format("the host has {} NUMA node(s): nothing to compare", numa.node_count()));
    }
    std::string why;
    const int local = known(numa.device_node(ctx.device, &why), why);
    const int remote = known(numa.other_node(local, &why), why);
    const double margin = ctx.expect(r, "remote_faster_margin_ratio");
    async::Stream s(b, StreamKind::NonBlocking);
    async::warm_up(b, s);
    async::DeviceBuffer dev(b, static_cast<std::size_t>(ctx.expect(r, "copy_bytes")));
    const int reps = static_cast<int>(ctx.expect(r, "repetitions"));
    const double near = bandwidth_from(b, numa, s, dev, local, reps);
    const double far = bandwidth_from(b, numa, s, dev, remote, reps);
    r.measurements.push_back(async::single("h2d_from_gpu_node_gbps", near, "GB/s"));
    r.measurements.push_back(async::single("h2d_from_remote_node_gbps", far, "GB/s"));
    r.facts["gpu_node"] = local;
    r.facts["remote_node"] = remote;
    const std::string figures = fmt::format(
        "pinned H2D of {} from the GPU's node {}: {:.1f} GB/s, from node {}: "
        "{:.1f} GB/s",
        size_label(dev.bytes()), local, near, remote, far);
    if (far > near * margin) {
        r.status = Status::Warn;
        r.summary = "the remote node was faster than the GPU's own: " + figures;
        r.remediation =
            "sysfs numa_node for this GPU may be wrong (BIOS/ACPI SRAT, or a VM hiding the topology): "
            "pin data-loading threads by measurement, not by the reported node";
        return;
    }
    r.status = Status::Info;
    r.summary = figures + "; keep pinned buffers and loader threads on the GPU's node";
}

}  // namespace

CheckDef make_async_copy_numa_locality() {
    CheckDef d;
    d.id = "async.copy.numa_locality";
    d.profile_keys = {
        keys::range("remote_faster_margin_ratio", 1, 10, false),
        keys::copy_bytes(),
        keys::count("repetitions"),
    };
    d.informational = true;  // a reading: info, never pass
    d.measurements = {
        measure::diagnostic("h2d_from_*_gbps", Direction::Higher, 0.10),
    };
    d.timing_sensitive = true;  // bandwidth from each NUMA node
    d.layer = "async";
    d.description = "Pinned H2D bandwidth from the GPU's own NUMA node against a remote one";
    d.scope = Scope::Device;
    d.timeout_s = 20;
    d.caught_by = {"numa_misreported", "copies_corrupt", "events_ignored"};
    d.run = run;
    return d;
}

}  // namespace gpuconform
