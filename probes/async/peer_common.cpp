#include "async/peer_common.hpp"

#include <algorithm>

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

PeerBandwidthVerdict judge_peer_bandwidth(int devices, const std::vector<PeerRate>& pairs, double shortfall,
                                          std::optional<double> floor) {
    PeerBandwidthVerdict v;
    if (pairs.empty()) {
        v.status = Status::Skip;
        v.summary = "no peer pair was measured";
        return v;
    }
    std::vector<double> all;
    for (const auto& p : pairs) {
        all.push_back(p.gbps);
    }
    v.median_gbps = median(all);
    const auto touches = [](const PeerRate& p, int gpu) { return p.from == gpu || p.to == gpu; };
    std::vector<std::string> problems;
    for (int gpu = 0; gpu < devices && devices > 2; ++gpu) {
        std::vector<double> its, rest;
        for (const auto& p : pairs) {
            (touches(p, gpu) ? its : rest).push_back(p.gbps);
        }
        if (its.empty() || rest.empty()) {
            continue;
        }
        const double mine = median(its), others = median(rest);
        if (mine < others * (1.0 - shortfall)) {
            v.slow_gpus.push_back(gpu);
            problems.push_back(
                fmt::format("GPU {}: median {:.1f} GB/s over its {} pairs against {:.1f} GB/s of the "
                            "{} pairs without it",
                            gpu, mine, its.size(), others, rest.size()));
        }
    }
    // Pairs against the pairs of the GPUs not named slow (all pairs when none is).
    std::vector<double> good;
    for (const auto& p : pairs) {
        const bool slow_gpu = std::any_of(v.slow_gpus.begin(), v.slow_gpus.end(), [&](int g) { return touches(p, g); });
        if (!slow_gpu) {
            good.push_back(p.gbps);
        }
    }
    const double reference = good.empty() ? v.median_gbps : median(good);
    std::vector<std::string> slow_pairs;
    for (const auto& p : pairs) {
        const bool named = std::any_of(v.slow_gpus.begin(), v.slow_gpus.end(), [&](int g) { return touches(p, g); });
        if ((!named && p.gbps < reference * (1.0 - shortfall)) || (floor && p.gbps < *floor)) {
            slow_pairs.push_back(fmt::format("{}→{} {:.1f} GB/s", p.from, p.to, p.gbps));
        }
    }
    if (!slow_pairs.empty()) {
        std::string list;
        for (const auto& s : slow_pairs) {
            list += (list.empty() ? "" : ", ") + s;
        }
        problems.push_back(fmt::format("slow pairs against {:.1f} GB/s{}: {}", reference,
                                       floor ? fmt::format(" (floor {:.1f} GB/s)", *floor) : std::string(), list));
    }
    if (problems.empty()) {
        v.summary = fmt::format("{} peer pairs: median {:.1f} GB/s; every GPU and pair within {:.0f}% of the others",
                                pairs.size(), v.median_gbps, shortfall * 100);
        return v;
    }
    v.status = Status::Fail;
    for (const auto& p : problems) {
        v.summary += (v.summary.empty() ? "" : "; ") + p;
    }
    return v;
}

}  // namespace gpuconform::async
