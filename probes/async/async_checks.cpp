// The async layer's table, in run order. Adding a check: one file with make_async_...(), one line here.
#include "async/async_checks.hpp"
#include "checks/layer_tables.hpp"

namespace gpuconform {

std::vector<CheckDef> async_checks() {
    return {
        make_async_launch_returns_early(),
        make_async_copy_pinned_returns_early(),
        make_async_copy_pageable_behaviour(),
        make_async_copy_registered_returns_early(),
        make_async_copy_bandwidth(),
        make_async_copy_bidirectional(),
        make_async_copy_pinned_capacity(),
        make_async_stream_legacy_default_sync(),
        make_async_stream_nonblocking_independent(),
        make_async_stream_per_thread_independent(),
        make_async_event_cross_stream_order(),
        make_async_event_timing_accuracy(),
        make_async_overlap_copy_compute(),
        make_async_overlap_kernel_kernel(),
        make_async_queue_launch_depth(),
        make_async_copy_source_reuse(),
        make_async_stream_many_streams(),
        make_async_copy_small_transfers(),
        make_async_copy_numa_locality(),
        make_async_error_deferred(),
    };
}

}  // namespace gpuconform
