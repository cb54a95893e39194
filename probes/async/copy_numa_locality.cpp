// Pinned bandwidth by NUMA node: host memory bound (mbind, no libnuma) to the GPU's own node and
// to a remote one, registered, and a large H2D timed with events from each. Info; a remote node
// faster than the GPU's own suggests the topology (sysfs numa_node) is misreported.
#include <linux/mempolicy.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>

#include "async/async_checks.hpp"
#include "async/toolkit.hpp"

namespace gpuconform {

namespace {

// The node holding the page at `p` (move_pages with no target nodes only reports), or -1.
int page_node(void* p) {
    void* pages[1] = {p};
    int status[1] = {-1};
    return syscall(SYS_move_pages, 0, 1, pages, nullptr, status, 0) == 0 ? status[0] : -1;
}

// An anonymous mapping, unmapped when it goes: whatever throws after the mmap leaks nothing.
class Mapping {
public:
    explicit Mapping(std::size_t bytes) : m_bytes(bytes) {
        m_ptr = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m_ptr == MAP_FAILED) {
            m_ptr = nullptr;
            throw std::runtime_error(fmt::format("mmap of {} bytes failed: {}", bytes, std::strerror(errno)));
        }
    }
    ~Mapping() { munmap(m_ptr, m_bytes); }
    Mapping(const Mapping&) = delete;
    Mapping& operator=(const Mapping&) = delete;
    void* get() const { return m_ptr; }

private:
    std::size_t m_bytes;
    void* m_ptr = nullptr;
};

// Anonymous memory bound to one node, touched (so its pages exist there) and registered.
class BoundHost {
public:
    BoundHost(Backend& b, std::size_t bytes, int node) : m_backend(b), m_map(bytes) {
        if (node < 0 || node >= 1024) {
            throw SkipCheck(fmt::format("NUMA node {} is outside the 1024 nodes this check can bind", node));
        }
        unsigned long mask[16] = {};
        mask[node / 64] = 1ul << (node % 64);
        if (syscall(SYS_mbind, m_map.get(), bytes, MPOL_BIND, mask, 16 * 64, MPOL_MF_STRICT | MPOL_MF_MOVE) != 0) {
            throw SkipCheck(fmt::format("cannot bind host memory to NUMA node {}: {}", node, std::strerror(errno)));
        }
        std::memset(m_map.get(), 0, bytes);
        if (const int seen = page_node(static_cast<char*>(m_map.get()) + bytes / 2); seen != node) {
            throw SkipCheck(fmt::format("memory bound to NUMA node {} landed on node {}: no comparison", node, seen));
        }
        GC_CHECK(b.host_register(m_map.get(), bytes));  // throws: m_map still unmaps
        m_registered = true;
    }
    ~BoundHost() {
        if (m_registered) {
            m_backend.host_unregister(m_map.get());
        }
    }
    BoundHost(const BoundHost&) = delete;
    BoundHost& operator=(const BoundHost&) = delete;
    std::uint32_t* words() const { return static_cast<std::uint32_t*>(m_map.get()); }

private:
    Backend& m_backend;
    Mapping m_map;
    bool m_registered = false;
};

int gpu_node(const CheckContext& ctx) {
    for (const auto& g : ctx.env.pci_gpus) {
        if (g.bdf == ctx.props.pci_bus_id && g.numa_node) {
            return *g.numa_node;
        }
    }
    throw SkipCheck(
        fmt::format("the NUMA node of GPU {} is unknown (sysfs numa_node is -1 or the device was not "
                    "found on the PCI bus)",
                    ctx.props.pci_bus_id.empty() ? "?" : ctx.props.pci_bus_id));
}

int remote_node(int local) {
    for (int n = 0; n < 1024; ++n) {
        if (n != local && std::filesystem::exists(fmt::format("/sys/devices/system/node/node{}", n))) {
            return n;
        }
    }
    throw SkipCheck("no second NUMA node found under /sys/devices/system/node");
}

// Median pinned H2D bandwidth in GB/s from memory bound to `node`; the data is verified after.
double bandwidth_from(Backend& b, StreamHandle s, async::DeviceBuffer& dev, int node, int reps) {
    BoundHost host(b, dev.bytes(), node);
    const std::uint32_t seed = async::fresh_seed();
    for (std::size_t i = 0; i < dev.words(); ++i) {
        host.words()[i] = pattern_word(seed, i);
    }
    std::vector<double> ms;
    for (int i = 0; i < reps; ++i) {
        ms.push_back(async::event_time_ms(
            b, s, [&] { GC_CHECK(b.memcpy_async(dev.data(), host.words(), dev.bytes(), CopyKind::HostToDevice, s)); }));
    }
    if (async::device_mismatches(b, s, dev, seed) != 0) {
        throw WrongData(fmt::format("the copy from NUMA node {} delivered wrong data", node));
    }
    return static_cast<double>(dev.bytes()) / median(ms) / 1e6;
}

void run(CheckContext& ctx, CheckResult& r) {
    if (ctx.env.numa_nodes <= 1) {
        throw SkipCheck(fmt::format("the host has {} NUMA node(s): nothing to compare", ctx.env.numa_nodes));
    }
    const int local = gpu_node(ctx);
    const int remote = remote_node(local);
    const double margin = ctx.expect(r, "remote_faster_margin_ratio");
    Backend& b = *ctx.backend;
    async::Stream s(b, StreamKind::NonBlocking);
    async::warm_up(b, s);
    async::DeviceBuffer dev(b, static_cast<std::size_t>(ctx.expect(r, "copy_bytes")));
    const int reps = static_cast<int>(ctx.expect(r, "repetitions"));
    const double near = bandwidth_from(b, s, dev, local, reps);
    const double far = bandwidth_from(b, s, dev, remote, reps);
    r.measurements.push_back(async::single("h2d_from_gpu_node_gbps", near, "GB/s"));
    r.measurements.push_back(async::single("h2d_from_remote_node_gbps", far, "GB/s"));
    r.facts["gpu_node"] = local;
    r.facts["remote_node"] = remote;
    const std::string figures = fmt::format(
        "pinned H2D of {} from the GPU's node {}: {:.1f} GB/s, from node {}: "
        "{:.1f} GB/s",
        async::size_label(dev.bytes()), local, near, remote, far);
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
    d.timing_sensitive = true;  // bandwidth from each NUMA node
    d.layer = "async";
    d.description = "Pinned H2D bandwidth from the GPU's own NUMA node against a remote one";
    d.scope = Scope::Device;
    d.timeout_s = 20;
    d.run = run;
    return d;
}

}  // namespace gpuconform
