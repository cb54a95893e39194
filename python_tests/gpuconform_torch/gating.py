"""Torch-side measurement on a GPU: a calibrated spin (torch.cuda._sleep) to gate calls, and
host-clock timing. Measures only; the verdicts live in verdicts_async. Needs a usable GPU.
"""
import time
from collections import namedtuple

GpuContext = namedtuple("GpuContext", "torch index device backend vendor spinner")
GatedCall = namedtuple("GatedCall", "busy_before busy_after call_ms value")


class Spinner:
    """Queues a spin of a given length on the current stream (calibrated cycles per ms)."""

    def __init__(self, torch, cycles_per_ms):
        self._torch = torch
        self.cycles_per_ms = cycles_per_ms

    def spin(self, ms):
        self._torch.cuda._sleep(max(1, int(ms * self.cycles_per_ms)))


def host_ms(torch, fn):
    """Host-clock time of `fn` from an idle device until the device is idle again."""
    torch.cuda.synchronize()
    start = time.perf_counter()
    fn()
    torch.cuda.synchronize()
    return (time.perf_counter() - start) * 1e3


def calibrate(torch, target_ms):
    """Cycles per ms of torch.cuda._sleep on the current device, by the host clock (so the
    event-timing check does not judge events against themselves)."""
    torch.cuda._sleep(1000)  # the first launch loads the kernel (lazy module loading)
    torch.cuda.synchronize()
    cycles = 100_000
    for _ in range(10):
        ms = host_ms(torch, lambda: torch.cuda._sleep(cycles))
        if ms >= target_ms:
            break
        cycles = int(cycles * min(100.0, max(2.0, 1.2 * target_ms / max(ms, 1e-3))))
    return Spinner(torch, cycles / ms)


def gated_call(torch, stream, spinner, gate_ms, call):
    """Runs `call()` on `stream` behind a queued spin; the stream's state says if it came back
    before the queued work finished."""
    with torch.cuda.stream(stream):
        spinner.spin(gate_ms)
        busy_before = not stream.query()
        start = time.perf_counter()
        value = call()
        call_ms = (time.perf_counter() - start) * 1e3
        busy_after = not stream.query()
    return GatedCall(busy_before, busy_after, call_ms, value)


def h2d_trials(gpu, src, trials, gate_ms):
    """`src.to(device, non_blocking=True)` behind a gate, `trials` times, each with fresh data.
    Returns (gated calls, valid flags); data is checked after synchronizing."""
    torch = gpu.torch
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):  # warms the copy path and leaves a cached device block
        src.to(gpu.device, non_blocking=True)
    stream.synchronize()
    calls, valid = [], []
    for trial in range(trials):
        value = float(trial + 3)
        src.fill_(value)
        call = gated_call(torch, stream, gpu.spinner, gate_ms,
                          lambda: src.to(gpu.device, non_blocking=True))
        stream.synchronize()
        valid.append(bool((call.value == value).all().item()))
        calls.append(call)
    return calls, valid
