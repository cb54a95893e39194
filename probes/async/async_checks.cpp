// The async layer's table, in run order. Adding a check: one file with make_async_...(), one line here.
#include "async/async_checks.hpp"
#include "checks/layer_tables.hpp"

namespace gpuconform {

namespace {
// Checks that touch only their own device (no host memory path, no copy engine shared with the
// host) may run on every GPU of a node at once.
CheckDef on_every_device_at_once(CheckDef d) {
    d.parallel_devices = true;
    return d;
}
}  // namespace

std::vector<CheckDef> async_checks() {
    return {
        make_async_device_occupancy(),
        make_async_copy_pinned_capacity(),  // first: before other checks keep pinned buffers
        on_every_device_at_once(make_async_launch_returns_early()),
        make_async_copy_pinned_returns_early(),
        make_async_copy_pageable_behaviour(),
        make_async_copy_registered_returns_early(),
        make_async_copy_bandwidth(),
        make_async_copy_bidirectional(),
        on_every_device_at_once(make_async_stream_legacy_default_sync()),
        on_every_device_at_once(make_async_stream_nonblocking_independent()),
        on_every_device_at_once(make_async_stream_per_thread_independent()),
        make_async_event_cross_stream_order(),
        on_every_device_at_once(make_async_event_timing_accuracy()),
        make_async_overlap_copy_compute(),
        on_every_device_at_once(make_async_overlap_kernel_kernel()),
        on_every_device_at_once(make_async_queue_launch_depth()),
        make_async_copy_source_reuse(),
        on_every_device_at_once(make_async_stream_many_streams()),
        make_async_copy_small_transfers(),
        make_async_copy_numa_locality(),
        make_async_peer_access_matrix(),
        make_async_peer_copy_bandwidth(),
        make_async_peer_event_order(),
        make_async_error_deferred(),
    };
}

}  // namespace gpuconform
