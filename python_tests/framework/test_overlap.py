"""framework.torch copy/compute overlap on two torch streams, judged like the native check:
ratio (t_copy + t_compute − t_both) / min(t_copy, t_compute), each time a median of trials."""
import statistics

import pytest

from gpuconform_torch import gating
from gpuconform_torch import verdicts_async as va
from gpuconform_torch.plugin import conclude


@pytest.mark.gpuconform("framework.torch.overlap_copy_compute")
def test_copy_overlaps_compute(check, gpu, thresholds):
    torch = gpu.torch
    size = int(check.expect(thresholds, "size_bytes"))
    trials = int(check.expect(thresholds, "trials"))
    min_ratio = check.expect(thresholds, "overlap_min_ratio")
    src = torch.empty(size, dtype=torch.uint8, pin_memory=True).fill_(7)
    dst = torch.empty(size, dtype=torch.uint8, device=gpu.device)
    copy_stream, compute_stream = torch.cuda.Stream(), torch.cuda.Stream()

    def copy():
        with torch.cuda.stream(copy_stream):
            dst.copy_(src, non_blocking=True)

    def measure(fn):
        return [gating.host_ms(torch, fn) for _ in range(trials)]

    copy()  # warm-up: first use of the copy path
    t_copy = measure(copy)
    spin_ms = statistics.median(t_copy)  # equal lengths make overlap easiest to see

    def compute():
        with torch.cuda.stream(compute_stream):
            gpu.spinner.spin(spin_ms)

    t_compute = measure(compute)
    t_both = measure(lambda: (compute(), copy()))
    valid = bool((dst == 7).all().item())
    ratio = va.overlap_ratio(statistics.median(t_copy), statistics.median(t_compute),
                             statistics.median(t_both))
    check.measure("copy_ms", "ms", t_copy)
    check.measure("compute_ms", "ms", t_compute)
    check.measure("both_ms", "ms", t_both)
    check.measure("overlap_ratio", "ratio", [ratio])
    check.fact("copy_gbps", size / statistics.median(t_copy) / 1e6)
    conclude(check, va.wrong_data([valid], "pinned H2D copy") or va.judge_overlap(ratio, min_ratio))
