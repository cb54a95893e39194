#include "core/profile_keys.hpp"

namespace gpuconform {

namespace {
// Ranges are generous bounds on sense, not expectations: a gate of 0 ms cannot hold a call back,
// a ratio above 1 cannot be met, a launch cap beyond ten million never ends in the time limit.
constexpr double k_max_ms = 60'000;    // one minute: longer than any check's time limit
constexpr double k_min_gate_ms = 0.1;  // below this the host sees the spin end before it looks
constexpr double k_max_gbps = 10'000;
constexpr double k_max_bytes = 1ull << 50;

ProfileKey ms(const char* check, const char* key) { return {check, key, k_min_gate_ms, k_max_ms, false}; }
ProfileKey ratio(const char* check, const char* key, double max = 1) { return {check, key, 0, max, false}; }
ProfileKey gbps(const char* check, const char* key) { return {check, key, 0, k_max_gbps, false}; }
ProfileKey bytes(const char* check, const char* key) { return {check, key, 0, k_max_bytes, true}; }
ProfileKey count(const char* check, const char* key) { return {check, key, 1, 10'000, true}; }
// A copy buffer: at least 1 MiB (a figure of less is launch overhead), at most 4 GiB.
ProfileKey copy_bytes(const char* check) { return {check, "copy_bytes", 1 << 20, 1ull << 32, true}; }
}  // namespace

const std::vector<ProfileKey>& declared_profile_keys() {
    static const std::vector<ProfileKey> k_keys{
        bytes("host.memlock", "min_soft_bytes"),
        bytes("host.memlock", "amd_min_soft_bytes"),
        {"host.pcie.link", "fail_on_speed_downshift_flag", 0, 1, true},
        // The health layer (docs/gpu-health.md): limits on what a GPU has recorded.
        {"health.inventory", "expected_gpus", 0, 1024, true},
        {"health.ecc", "max_uncorrected_errors", 0, 1'000'000, true},
        {"health.memory_remap", "max_retired_pages", 1, 1024, true},
        {"health.clocks", "slowdown_margin_c", 0, 50, false},
        {"health.xid", "max_application_events", 0, 1'000'000, true},
        {"health.error_growth", "pcie_replays_per_15min", 0, 1'000'000, false},
        {"health.error_growth", "aer_correctable_per_15min", 0, 1'000'000, false},
        {"health.error_growth", "max_nvlink_errors", 0, 1'000'000, true},
        ms("async.launch.returns_early", "gate_ms"),
        ms("async.copy.pinned_returns_early", "gate_ms"),
        ms("async.copy.pageable_behaviour", "gate_ms"),
        ms("async.copy.registered_returns_early", "gate_ms"),
        ms("async.copy.source_reuse", "gate_ms"),
        ratio("async.copy.bandwidth", "pcie_efficiency_min_ratio"),
        gbps("async.copy.bandwidth", "pinned_min_gbps"),
        ratio("async.copy.bandwidth", "sibling_max_shortfall_ratio"),
        ratio("async.copy.bidirectional", "aggregate_gain_min_ratio", 2),  // two directions at most double
        ratio("async.copy.bidirectional", "sibling_max_shortfall_ratio"),
        ratio("async.peer.copy_bandwidth", "pair_max_shortfall_ratio"),
        gbps("async.peer.copy_bandwidth", "peer_min_gbps"),
        ms("async.peer.event_order", "gate_ms"),
        ms("async.stream.legacy_default_sync", "long_ms"),
        ratio("async.stream.legacy_default_sync", "wait_min_ratio"),
        ms("async.stream.nonblocking_independent", "long_ms"),
        ratio("async.stream.nonblocking_independent", "wait_min_ratio"),
        ms("async.stream.per_thread_independent", "long_ms"),
        ratio("async.stream.per_thread_independent", "wait_min_ratio"),
        ms("async.stream.many_streams", "spin_ms"),
        ratio("async.stream.many_streams", "scaling_min_ratio"),
        ms("async.event.cross_stream_order", "gate_ms"),
        ms("async.event.timing_accuracy", "spin_ms"),
        ratio("async.event.timing_accuracy", "max_relative_error"),
        ratio("async.overlap.copy_compute", "overlap_min_ratio"),
        ms("async.overlap.kernel_kernel", "spin_ms"),
        ratio("async.overlap.kernel_kernel", "overlap_min_ratio"),
        ms("async.queue.launch_depth", "long_ms"),
        {"async.queue.launch_depth", "blocked_launch_ms", 0.01, k_max_ms, false},
        {"async.queue.launch_depth", "max_launches", 1, 10'000'000, true},
        {"async.copy.numa_locality", "remote_faster_margin_ratio", 1, 10, false},
        // How much evidence each check gathers: trials, repetitions, data; `quick` sets fewer.
        count("async.copy.bandwidth", "small_repetitions"),
        count("async.copy.bandwidth", "large_repetitions"),
        count("async.copy.bandwidth", "large_pageable_repetitions"),
        count("async.copy.bandwidth", "train_copies"),
        copy_bytes("async.copy.bidirectional"),
        count("async.copy.bidirectional", "train_copies"),
        copy_bytes("async.copy.numa_locality"),
        count("async.copy.numa_locality", "repetitions"),
        count("async.copy.small_transfers", "repetitions"),
        {"async.copy.pinned_capacity", "pinned_bytes", 1 << 20, 1ull << 40, true},  // 1 MiB to 1 TiB
        count("async.event.timing_accuracy", "repetitions"),
        count("async.launch.returns_early", "trials"),
        count("async.overlap.kernel_kernel", "repetitions"),
        copy_bytes("async.peer.copy_bandwidth"),
        count("async.copy.source_reuse", "chunks"),
        count("async.event.cross_stream_order", "trials"),
        count("async.overlap.copy_compute", "repetitions"),
        count("async.peer.event_order", "trials"),
        count("async.stream.legacy_default_sync", "trials"),
        count("async.stream.nonblocking_independent", "trials"),
        count("async.stream.per_thread_independent", "trials"),
        {"async.stream.many_streams", "max_streams", 1, 1024, true},
        count("async.stream.many_streams", "repetitions"),
        // The acceptance layer (opt-in): how much it loads and the floors it judges against.
        {"acceptance.hbm.bandwidth", "array_bytes", 1 << 20, 1ull << 36, true},
        count("acceptance.hbm.bandwidth", "iterations"),
        ratio("acceptance.hbm.bandwidth", "peak_min_ratio"),
        ratio("acceptance.hbm.bandwidth", "sibling_max_shortfall_ratio"),
        {"acceptance.compute.checked_matmul", "matrix_size", 16, 65536, true},
        {"acceptance.compute.checked_matmul", "inner_size", 35, 65520, true},  // a multiple of 35 (the check says)
        {"acceptance.compute.checked_matmul", "peak_tflops", 0.001, 100'000, false},
        ratio("acceptance.compute.checked_matmul", "peak_min_ratio"),
        ratio("acceptance.compute.checked_matmul", "sibling_max_shortfall_ratio"),
        {"acceptance.load.clocks", "matrix_size", 16, 65536, true},
        {"acceptance.load.clocks", "inner_size", 35, 65520, true},
        {"acceptance.load.clocks", "sample_ms", 10, 10'000, false},
        ratio("acceptance.load.clocks", "clock_min_ratio"),
        ratio("acceptance.load.clocks", "sibling_max_shortfall_ratio"),
        {"acceptance.memory.pattern_test", "free_memory_ratio", 0.01, 0.99, false},
        count("acceptance.memory.pattern_test", "max_rounds"),
        copy_bytes("acceptance.copy.soak"),
        // The framework layer's (pytest reads them from the profile: `gpuconform profile`).
        // framework.torch is the layer itself: the spin every gated torch check queues is calibrated once.
        ms("framework.torch", "calibration_ms"),
        bytes("framework.torch.pin_memory", "size_bytes"),
        count("framework.torch.dataloader_pinned", "batches"),
        count("framework.torch.dataloader_pinned_workers", "batches"),
        count("framework.torch.dataloader_pinned_workers", "workers"),
        count("framework.torch.launch_returns_early", "trials"),
        ms("framework.torch.launch_returns_early", "gate_ms"),
        count("framework.torch.non_blocking_h2d", "trials"),
        ms("framework.torch.non_blocking_h2d", "gate_ms"),
        bytes("framework.torch.non_blocking_h2d", "size_bytes"),
        count("framework.torch.pageable_h2d", "trials"),
        ms("framework.torch.pageable_h2d", "gate_ms"),
        bytes("framework.torch.pageable_h2d", "small_bytes"),
        bytes("framework.torch.pageable_h2d", "large_bytes"),
        count("framework.torch.non_blocking_d2h", "trials"),
        ms("framework.torch.non_blocking_d2h", "gate_ms"),
        bytes("framework.torch.non_blocking_d2h", "size_bytes"),
        count("framework.torch.event_cross_stream", "trials"),
        ms("framework.torch.event_cross_stream", "gate_ms"),
        bytes("framework.torch.event_cross_stream", "size_bytes"),
        count("framework.torch.event_timing", "trials"),
        ms("framework.torch.event_timing", "spin_ms"),
        ratio("framework.torch.event_timing", "max_relative_error"),
        count("framework.torch.overlap_copy_compute", "trials"),
        bytes("framework.torch.overlap_copy_compute", "size_bytes"),
        ratio("framework.torch.overlap_copy_compute", "overlap_min_ratio"),
        count("framework.torch.record_stream", "trials"),
        ms("framework.torch.record_stream", "gate_ms"),
        bytes("framework.torch.record_stream", "size_bytes"),
    };
    return k_keys;
}

const ProfileKey* find_profile_key(const std::string& check, const std::string& key) {
    for (const auto& k : declared_profile_keys()) {
        if (k.check == check && k.key == key) {
            return &k;
        }
    }
    return nullptr;
}

std::vector<std::string> profile_keys_of(const std::string& check) {
    std::vector<std::string> out;
    for (const auto& k : declared_profile_keys()) {
        if (k.check == check) {
            out.push_back(k.key);
        }
    }
    return out;
}

}  // namespace gpuconform
