"""Pure judges of torch's build: vendor, driver fit, devices, cuDNN/MIOpen, arch list, pinning."""
import re

from .results import Verdict

k_vendor_names = {"nvidia": "NVIDIA", "amd": "AMD"}


def build_vendor(torch_cuda, torch_hip):
    """The GPU vendor a torch build targets: ROCm builds set torch.version.hip (and maybe cuda)."""
    if torch_hip:
        return "amd"
    if torch_cuda:
        return "nvidia"
    return None


def describe_build(torch_version, torch_cuda, torch_hip):
    if torch_hip:
        return f"torch {torch_version} (ROCm/HIP {torch_hip})"
    if torch_cuda:
        return f"torch {torch_version} (CUDA {torch_cuda})"
    return f"torch {torch_version} (CPU-only)"


def judge_build(torch_version, torch_cuda, torch_hip, machine_vendors, available, init_error):
    what = describe_build(torch_version, torch_cuda, torch_hip)
    wanted = build_vendor(torch_cuda, torch_hip)
    if not machine_vendors:
        return Verdict("info", f"{what}; no NVIDIA or AMD GPU on the PCI bus, nothing to match",
                       None)
    gpus = " and ".join(k_vendor_names[v] for v in sorted(machine_vendors))
    flavour = {"nvidia": "a CUDA (+cuXXX)", "amd": "a ROCm (+rocmX.Y)"}
    fix = " or ".join(flavour[v] for v in sorted(machine_vendors)) + " build of torch"
    if wanted is None:
        return Verdict("fail", f"{what} is CPU-only on a machine with {gpus} GPUs",
                       f"install {fix} that fits the driver")
    if wanted not in machine_vendors:
        return Verdict("fail", f"{what} targets {k_vendor_names[wanted]} GPUs, this machine has "
                       f"{gpus} GPUs", f"install {fix}")
    if not available:
        return Verdict("fail", f"{what} cannot use the {gpus} GPU: {init_error or 'no reason given'}",
                       "see framework.torch.driver_compat; check the driver is loaded and this "
                       "user can open the device nodes (/dev/nvidia*, or /dev/kfd and /dev/dri)")
    return Verdict("pass", f"{what} matches this machine's {gpus} GPUs and can use them", None)


