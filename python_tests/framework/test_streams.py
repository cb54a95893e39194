"""framework.torch streams and events: cross-stream ordering, event timing, record_stream."""
import time

import pytest

from gpuconform_torch import verdicts_async as va
from gpuconform_torch.plugin import conclude


@pytest.mark.gpuconform("framework.torch.event_cross_stream")
def test_wait_event_orders_streams(check, gpu, thresholds):
    torch = gpu.torch
    n = int(check.expect(thresholds, "size_bytes")) // 4
    gate_ms = check.expect(thresholds, "gate_ms")
    trials = int(check.expect(thresholds, "trials"))
    producer, consumer, racer = torch.cuda.Stream(), torch.cuda.Stream(), torch.cuda.Stream()
    x, waited, raced = (torch.zeros(n, device=gpu.device) for _ in range(3))
    torch.cuda.synchronize()
    stale_with = stale_without = 0
    for trial in range(trials):
        value = float(trial + 1)
        event = torch.cuda.Event()
        with torch.cuda.stream(producer):
            gpu.spinner.spin(gate_ms)
            x.fill_(value)
            event.record(producer)
        consumer.wait_event(event)
        with torch.cuda.stream(consumer):
            waited.copy_(x)
        with torch.cuda.stream(racer):  # no wait: shows the race the event prevents
            raced.copy_(x)
        torch.cuda.synchronize()
        stale_with += int(not bool((waited == value).all().item()))
        stale_without += int(not bool((raced == value).all().item()))
    check.fact("stale_with_wait_event", stale_with)
    check.fact("stale_without_wait_event", stale_without)
    conclude(check, va.judge_cross_stream(stale_with, stale_without, trials))


@pytest.mark.gpuconform("framework.torch.event_timing")
def test_event_timing_matches_host_clock(check, gpu, thresholds):
    torch = gpu.torch
    spin_ms = check.expect(thresholds, "spin_ms")
    max_error = check.expect(thresholds, "max_relative_error")
    stream = torch.cuda.Stream()
    event_ms, host_ms, errors = [], [], []
    for _ in range(int(check.expect(thresholds, "trials"))):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        with torch.cuda.stream(stream):
            start.record(stream)
            gpu.spinner.spin(spin_ms)
            end.record(stream)
        end.synchronize()
        host_ms.append((time.perf_counter() - t0) * 1e3)
        event_ms.append(start.elapsed_time(end))
        errors.append(abs(event_ms[-1] - host_ms[-1]) / host_ms[-1])
    check.measure("event_ms", "ms", event_ms)
    check.measure("host_ms", "ms", host_ms)
    check.measure("relative_error", "ratio", errors)
    conclude(check, va.judge_timing(errors, max_error))


def _reuse_trial(gpu, n, gate_ms, value, record):
    """A tensor read on a side stream (behind a gate) and freed on the main stream; a new
    tensor of the same size is then written on the main stream. True if the side stream read
    the overwritten data."""
    torch = gpu.torch
    side = torch.cuda.Stream()
    x = torch.full((n,), value, device=gpu.device)
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        gpu.spinner.spin(gate_ms)
        y = x * 1.0
    if record:
        x.record_stream(side)
    old_ptr = x.data_ptr()
    del x
    z = torch.empty((n,), device=gpu.device)
    z.fill_(-1.0)
    reused = z.data_ptr() == old_ptr
    torch.cuda.synchronize()
    return not bool((y == value).all().item()), reused


@pytest.mark.gpuconform("framework.torch.record_stream")
def test_record_stream_prevents_early_reuse(check, gpu, thresholds):
    n = int(check.expect(thresholds, "size_bytes")) // 4
    gate_ms = check.expect(thresholds, "gate_ms")
    trials = int(check.expect(thresholds, "trials"))
    without = [_reuse_trial(gpu, n, gate_ms, float(t + 2), False) for t in range(trials)]
    with_rs = [_reuse_trial(gpu, n, gate_ms, float(t + 2), True) for t in range(trials)]
    check.fact("allocator_backend", getattr(gpu.torch.cuda, "get_allocator_backend", lambda: None)())
    check.fact("reused_block_without", sum(r for _, r in without))
    check.fact("reused_block_with", sum(r for _, r in with_rs))
    conclude(check, va.judge_record_stream(sum(c for c, _ in with_rs), trials,
                                           sum(c for c, _ in without)))
