"""framework.torch build checks: vendor, driver fit, devices, cuDNN/MIOpen, arch list."""
import pytest

from gpuconform_torch import attribution, checks, torch_env
from gpuconform_torch import verdicts_build as vb
from gpuconform_torch.plugin import conclude


def _backend_or_skip(gc, torch):
    backend = torch_env.torch_backend(torch)
    if backend is None:
        pytest.skip(f"torch {torch.__version__} is a CPU-only build (see framework.torch.build)")
    gc.backend = backend
    return backend


@pytest.mark.gpuconform("framework.torch.build")
def test_build_matches_machine_vendor(gc, torch_mod):
    torch = torch_mod
    gc.backend = torch_env.torch_backend(torch)
    vendors = torch_env.machine_vendors()
    available, error = torch_env.cuda_available(torch)
    gc.fact("torch", torch_env.torch_info(torch))
    gc.fact("pci_gpu_vendors", sorted(vendors))
    gc.fact("gpu_usable", available)
    if error:
        gc.fact("init_error", error)
    conclude(gc, vb.judge_build(str(torch.__version__), torch.version.cuda,
                                getattr(torch.version, "hip", None), vendors, available, error))


@pytest.mark.gpuconform("framework.torch.driver_compat")
def test_runtime_fits_driver(gc, torch_mod):
    torch = torch_mod
    backend = _backend_or_skip(gc, torch)
    available, error = torch_env.cuda_available(torch)
    if backend == "hip":
        amdgpu = torch_env.read_text("/sys/module/amdgpu/version")
        gc.fact("torch_hip", torch.version.hip)
        gc.fact("amdgpu_version", amdgpu)
        conclude(gc, vb.judge_hip_driver(torch.version.hip, amdgpu, available, error))
        return
    runtime = vb.cuda_version_tuple(torch.version.cuda)
    driver = vb.cuda_version_tuple(torch_env.cuda_driver_version(torch))
    gc.fact("torch_cuda", torch.version.cuda)
    gc.fact("driver_api", f"{driver[0]}.{driver[1]}" if driver else None)
    gc.fact("kernel_driver", torch_env.read_text("/sys/module/nvidia/version"))
    conclude(gc, vb.judge_cuda_driver(runtime, driver, available, error))


@pytest.mark.gpuconform("framework.torch.devices")
def test_devices_agree_with_native(check, gpu, native_results):
    torch = gpu.torch
    names = [torch.cuda.get_device_name(i) for i in range(torch.cuda.device_count())]
    twin = checks.native_twin(check.check_id, gpu.backend)
    native = attribution.native_device_names(native_results, twin)
    pci = None if torch_env.visible_devices_masked() else torch_env.pci_gpu_vendors().count(gpu.vendor)
    check.fact("torch_devices", names)
    check.fact("native_devices", native)
    check.fact("pci_count", pci)
    conclude(check, vb.judge_devices(names, native, pci))


def _dnn_versions(torch):
    cudnn = getattr(torch._C, "_cudnn", None)
    if cudnn is None:
        return None, None, not torch.version.hip
    is_cuda = bool(getattr(cudnn, "is_cuda", not torch.version.hip))
    try:
        runtime = tuple(cudnn.getRuntimeVersion())
    except Exception:  # the library could not be loaded; torch raises RuntimeError or OSError
        runtime = None
    return tuple(cudnn.getCompileVersion()), runtime, is_cuda


@pytest.mark.gpuconform("framework.torch.dnn_library")
def test_dnn_library_fits_build(gc, torch_mod):
    _backend_or_skip(gc, torch_mod)
    compiled, runtime, is_cuda = _dnn_versions(torch_mod)
    gc.fact("compiled", list(compiled) if compiled else None)
    gc.fact("loaded", list(runtime) if runtime else None)
    gc.fact("library", "cudnn" if is_cuda else "miopen")
    conclude(gc, vb.judge_dnn(compiled, runtime, is_cuda))


@pytest.mark.gpuconform("framework.torch.arch_list")
def test_gpu_arch_in_wheel(check, gpu):
    torch = gpu.torch
    if gpu.backend == "hip":
        arch = torch.cuda.get_device_properties(gpu.index).gcnArchName
    else:
        arch = "sm_{}{}".format(*torch.cuda.get_device_capability(gpu.index))
    arch_list = list(torch.cuda.get_arch_list())
    check.fact("device_arch", arch)
    check.fact("arch_list", arch_list)
    conclude(check, vb.judge_arch(gpu.vendor, arch, arch_list))
