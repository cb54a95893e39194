"""framework.torch pinning: pin_memory(), and DataLoader(pin_memory=True) with and without workers."""
import warnings

import pytest

from gpuconform_torch import verdicts_build as vb
from gpuconform_torch.plugin import conclude
from gpuconform_torch.results import Verdict


@pytest.mark.gpuconform("framework.torch.pin_memory")
def test_pin_memory_gives_pinned_tensors(check, gpu, thresholds):
    torch = gpu.torch
    n = int(check.expect(thresholds, "size_bytes"))
    pageable = torch.empty(n, dtype=torch.uint8)
    if pageable.is_pinned():
        conclude(check, Verdict("error", "is_pinned() reports pageable memory as pinned, so "
                                "pinning cannot be judged", "report this torch build's bug"))
    flags = [pageable.pin_memory().is_pinned(),
             torch.empty(n, dtype=torch.uint8, pin_memory=True).is_pinned()]
    conclude(check, vb.judge_all_pinned(flags, "pin_memory() and empty(pin_memory=True)"))


def _loader_pinned_flags(torch, batches, workers):
    from torch.utils.data import DataLoader, TensorDataset

    rows = batches * 4
    dataset = TensorDataset(torch.arange(rows * 16, dtype=torch.float32).reshape(rows, 16),
                            torch.arange(rows))
    options = {"batch_size": 4, "pin_memory": True, "num_workers": workers}
    if workers:
        # fork starts workers in milliseconds; they never touch the GPU, so it is safe here.
        options["multiprocessing_context"] = "fork"
    flags = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # fork in a threaded process (3.12+)
        for x, y in DataLoader(dataset, **options):
            flags += [x.is_pinned(), y.is_pinned()]
    return flags


@pytest.mark.gpuconform("framework.torch.dataloader_pinned")
def test_dataloader_pins_batches(check, gpu, thresholds):
    batches = int(check.expect(thresholds, "batches"))
    flags = _loader_pinned_flags(gpu.torch, batches, 0)
    conclude(check, vb.judge_all_pinned(flags, "DataLoader(pin_memory=True, num_workers=0) batches"))


@pytest.mark.gpuconform("framework.torch.dataloader_pinned_workers")
def test_dataloader_with_workers_pins_batches(check, gpu, thresholds):
    batches = int(check.expect(thresholds, "batches"))
    workers = int(check.expect(thresholds, "workers"))
    flags = _loader_pinned_flags(gpu.torch, batches, workers)
    conclude(check, vb.judge_all_pinned(
        flags, f"DataLoader(pin_memory=True, num_workers={workers}) batches"))
