// The async layer's checks; each is defined in its own file under probes/async/.
#pragma once

#include "core/check.hpp"

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

}  // namespace gpuconform
