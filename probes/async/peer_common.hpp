// Shared by the peer checks: the access matrix and the peer bandwidth, and their pure verdicts.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/check.hpp"

namespace gpuconform::async {

struct PeerMatrix {
    explicit PeerMatrix(int n)
        : access(static_cast<std::size_t>(n), std::vector<bool>(static_cast<std::size_t>(n), false)) {}
    std::vector<std::vector<bool>> access;  // access[i][j]: can i map j's memory
};

struct PeerVerdict {
    Status status;
    std::string summary;
    int with_access = 0;
};

// Asymmetric pairs fail; on a homogeneous node, pairs without access while others have it fail;
// no pair with access is info (PCIe without P2P is allowed); all pairs pass.
PeerVerdict judge_peer_matrix(const PeerMatrix& m, bool homogeneous);

// One ordered pair's measured peer copy rate (its median).
struct PeerRate {
    int from = 0, to = 0;
    double gbps = 0.0;
};

struct PeerBandwidthVerdict {
    Status status = Status::Pass;
    std::string summary;
    double median_gbps = 0.0;    // over every pair
    std::vector<int> slow_gpus;  // named by the per-GPU rule
};

// async.peer.copy_bandwidth's rule, per GPU and per pair. A GPU fails when the median of its
// pairs (to and from it) falls more than `shortfall` below the median of the pairs that do not
// touch it: a slow GPU is named even when most pairs touch it (3 GPUs, one slow: 4 of 6 pairs
// are its, so it sets the median of all pairs). A pair fails when it falls more than `shortfall`
// below the median of the pairs touching no slow GPU (one bad link between good GPUs), or under
// `floor` (the profile's peer_min_gbps). With 2 GPUs there are no pairs without a GPU: pairs only.
PeerBandwidthVerdict judge_peer_bandwidth(int devices, const std::vector<PeerRate>& pairs, double shortfall,
                                          std::optional<double> floor);

// True when every device of the backend is the same model.
bool homogeneous(const BackendInfo& info);

// Throws SkipCheck when fewer than two devices are visible.
void require_two_devices(int count);

// Throws SkipCheck when --device chose only some of the `count` devices: a check that judges
// each pair against all the others cannot judge the chosen GPU's pairs without touching the rest.
void require_every_device(const RunOptions& options, int count);

// True when the ordered pair includes a device --device chose (every pair when it chose none).
bool pair_chosen(const RunOptions& options, int from, int to);

}  // namespace gpuconform::async
