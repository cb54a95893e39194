"""framework.torch async behaviour of launches and copies, each gated by a queued spin:
the stream's own state says whether a call came back before the queued work finished."""
import time

import pytest

from gpuconform_torch import gating
from gpuconform_torch import verdicts_async as va
from gpuconform_torch.plugin import conclude


def _classes(calls, gate_ms):
    return [va.classify_gated_call(c.busy_before, c.busy_after, c.call_ms, gate_ms) for c in calls]


@pytest.mark.gpuconform("framework.torch.launch_returns_early")
def test_kernel_launch_returns_early(check, gpu, thresholds):
    torch = gpu.torch
    trials = int(check.expect(thresholds, "trials"))
    gate_ms = check.expect(thresholds, "gate_ms")
    stream = torch.cuda.Stream()
    calls = []
    for _ in range(trials):
        with torch.cuda.stream(stream):
            start = time.perf_counter()
            gpu.spinner.spin(gate_ms)
            call_ms = (time.perf_counter() - start) * 1e3
            calls.append(gating.GatedCall(True, not stream.query(), call_ms, None))
        stream.synchronize()
    check.measure("launch_ms", "ms", [c.call_ms for c in calls])
    conclude(check, va.judge_must_return_early(
        _classes(calls, gate_ms), "torch.cuda._sleep launch",
        "kernel launches block: unset CUDA_LAUNCH_BLOCKING / AMD_SERIALIZE_KERNEL"))


@pytest.mark.gpuconform("framework.torch.non_blocking_h2d")
def test_pinned_h2d_returns_early(check, gpu, thresholds):
    torch = gpu.torch
    n = int(check.expect(thresholds, "size_bytes")) // 4
    gate_ms = check.expect(thresholds, "gate_ms")
    src = torch.empty(n, dtype=torch.float32, pin_memory=True)
    calls, valid = gating.h2d_trials(gpu, src, int(check.expect(thresholds, "trials")), gate_ms)
    classes = _classes(calls, gate_ms)
    check.measure("call_ms", "ms", [c.call_ms for c in calls])
    check.fact("classes", va.count_classes(classes))
    what = f"pinned .to(device, non_blocking=True) of {n * 4 / 1048576:g} MiB"
    conclude(check, va.wrong_data(valid, what) or va.judge_must_return_early(
        classes, what, "the source must be pinned (pin_memory()) and the copy on a stream with "
        "queued work; check the native async.copy.pinned_returns_early"))


@pytest.mark.gpuconform("framework.torch.pageable_h2d")
def test_pageable_h2d_is_classified(check, gpu, thresholds):
    torch = gpu.torch
    gate_ms = check.expect(thresholds, "gate_ms")
    trials = int(check.expect(thresholds, "trials"))
    by_size, valid = {}, []
    for size in (int(check.expect(thresholds, "small_bytes")), int(check.expect(thresholds, "large_bytes"))):
        src = torch.empty(size // 4, dtype=torch.float32)
        calls, ok = gating.h2d_trials(gpu, src, trials, gate_ms)
        by_size[size] = _classes(calls, gate_ms)
        valid += ok
        check.measure(f"call_ms_{size}", "ms", [c.call_ms for c in calls])
    check.fact("classes", {str(s): va.count_classes(c) for s, c in by_size.items()})
    conclude(check, va.wrong_data(valid, "pageable .to(device, non_blocking=True)")
             or va.describe_pageable(by_size))


@pytest.mark.gpuconform("framework.torch.non_blocking_d2h")
def test_d2h_valid_only_after_sync(check, gpu, thresholds):
    torch = gpu.torch
    n = int(check.expect(thresholds, "size_bytes")) // 4
    gate_ms = check.expect(thresholds, "gate_ms")
    stream = torch.cuda.Stream()
    source = torch.empty(n, dtype=torch.float32, device=gpu.device)
    source.to("cpu", non_blocking=True)  # warms the copy path and the pinned host block cache
    torch.cuda.synchronize()
    calls, stale_before, valid_after, pinned = [], [], [], []
    for trial in range(int(check.expect(thresholds, "trials"))):
        value = float(trial + 3)

        def fill_then_copy(value=value):
            source.fill_(value)  # queued behind the gate, like the copy
            return source.to("cpu", non_blocking=True)

        call = gating.gated_call(torch, stream, gpu.spinner, gate_ms, fill_then_copy)
        stale_before.append(not bool((call.value == value).all()))  # the hazard: read too early
        stream.synchronize()
        valid_after.append(bool((call.value == value).all()))
        pinned.append(call.value.is_pinned())
        calls.append(call._replace(value=None))
        del call  # frees the pinned host block for the next trial to reuse
    classes = _classes(calls, gate_ms)
    check.measure("call_ms", "ms", [c.call_ms for c in calls])
    check.fact("classes", va.count_classes(classes))
    check.fact("stale_before_sync", sum(stale_before))
    check.fact("destination_pinned", all(pinned))
    conclude(check, va.judge_valid_after_sync(valid_after, stale_before))
