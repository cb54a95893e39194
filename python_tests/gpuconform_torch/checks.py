"""The framework checks: one row per id, naming the native check that asks the same question.
What each check owns (description, profile keys, measurements' meaning) is declared in
probes/framework/framework_checks.cpp, which `gpuconform list --layer framework` shows; a unit
test holds the two to one set of ids.

A twin written with `{backend}` resolves to the torch build's backend ("cuda" or "hip").
Checks with no twin test the torch build itself, so a failure there is the framework's.
"""
from collections import namedtuple

CheckInfo = namedtuple("CheckInfo", "id native_twin")

k_checks = (
    CheckInfo("framework.torch.build", None),
    CheckInfo("framework.torch.driver_compat", "runtime.{backend}.driver_compat"),
    CheckInfo("framework.torch.devices", "runtime.{backend}.devices"),
    CheckInfo("framework.torch.dnn_library", None),
    CheckInfo("framework.torch.arch_list", None),
    CheckInfo("framework.torch.pin_memory", None),
    CheckInfo("framework.torch.dataloader_pinned", None),
    CheckInfo("framework.torch.dataloader_pinned_workers", None),
    CheckInfo("framework.torch.launch_returns_early", "async.launch.returns_early"),
    CheckInfo("framework.torch.non_blocking_h2d", "async.copy.pinned_returns_early"),
    CheckInfo("framework.torch.pageable_h2d", "async.copy.pageable_behaviour"),
    CheckInfo("framework.torch.non_blocking_d2h", "async.copy.pinned_returns_early"),
    CheckInfo("framework.torch.event_cross_stream", "async.event.cross_stream_order"),
    CheckInfo("framework.torch.event_timing", "async.event.timing_accuracy"),
    CheckInfo("framework.torch.overlap_copy_compute", "async.overlap.copy_compute"),
    CheckInfo("framework.torch.record_stream", None),
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