def cuda_version_tuple(value):
    """13000 -> (13, 0); "12.4" -> (12, 4); None stays None."""
    if value is None:
        return None
    if isinstance(value, int):
        return (value // 1000, (value % 1000) // 10)
    match = re.match(r"(\d+)\.(\d+)", str(value))
    return (int(match.group(1)), int(match.group(2))) if match else None


def judge_cuda_driver(torch_cuda, driver, available, init_error):
    """torch's CUDA runtime against the driver API version (both (major, minor) tuples)."""
    rt_s = f"{torch_cuda[0]}.{torch_cuda[1]}"
    if driver is None:
        if available:
            return Verdict("info", f"torch uses CUDA {rt_s}; the driver API version could not be read",
                           None)
        return Verdict("fail", f"torch is built for CUDA {rt_s} and finds no usable NVIDIA driver: "
                       f"{init_error or 'no reason given'}",
                       f"install an NVIDIA driver that supports CUDA {rt_s} and load its kernel module")
    drv_s = f"{driver[0]}.{driver[1]}"
    if driver >= torch_cuda:
        return Verdict("pass", f"driver supports CUDA {drv_s} ≥ torch's CUDA {rt_s}", None)
    fix = (f"install a driver that supports CUDA {rt_s}, or a torch wheel built for CUDA ≤ {drv_s}")
    if driver[0] < torch_cuda[0] or not available:
        return Verdict("fail", f"torch is built for CUDA {rt_s} but the driver supports only CUDA "
                       f"{drv_s}: a newer major than the driver cannot run", fix)
    return Verdict("warn", f"driver supports CUDA {drv_s} < torch's CUDA {rt_s}: runs only under "
                   "minor-version compatibility (no PTX JIT of newer code)", fix)


def judge_hip_driver(torch_hip, amdgpu_version, available, init_error):
    """ROCm has no driver-API number to compare: record the versions, fail only when unusable."""
    driver = amdgpu_version or "in-tree amdgpu (no /sys/module/amdgpu/version)"
    if not available:
        return Verdict("fail", f"torch built for HIP {torch_hip} cannot use the GPU with {driver}: "
                       f"{init_error or 'no reason given'}",
                       "install the amdgpu driver of the ROCm release the torch wheel was built for")
    return Verdict("info", f"torch uses HIP {torch_hip} with kernel driver {driver}", None)


def judge_devices(torch_names, native_names, pci_count):
    """torch's devices against the native runtime's (names) or, lacking those, the PCI bus."""
    seen = f"torch sees {len(torch_names)} device(s): {', '.join(torch_names) or 'none'}"
    if native_names is not None:
        if list(native_names) == list(torch_names):
            return Verdict("pass", f"{seen}, the same as the native runtime", None)
        return Verdict("fail", f"{seen}; the native runtime sees {len(native_names)}: "
                       f"{', '.join(native_names) or 'none'}",
                       "compare CUDA_VISIBLE_DEVICES/HIP_VISIBLE_DEVICES in both environments and "
                       "the runtime libraries torch loads (ldd, LD_LIBRARY_PATH)")
    if pci_count is None:
        return Verdict("info", f"{seen}; no native result and a *_VISIBLE_DEVICES mask set, "
                       "nothing to compare", None)
    if pci_count == len(torch_names):
        return Verdict("pass", f"{seen}, as many as on the PCI bus", None)
    return Verdict("fail", f"{seen}, but the PCI bus has {pci_count} GPU(s) of this vendor",
                   "check that every GPU's driver is bound (nvidia-smi / rocm-smi) and none is "
                   "in an error state")


def dnn_compatible(compile_version, runtime_version, is_cuda):
    """torch's own rule: same major; cuDNN ≥ 7 runtime minor ≥ compile minor; MIOpen equal minor."""
    if runtime_version[0] != compile_version[0]:
        return False
    if runtime_version[0] < 7 or not is_cuda:
        return runtime_version[1] == compile_version[1]
    return runtime_version[1] >= compile_version[1]


def judge_dnn(compile_version, runtime_version, is_cuda):
    name = "cuDNN" if is_cuda else "MIOpen"
    if compile_version is None:
        return Verdict("info", f"torch was built without {name}", None)
    built = ".".join(str(p) for p in compile_version)
    if runtime_version is None:
        return Verdict("fail", f"torch was built with {name} {built} but cannot load it",
                       f"install the {name} package the torch build depends on "
                       "(pip's nvidia-cudnn-* for CUDA wheels, miopen-hip for ROCm)")
    loaded = ".".join(str(p) for p in runtime_version)
    if dnn_compatible(compile_version, runtime_version, is_cuda):
        return Verdict("pass", f"{name} loaded {loaded} fits the {built} torch was built with", None)
    return Verdict("fail", f"{name} loaded {loaded} does not fit the {built} torch was built with",
                   f"make torch load {name} {built[:built.rfind('.')]}.x (check LD_LIBRARY_PATH "
                   "for another copy shadowing the wheel's)")


def _sm(entry):
    match = re.fullmatch(r"(sm|compute)_(\d+)(\d)([a-z]?)", entry)
    return (match.group(1), int(match.group(2)), int(match.group(3)), match.group(4)) if match else None


def judge_arch(vendor, device_arch, arch_list):
    """Is there code for this GPU in the wheel? NVIDIA: exact cubin, a same-major older cubin
    (binary compatible), or older PTX (JIT at first use, warn). AMD: gfx names must match."""
    listed = ", ".join(arch_list) or "none"
    if not arch_list:
        return Verdict("info", f"torch reports no compiled architecture list (device {device_arch})",
                       None)
    missing = Verdict("fail", f"GPU {device_arch} is not among the architectures torch was compiled "
                      f"for ({listed}): its kernels fail with 'no kernel image is available'",
                      f"install a torch build compiled for {device_arch} (usually a newer CUDA/ROCm wheel)")
    if vendor == "amd":
        base = device_arch.split(":")[0]
        ok = base in {a.split(":")[0] for a in arch_list}
        return Verdict("pass", f"GPU {base} is in torch's arch list ({listed})", None) if ok else missing
    dev = _sm(device_arch)
    entries = [e for e in (_sm(a) for a in arch_list) if e]
    if dev is None:
        return Verdict("error", f"cannot parse the device architecture {device_arch!r}",
                       "report this to gpuconform")
    _, major, minor, _ = dev
    if any(e[0] == "sm" and e[1:3] == (major, minor) and not e[3] for e in entries):
        return Verdict("pass", f"GPU {device_arch} is in torch's arch list ({listed})", None)
    compat = [e for e in entries if e[0] == "sm" and e[1] == major and e[2] < minor and not e[3]]
    if compat:
        return Verdict("pass", f"GPU {device_arch} runs torch's sm_{major}{compat[-1][2]} code "
                       f"(binary compatible within a major; list: {listed})", None)
    ptx = [e for e in entries if e[0] == "compute" and (e[1], e[2]) <= (major, minor) and not e[3]]
    if ptx:
        return Verdict("warn", f"GPU {device_arch} has no compiled code in torch ({listed}); "
                       "kernels are JIT-compiled from PTX at first use (slow start)",
                       f"install a torch build compiled for {device_arch}")
    return missing


def judge_all_pinned(pinned_flags, what):
    n = len(pinned_flags)
    bad = n - sum(bool(p) for p in pinned_flags)
    if n == 0:
        return Verdict("error", f"{what}: nothing was produced to inspect", "see the check's output")
    if bad:
        return Verdict("fail", f"{what}: {bad} of {n} tensors are not pinned",
                       "pinned allocation failed silently: check the torch build and "
                       "framework.torch.build; copies from these tensors cannot overlap")
    return Verdict("pass", f"{what}: {n} of {n} tensors pinned", None)
