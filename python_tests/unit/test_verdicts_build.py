"""The build judges: vendor match, driver fit, devices, cuDNN/MIOpen, arch list, pinning."""
import pytest

from gpuconform_torch import verdicts_build as vb


@pytest.mark.parametrize("cuda, hip, vendors, available, status", [
    ("13.0", None, {"nvidia"}, True, "pass"),
    ("13.0", None, {"nvidia"}, False, "fail"),   # right build, GPU unusable
    (None, None, {"nvidia"}, False, "fail"),     # CPU-only wheel on a GPU node
    ("13.0", None, {"amd"}, False, "fail"),      # wrong vendor
    (None, "6.4", {"amd"}, True, "pass"),        # ROCm build
    ("13.0", "6.4", {"amd"}, True, "pass"),      # ROCm builds may set both: hip decides
    (None, None, set(), False, "info"),          # nothing to match against
])
def test_judge_build(cuda, hip, vendors, available, status):
    assert vb.judge_build("2.11.0", cuda, hip, vendors, available, "err").status == status


@pytest.mark.parametrize("value, expected", [(13000, (13, 0)), (12040, (12, 4)), ("12.4", (12, 4)),
                                             (None, None), ("garbage", None)])
def test_cuda_version_tuple(value, expected):
    assert vb.cuda_version_tuple(value) == expected


@pytest.mark.parametrize("runtime, driver, available, status", [
    ((13, 0), (13, 0), True, "pass"),
    ((12, 4), (13, 0), True, "pass"),
    ((13, 0), (12, 4), False, "fail"),   # newer major than the driver
    ((12, 8), (12, 4), True, "warn"),    # minor-version compatibility
    ((12, 8), (12, 4), False, "fail"),
    ((13, 0), None, False, "fail"),      # no driver at all
    ((13, 0), None, True, "info"),
])
def test_judge_cuda_driver(runtime, driver, available, status):
    assert vb.judge_cuda_driver(runtime, driver, available, "no driver").status == status


@pytest.mark.parametrize("torch_names, native, pci, status", [
    (["H200"], ["H200"], 1, "pass"),
    (["H200"], ["H200", "H200"], 2, "fail"),
    (["H200"], None, 1, "pass"),
    (["H200"], None, 2, "fail"),
    (["H200"], None, None, "info"),
])
def test_judge_devices(torch_names, native, pci, status):
    assert vb.judge_devices(torch_names, native, pci).status == status


@pytest.mark.parametrize("compiled, runtime, is_cuda, status", [
    ((9, 19, 0), (9, 19, 0), True, "pass"),
    ((9, 1, 0), (9, 19, 0), True, "pass"),    # cuDNN ≥ 7: newer minor is fine
    ((9, 19, 0), (9, 1, 0), True, "fail"),
    ((9, 1, 0), (8, 9, 0), True, "fail"),     # major differs
    ((3, 1, 0), (3, 2, 0), False, "fail"),    # MIOpen: minor must match
    ((3, 1, 0), (3, 1, 1), False, "pass"),
    ((9, 1, 0), None, True, "fail"),          # cannot load it
    (None, None, True, "info"),               # built without
])
def test_judge_dnn(compiled, runtime, is_cuda, status):
    assert vb.judge_dnn(compiled, runtime, is_cuda).status == status


@pytest.mark.parametrize("vendor, arch, arch_list, status", [
    ("nvidia", "sm_90", ["sm_80", "sm_90", "sm_100"], "pass"),
    ("nvidia", "sm_89", ["sm_80", "sm_86"], "pass"),          # same-major cubin runs
    ("nvidia", "sm_120", ["sm_80", "sm_90", "compute_90"], "warn"),  # PTX JIT only
    ("nvidia", "sm_120", ["sm_80", "sm_90"], "fail"),
    ("nvidia", "sm_90", ["sm_90a"], "fail"),                  # arch-specific code is not portable
    ("nvidia", "sm_86", ["sm_90"], "fail"),                   # newer code never runs on older GPUs
    ("amd", "gfx90a:sramecc+:xnack-", ["gfx90a", "gfx942"], "pass"),
    ("amd", "gfx1100", ["gfx90a", "gfx942"], "fail"),
    ("nvidia", "sm_90", [], "info"),
])
def test_judge_arch(vendor, arch, arch_list, status):
    assert vb.judge_arch(vendor, arch, arch_list).status == status


@pytest.mark.parametrize("flags, status", [([True, True], "pass"), ([True, False], "fail"), ([], "error")])
def test_judge_all_pinned(flags, status):
    assert vb.judge_all_pinned(flags, "tensors").status == status
