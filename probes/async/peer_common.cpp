#include "async/peer_common.hpp"

#include <fmt/format.h>

namespace gpuconform::async {

PeerVerdict judge_peer_matrix(const PeerMatrix& m, bool homogeneous_node) {
    const std::size_t n = m.access.size();
    PeerVerdict v{Status::Pass, "", 0};
    std::string one_way;
    std::string missing;
    for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t j = 0; j < n; ++j) {
            if (i == j) {
                continue;
            }
            v.with_access += m.access[i][j] ? 1 : 0;
            if (m.access[i][j] != m.access[j][i] && i < j) {
                one_way += fmt::format("{}{}↔{}", one_way.empty() ? "" : ", ", i, j);
            }
            if (!m.access[i][j]) {
                missing += fmt::format("{}{}→{}", missing.empty() ? "" : ", ", i, j);
            }
        }
    }
    const int pairs = static_cast<int>(n * (n - 1));
    if (!one_way.empty()) {
        v.status = Status::Fail;
        v.summary = fmt::format("peer access is one-way between {}: the runtime and topology disagree", one_way);
    } else if (v.with_access == pairs) {
        v.summary = fmt::format("all {} device pairs can access each other", pairs);
    } else if (v.with_access == 0) {
        v.status = Status::Info;
        v.summary =
            fmt::format("no device pair has peer access ({} devices): copies between GPUs go through host memory", n);
    } else if (homogeneous_node) {
        v.status = Status::Fail;
        v.summary = fmt::format("{} of {} pairs have peer access, these do not: {}", v.with_access, pairs, missing);
    } else {
        v.status = Status::Info;
        v.summary = fmt::format("{} of {} pairs have peer access (mixed GPU models); without: {}", v.with_access, pairs,
                                missing);
    }
    return v;
}

bool homogeneous(const BackendInfo& info) {
    for (const auto& p : info.devices) {
        if (p.name != info.devices.front().name) {
            return false;
        }
    }
    return true;
}

void require_two_devices(int count) {
    if (count < 2) {
        throw SkipCheck(fmt::format("needs two or more GPUs; {} visible", count));
    }
}

void require_every_device(const RunOptions& options, int count) {
    if (some_devices_chosen(options, count)) {
        int chosen = 0;
        for (int d = 0; d < count; ++d) {
            chosen += device_chosen(options, d) ? 1 : 0;
        }
        throw SkipCheck(
            fmt::format("--device chose {} of {} GPUs; this check judges each GPU pair against all the "
                        "others, so it needs every GPU: run it without --device",
                        chosen, count));
    }
}

bool pair_chosen(const RunOptions& options, int from, int to) {
    return options.devices.empty() || device_chosen(options, from) || device_chosen(options, to);
}

}  // namespace gpuconform::async
