// async.copy.bandwidth: pinned and pageable, H2D and D2H, over a size sweep, timed with device
// events. The pinned large-copy figure is judged against the PCIe link the host layer found.
#include <algorithm>
#include <chrono>
#include <thread>

#include <fmt/format.h>

#include "async/async_checks.hpp"
#include "async/bandwidth.hpp"
#include "async/copy_common.hpp"
#include "async/toolkit.hpp"
#include "host/environment_reader.hpp"

namespace gpuconform {

namespace {

using namespace async;

const PciGpu* link_of(const CheckContext& ctx) {
    for (const auto& g : ctx.env.pci_gpus) {
        if (!ctx.props.pci_bus_id.empty() && g.bdf == ctx.props.pci_bus_id) {
            return &g;
        }
    }
    return nullptr;
}

// Small copies vary more and cost little (profile: small_repetitions). Large ones take
// large_repetitions; pageable ones large_pageable_repetitions (3, 2 with --quick): their figure is
// context (never judged, listed by diff --all) and spreads 5-10 % however often it is taken, while
// one 256 MiB pageable H2D takes 45 ms on an H200 host.
int repetitions(const CheckContext& ctx, CheckResult& r, HostKind host, std::size_t bytes) {
    if (bytes < (16u << 20)) {
        return static_cast<int>(ctx.expect(r, "small_repetitions"));
    }
    if (host == HostKind::Pageable) {
        return static_cast<int>(ctx.expect(r, "large_pageable_repetitions"));
    }
    return static_cast<int>(ctx.expect(r, "large_repetitions"));
}

// The judged figures: pinned 256 MiB copies, both directions.
struct PinnedLarge {
    Measurement h2d, d2h;
    double worst() const { return std::min(h2d.value.value_or(0), d2h.value.value_or(0)); }
};

// A pinned figure below its floor is measured again before it fails: a link shared with other
// VMs or devices dips for tens of milliseconds (H100 VMs, 2026-12-05: one run in 20 read 39.9 GB/s
// H2D where the others read 52-55; reports/samples/ubuntu24.04-h100-2026-12-05-quick-noise), while a
// degraded link stays slow in every attempt. The best attempt (its slower direction fastest) is
// judged and recorded; the first attempt's figures stay as diagnostics.
constexpr int k_attempts = 3;
constexpr std::chrono::milliseconds k_pause_between_attempts{200};

void replace_measurement(CheckResult& r, const Measurement& m) {
    for (auto& existing : r.measurements) {
        if (existing.name == m.name) {
            existing = m;
        }
    }
}

void run(CheckContext& ctx, CheckResult& r) {
    Backend& b = *ctx.backend;
    Stream s(b, StreamKind::NonBlocking);
    warm_up(b, s);
    const BufferSource buffers = buffers_of(ctx);  // one set for every size: pinning dominates otherwise
    const std::size_t large = 256u << 20;
    const auto sizes = sweep_sizes(ctx.options.quick, {64u << 10, 1u << 20, 16u << 20, large}, {1u << 20, large});
    PinnedLarge pinned;
    double pageable_h2d = 0, pageable_d2h = 0;
    for (const HostKind host : {HostKind::Pinned, HostKind::Pageable}) {
        for (const CopyKind kind : {CopyKind::HostToDevice, CopyKind::DeviceToHost}) {
            for (const std::size_t bytes : sizes) {
                const auto m =
                    measure_copy_bandwidth(b, s, kind, host, bytes, repetitions(ctx, r, host, bytes), buffers);
                record_bandwidth(r, m);
                if (bytes == large && host == HostKind::Pinned) {
                    (kind == CopyKind::HostToDevice ? pinned.h2d : pinned.d2h) = m.gbps;
                } else if (bytes == large) {
                    (kind == CopyKind::HostToDevice ? pageable_h2d : pageable_d2h) = m.gbps.value.value_or(0);
                }
            }
        }
    }
    const auto measure_pinned_large = [&] {
        const int reps = repetitions(ctx, r, HostKind::Pinned, large);
        return PinnedLarge{
            measure_copy_bandwidth(b, s, CopyKind::HostToDevice, HostKind::Pinned, large, reps, buffers).gbps,
            measure_copy_bandwidth(b, s, CopyKind::DeviceToHost, HostKind::Pinned, large, reps, buffers).gbps};
    };
    // The copy engine's best: a train of large copies between one event pair.
    const int train = static_cast<int>(ctx.expect(r, "train_copies"));
    const double train_h2d = measure_copy_train(b, s, CopyKind::HostToDevice, large, train, buffers);
    const double train_d2h = measure_copy_train(b, s, CopyKind::DeviceToHost, large, train, buffers);
    r.measurements.push_back({"bw_train_pinned_H2D_256MiB", train_h2d, "GB/s", 1, {}, {}});
    r.measurements.push_back({"bw_train_pinned_D2H_256MiB", train_d2h, "GB/s", 1, {}, {}});

    LinkJudgement in;
    in.pinned_h2d_gbps = pinned.h2d.value.value_or(0);
    in.pinned_d2h_gbps = pinned.d2h.value.value_or(0);
    if (const PciGpu* link = link_of(ctx); link != nullptr && link->current_speed_gts && link->current_width) {
        in.link_gbps = pcie_link_bytes_per_s(*link->current_speed_gts, *link->current_width).value_or(0) / 1e9;
        in.link_label = fmt::format("PCIe Gen{} x{}", pcie_generation(*link->current_speed_gts), *link->current_width);
    }
    // Faster than the link can carry (with a margin for encoding estimates): the figure is wrong.
    constexpr double k_link_margin = 1.10;
    if (in.link_gbps > 0 && std::max(in.pinned_h2d_gbps, in.pinned_d2h_gbps) > in.link_gbps * k_link_margin) {
        async::mark_out_of_range(
            r, fmt::format("pinned copies at {:.1f} GB/s, above the {} link's {:.1f} GB/s",
                           std::max(in.pinned_h2d_gbps, in.pinned_d2h_gbps), in.link_label, in.link_gbps));
        return;
    }
    in.efficiency_min = ctx.expect_optional(r, "pcie_efficiency_min_ratio");
    in.absolute_min_gbps = ctx.expect_optional(r, "pinned_min_gbps");
    auto verdict = judge_pinned_bandwidth(in);
    const PinnedLarge first = pinned;
    // The fastest each direction ran in this check, trains included: what the link carried.
    double seen_h2d = std::max(in.pinned_h2d_gbps, train_h2d), seen_d2h = std::max(in.pinned_d2h_gbps, train_d2h);
    int attempts = 1;
    for (; verdict.status == Status::Fail && attempts < k_attempts; ++attempts) {
        std::this_thread::sleep_for(k_pause_between_attempts);
        const PinnedLarge again = measure_pinned_large();
        seen_h2d = std::max(seen_h2d, again.h2d.value.value_or(0));
        seen_d2h = std::max(seen_d2h, again.d2h.value.value_or(0));
        if (again.worst() > pinned.worst()) {
            pinned = again;
        }
        in.pinned_h2d_gbps = pinned.h2d.value.value_or(0);
        in.pinned_d2h_gbps = pinned.d2h.value.value_or(0);
        verdict = judge_pinned_bandwidth(in);
    }
    std::string attempts_said;
    if (attempts > 1) {
        replace_measurement(r, pinned.h2d);
        replace_measurement(r, pinned.d2h);
        r.measurements.push_back({"first_attempt_pinned_H2D_256MiB", first.h2d.value, "GB/s", 1, {}, {}});
        r.measurements.push_back({"first_attempt_pinned_D2H_256MiB", first.d2h.value, "GB/s", 1, {}, {}});
        r.facts["pinned_large_attempts"] = attempts;
        attempts_said =
            fmt::format(" (measured {} times: {}; the first read H2D {:.1f}, D2H {:.1f} GB/s)", attempts,
                        verdict.status == Status::Fail ? "slow in every one" : "the link dipped, then recovered",
                        first.h2d.value.value_or(0), first.d2h.value.value_or(0));
    }
    const double h2d = in.pinned_h2d_gbps, d2h = in.pinned_d2h_gbps;
    r.measurements.push_back({"fidelity_H2D_ratio", h2d / train_h2d, "ratio", 1, {}, {}});
    r.measurements.push_back({"fidelity_D2H_ratio", d2h / train_d2h, "ratio", 1, {}, {}});
    r.measurements.push_back({"pinned_over_pageable_H2D_ratio", h2d / pageable_h2d, "ratio", 1, {}, {}});
    r.measurements.push_back({"pinned_over_pageable_D2H_ratio", d2h / pageable_d2h, "ratio", 1, {}, {}});
    r.status = verdict.status;
    r.summary =
        fmt::format("pinned 256 MiB H2D {:.1f} GB/s, D2H {:.1f} GB/s{}; pageable H2D {:.1f}, D2H {:.1f} GB/s; {}", h2d,
                    d2h, attempts_said, pageable_h2d, pageable_d2h, verdict.summary);
    r.remediation = verdict.remediation;
    if (verdict.status == Status::Fail) {
        LinkJudgement seen = in;
        seen.pinned_h2d_gbps = seen_h2d;
        seen.pinned_d2h_gbps = seen_d2h;
        if (judge_pinned_bandwidth(seen).status == Status::Pass) {
            async::mark_link_unsteady(
                r, fmt::format("pinned 256 MiB copies reached H2D {:.1f}, D2H {:.1f} GB/s", seen_h2d, seen_d2h),
                fmt::format("every judged reading stayed below the floor (best H2D {:.1f}, D2H {:.1f} GB/s)", h2d,
                            d2h));
        }
    }
}

}  // namespace

CheckDef make_async_copy_bandwidth() {
    CheckDef d;
    d.id = "async.copy.bandwidth";
    d.profile_keys = {
        keys::ratio("pcie_efficiency_min_ratio"),
        keys::gbps("pinned_min_gbps"),
        keys::ratio("sibling_max_shortfall_ratio"),
        keys::count("small_repetitions"),
        keys::count("large_repetitions"),
        keys::count("large_pageable_repetitions"),
        keys::count("train_copies"),
    };
    // Floors and roles come from 20 full runs of one idle H200, minutes apart, and the other H200
    // machines' full runs (reports/samples/ubuntu24.04-h200-2026-12-02-trust/figure-spread.md, made
    // by reports/tools/figure_spread.py, and the runs of 2026-12-04). A key figure's floor is the worst
    // drop of one run's median below another run's min, this machine or another, x1.2, rounded up
    // to a whole percent, at least 10% (so a link at 80% is caught on every plateau figure). A
    // figure whose run medians spread more than 20% cannot tell that drop from noise: a diagnostic.
    // Small pinned copies are latency-bound (64 KiB spread 23% H2D, 42% D2H; 1 MiB H2D 23%);
    // 16 MiB H2D spreads 35% across machines (35.5 and 44.6 GB/s on one machine of 2026-12-04,
    // 52-54 on the others; ubuntu24.04-h200-2026-12-04-speed/). Pageable copies may vary (staged through a
    // driver buffer, as the vendors document). native_tests/reports/noise_floor_data_test.cpp
    // holds these declarations to that data.
    d.measurements = {
        measure::diagnostic("bw_pinned_*_64KiB", Direction::Higher, 0.27),
        measure::diagnostic("bw_pinned_H2D_1MiB", Direction::Higher, 0.18),
        measure::diagnostic("bw_pinned_H2D_16MiB", Direction::Higher, 0.40),
        measure::key("bw_pinned_*", Direction::Higher, 0.10),
        measure::key("bw_train_pinned_*", Direction::Higher, 0.10),
        measure::key("*_pinned_bw_*", Direction::Higher, 0.10),
        measure::diagnostic("bw_pageable_*", Direction::Higher, 0.30),
        measure::diagnostic("*_pageable_bw_*", Direction::Higher, 0.30),
        measure::diagnostic("pinned_over_pageable_*", Direction::None, 0.30),
        measure::diagnostic("fidelity_*", Direction::None, 0.05),
        measure::diagnostic("first_attempt_*", Direction::Higher, 0.30),  // a dip, measured again
    };
    d.caught_by = {"slow_link", "degraded_link@3", "pinned_limit", "copies_corrupt", "cotenant+measure", "link_shared"};
    d.timing_sensitive = true;  // bandwidth: another user shares the link
    d.layer = "async";
    d.description = "Pinned and pageable H2D/D2H bandwidth over a size sweep, judged against the PCIe link";
    d.scope = Scope::Device;
    d.timeout_s = 60;
    d.sibling_keys = {"bw_pinned_H2D_256MiB", "bw_pinned_D2H_256MiB"};
    d.run = run;
    return d;
}

}  // namespace gpuconform
