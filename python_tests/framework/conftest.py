"""Fixtures of the framework checks: torch itself, and a usable GPU with a calibrated spin.
Each skips with the reason (the import error, torch's own init error) instead of failing."""
import pytest

from gpuconform_torch import gating, timings, torch_env


@pytest.fixture(scope="session")
def torch_mod():
    torch, error = torch_env.import_torch()
    if torch is None:
        pytest.skip(f"torch is not importable ({error}): install python3-torch or a torch "
                    "wheel for this GPU, or pass --python with one that has it")
    return torch


@pytest.fixture(scope="session")
def gpu(torch_mod, pytestconfig, thresholds):
    with timings.Phase("cuda_init"):
        return _open_gpu(torch_mod, pytestconfig, thresholds)


def _open_gpu(torch, pytestconfig, thresholds):
    """torch's CUDA (or HIP) start-up on the device under test, and the spin calibration."""
    backend = torch_env.torch_backend(torch)
    if backend is None:
        pytest.skip(f"torch {torch.__version__} is a CPU-only build: GPU checks need a CUDA or "
                    "ROCm build (see framework.torch.build)")
    available, error = torch_env.cuda_available(torch)
    if not available:
        pytest.skip(f"torch cannot use the GPU: {error}")
    index = pytestconfig.getoption("--gpuconform-device")
    count = torch.cuda.device_count()
    if index >= count:
        pytest.skip(f"device {index} was asked for, torch sees {count} device(s)")
    torch.cuda.set_device(index)
    spinner = gating.calibrate(torch, thresholds.get("framework.torch", "calibration_ms"))
    vendor = "amd" if backend == "hip" else "nvidia"
    return gating.GpuContext(torch, index, torch.device("cuda", index), backend, vendor, spinner)


@pytest.fixture
def check(gc, gpu):
    """The current check's result builder, tied to the device under test."""
    gc.backend = gpu.backend
    gc.device = gpu.index
    return gc
