// The async layer's table, in run order. Adding a check: one file with make_async_...(), and here
// its declaration and its line in the table.
#include "async/async_checks.hpp"
#include "checks/layer_tables.hpp"

namespace gpuconform {

// copies (copy_*.cpp; pinned and registered share copy_returns_early.cpp; launch_returns_early.cpp)
CheckDef make_async_device_occupancy();
CheckDef make_async_launch_returns_early();
CheckDef make_async_copy_pinned_returns_early();
CheckDef make_async_copy_pageable_behaviour();
CheckDef make_async_copy_registered_returns_early();
CheckDef make_async_copy_bandwidth();
CheckDef make_async_copy_bidirectional();
CheckDef make_async_copy_pinned_capacity();
CheckDef make_async_copy_source_reuse();
CheckDef make_async_copy_small_transfers();
CheckDef make_async_copy_numa_locality();
// streams (stream_*.cpp; the two independence checks share stream_independence.cpp)
CheckDef make_async_stream_legacy_default_sync();
CheckDef make_async_stream_nonblocking_independent();
CheckDef make_async_stream_per_thread_independent();
CheckDef make_async_stream_many_streams();
// events (event_*.cpp)
CheckDef make_async_event_cross_stream_order();
CheckDef make_async_event_timing_accuracy();
// overlap (overlap_*.cpp)
CheckDef make_async_overlap_copy_compute();
CheckDef make_async_overlap_kernel_kernel();
// peers: several devices of one node (peer_*.cpp)
CheckDef make_async_peer_access_matrix();
CheckDef make_async_peer_copy_bandwidth();
CheckDef make_async_peer_event_order();
// queue and errors
CheckDef make_async_queue_launch_depth();
CheckDef make_async_error_deferred();

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
