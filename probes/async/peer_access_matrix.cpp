// async.peer.access_matrix: which device pairs can map each other's memory, with the PCI path
// between them (nvidia-smi topo -m's labels, from sysfs). On a node of identical GPUs every pair
// should agree: a missing or one-way peer path among pairs that have one is the classic fault.
#include <fmt/format.h>

#include "async/async_checks.hpp"
#include "async/peer_common.hpp"
#include "async/peer_topology.hpp"

namespace gpuconform {

namespace {

using namespace async;

void run(CheckContext& ctx, CheckResult& r) {
    Backend& b = *ctx.backend;
    const auto& info = *ctx.backend_info;
    const int n = info.device_count;
    require_two_devices(n);
    require_every_device(ctx.options, n);
    std::vector<std::string> paths;
    for (const auto& p : info.devices) {
        paths.push_back(pci_sysfs_path(p.pci_bus_id));
    }
    PeerMatrix m(n);
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j < n; ++j) {
            if (i == j) {
                continue;
            }
            bool can = false;
            GC_CHECK(b.peer_can_access(i, j, &can));
            int rank = -1;
            if (can && !b.peer_rank(i, j, &rank).ok()) {
                rank = -1;
            }
            m.access[i][j] = can;
            r.facts["pairs"].push_back({{"from", i},
                                        {"to", j},
                                        {"can_access", can},
                                        {"performance_rank", rank},
                                        {"pci_path", pci_link_label(paths[i], paths[j])}});
        }
    }
    r.facts["homogeneous"] = homogeneous(info);
    const auto verdict = judge_peer_matrix(m, homogeneous(info));
    r.measurements.push_back({"pairs_with_access", static_cast<double>(verdict.with_access), "count", 1, {}, {}});
    r.measurements.push_back({"pairs", static_cast<double>(n * (n - 1)), "count", 1, {}, {}});
    r.status = verdict.status;
    r.summary = verdict.summary;
    if (r.status == Status::Fail) {
        r.remediation =
            "a GPU pair without the peer path its siblings have: check the PCIe switch/ACS settings "
            "(ACS redirects break P2P), IOMMU mode, NVLink/xGMI cabling and the driver's peer support";
    }
}

}  // namespace

CheckDef make_async_peer_access_matrix() {
    CheckDef d;
    d.id = "async.peer.access_matrix";
    d.measurements = {
        measure::key("pairs_with_access", Direction::Higher, 0.00),
        measure::diagnostic("pairs", Direction::None, 0.00),
    };
    d.caught_by = {"no_peer"};
    d.timing_sensitive = false;  // capability flags
    d.layer = "async";
    d.description = "Which GPU pairs can access each other, with the PCI path between them; pairs must agree";
    d.scope = Scope::Node;
    d.timeout_s = 20;
    d.run = run;
    return d;
}

}  // namespace gpuconform
