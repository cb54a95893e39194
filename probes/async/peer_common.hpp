// Shared by the peer checks: the access matrix and its pure verdict.
#pragma once

#include <string>
#include <vector>

#include "core/check.hpp"

namespace gpuconform::async {

struct PeerMatrix {
    explicit PeerMatrix(int n) : access(static_cast<std::size_t>(n), std::vector<bool>(static_cast<std::size_t>(n), false)) {}
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

}  // namespace gpuconform::async
