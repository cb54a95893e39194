// Shared by the peer checks: the access matrix and its pure verdict.
#pragma once

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
