"""The framework checks: one row per id, naming the native check that asks the same question.

A twin written with `{backend}` resolves to the torch build's backend ("cuda" or "hip").
Checks with no twin test the torch build itself, so a failure there is the framework's.
"""
from collections import namedtuple

CheckInfo = namedtuple("CheckInfo", "id native_twin description")

k_checks = (
    CheckInfo("framework.torch.build", None,
              "torch imports, is built for this machine's GPU vendor and can use it"),
    CheckInfo("framework.torch.driver_compat", "runtime.{backend}.driver_compat",
              "torch's CUDA/HIP runtime version fits the installed driver"),
    CheckInfo("framework.torch.devices", "runtime.{backend}.devices",
              "torch sees the same device count and names as the native runtime"),
    CheckInfo("framework.torch.dnn_library", None,
              "the cuDNN/MIOpen torch loads fits the one it was built with"),
    CheckInfo("framework.torch.arch_list", None,
              "the GPU architecture is among those the torch wheel was compiled for"),
    CheckInfo("framework.torch.pin_memory", None,
              "Tensor.pin_memory() and pin_memory=True give pinned host memory"),
    CheckInfo("framework.torch.dataloader_pinned", None,
              "DataLoader(pin_memory=True) yields pinned batches without workers"),
    CheckInfo("framework.torch.dataloader_pinned_workers", None,
              "DataLoader(pin_memory=True) yields pinned batches with worker processes"),
    CheckInfo("framework.torch.launch_returns_early", "async.launch.returns_early",
              "a queued torch.cuda._sleep spin returns before it completes"),
    CheckInfo("framework.torch.non_blocking_h2d", "async.copy.pinned_returns_early",
              ".to(device, non_blocking=True) from pinned memory returns before the copy is done"),
    CheckInfo("framework.torch.pageable_h2d", "async.copy.pageable_behaviour",
              ".to(device, non_blocking=True) from pageable memory, classified (documented may)"),
    CheckInfo("framework.torch.non_blocking_d2h", "async.copy.pinned_returns_early",
              ".to('cpu', non_blocking=True): data read before a synchronize is a hazard, after it valid"),
    CheckInfo("framework.torch.event_cross_stream", "async.event.cross_stream_order",
              "Stream.wait_event orders a consumer stream after a producer: never stale"),
    CheckInfo("framework.torch.event_timing", "async.event.timing_accuracy",
              "Event(enable_timing=True) elapsed_time matches the host clock for a known spin"),
    CheckInfo("framework.torch.overlap_copy_compute", "async.overlap.copy_compute",
              "an H2D copy and a kernel on two torch streams overlap"),
    CheckInfo("framework.torch.record_stream", None,
              "Tensor.record_stream keeps a tensor freed on the main stream from early reuse"),
)

_by_id = {c.id: c for c in k_checks}
_index = {c.id: i for i, c in enumerate(k_checks)}


def check_index(check_id):
    """Position in the table (run and report order); unknown ids sort last."""
    return _index.get(check_id, len(k_checks))


def check_info(check_id):
    """The table row for `check_id`; KeyError names an id missing from the table."""
    return _by_id[check_id]


def native_twin(check_id, backend):
    """The native twin's id for this backend, or None (no twin, or backend unknown)."""
    twin = check_info(check_id).native_twin
    if twin is None:
        return None
    if "{backend}" in twin:
        return twin.format(backend=backend) if backend else None
    return twin
