// async.peer.copy_bandwidth: device-to-device copies (MemcpyPeerAsync) for every ordered pair,
// timed with events on the source device, judged per GPU and per pair (judge_peer_bandwidth): a
// slow GPU is named against the pairs without it, one bad link against the good GPUs' pairs.
#include <memory>

#include <fmt/format.h>

#include "async/async_checks.hpp"
#include "async/peer_common.hpp"
#include "async/toolkit.hpp"

namespace gpuconform {

namespace {

using namespace async;

struct PerDevice {
    std::unique_ptr<Stream> stream;
    std::unique_ptr<DeviceBuffer> src;
    std::unique_ptr<DeviceBuffer> dst;
    std::uint32_t seed = 0;
};

std::vector<PerDevice> prepare(Backend& b, int n, std::size_t bytes) {
    std::vector<PerDevice> devs(static_cast<std::size_t>(n));
    for (int d = 0; d < n; ++d) {
        auto& p = devs[static_cast<std::size_t>(d)];
        GC_CHECK(b.set_device(d));
        p.stream = std::make_unique<Stream>(b, StreamKind::NonBlocking);
        warm_up(b, *p.stream);
        p.src = std::make_unique<DeviceBuffer>(b, bytes);
        p.dst = std::make_unique<DeviceBuffer>(b, bytes);
        p.seed = fresh_seed();
        GC_CHECK(b.launch_fill(*p.stream, p.src->data(), p.src->words(), p.seed));
        GC_CHECK(b.stream_synchronize(*p.stream));
        for (int peer = 0; peer < n; ++peer) {
            bool can = false;
            if (peer != d && b.peer_can_access(d, peer, &can).ok() && can) {
                GC_CHECK(b.peer_enable(peer));
            }
        }
    }
    return devs;
}

void run(CheckContext& ctx, CheckResult& r) {
    Backend& b = *ctx.backend;
    const int n = ctx.backend_info->device_count;
    require_two_devices(n);
    require_every_device(ctx.options, n);
    const auto bytes = static_cast<std::size_t>(ctx.expect(r, "copy_bytes"));
    auto devs = prepare(b, n, bytes);
    std::vector<PeerRate> pairs;
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j < n; ++j) {
            if (i == j) {
                continue;
            }
            auto& from = devs[static_cast<std::size_t>(i)];
            auto& to = devs[static_cast<std::size_t>(j)];
            GC_CHECK(b.set_device(i));
            auto copy = [&] {
                GC_CHECK(b.memcpy_peer_async(to.dst->data(), j, from.src->data(), i, bytes, *from.stream));
            };
            event_time_ms(b, *from.stream, copy);  // untimed first copy of this pair
            std::vector<double> gbps;
            for (int rep = 0; rep < 3; ++rep) {
                gbps.push_back(bytes / (event_time_ms(b, *from.stream, copy) * 1e6));
            }
            GC_CHECK(b.set_device(j));
            if (device_mismatches(b, *to.stream, *to.dst, from.seed) != 0) {
                throw WrongData(fmt::format("peer copy {}→{} delivered wrong data", i, j));
            }
            const auto label = fmt::format("{}to{}", i, j);
            r.measurements.push_back(summarize("peer_bw_" + label, "GB/s", gbps));
            pairs.push_back({i, j, median(gbps)});
        }
    }
    const auto v = judge_peer_bandwidth(n, pairs, ctx.expect(r, "pair_max_shortfall_ratio"),
                                        ctx.expect_optional(r, "peer_min_gbps"));
    r.facts["median_gbps"] = v.median_gbps;
    if (!v.slow_gpus.empty()) {
        r.facts["slow_gpus"] = v.slow_gpus;
    }
    r.status = v.status;
    r.summary = v.status == Status::Pass ? fmt::format("{} of data each; {}", size_label(bytes), v.summary) : v.summary;
    if (v.status == Status::Fail) {
        r.remediation =
            "compare async.peer.access_matrix for these pairs, then the GPUs' links (host.pcie.link), "
            "NVLink/xGMI state (nvidia-smi nvlink -s / rocm-smi --showtopo) and the switch";
    }
}

}  // namespace

CheckDef make_async_peer_copy_bandwidth() {
    CheckDef d;
    d.id = "async.peer.copy_bandwidth";
    d.profile_keys = {
        keys::ratio("pair_max_shortfall_ratio"),
        keys::gbps("peer_min_gbps"),
        keys::copy_bytes(),
    };
    d.measurements = {
        measure::key("peer_bw_*", Direction::Higher, 0.10),
    };
    d.caught_by = {"degraded_link"};
    d.timing_sensitive = true;  // bandwidth
    d.layer = "async";
    d.description = "Peer copy bandwidth for every ordered GPU pair; a pair far below the others fails";
    d.scope = Scope::Node;
    d.timeout_s = 120;
    d.run = run;
    return d;
}

}  // namespace gpuconform
