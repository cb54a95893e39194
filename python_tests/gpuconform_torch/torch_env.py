"""What torch and the machine say about themselves, read without running anything on a GPU.

ROCm builds of torch expose HIP through torch.cuda.*, so one code path serves both; the
backend name follows torch.version.hip.
"""
import ctypes
import glob
import importlib.util
import os
import platform
import re
import warnings

k_pci_vendors = {"0x10de": "nvidia", "0x1002": "amd"}
k_mask_vars = ("CUDA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES")


_imported = []  # the first attempt's outcome: a retried broken import can fail differently


def import_torch():
    """(torch, None), or (None, "why not") with the import error's own text."""
    if not _imported:
        try:
            import torch  # noqa: PLC0415 - importing torch is the thing being tested
            _imported.append((torch, None))
        except Exception as e:  # a broken install raises more than ImportError (OSError, RuntimeError)
            _imported.append((None, f"{type(e).__name__}: {e}"))
    return _imported[0]


def torch_backend(torch):
    if getattr(torch.version, "hip", None):
        return "hip"
    if getattr(torch.version, "cuda", None):
        return "cuda"
    return None


def backend_of_vendors(vendors):
    if vendors == {"nvidia"}:
        return "cuda"
    if vendors == {"amd"}:
        return "hip"
    return None


def torch_info(torch):
    """The report's environment.torch object; version fields null when torch is absent."""
    python = platform.python_version()
    if torch is None:
        return {"version": None, "cuda": None, "hip": None, "python": python}
    return {"version": str(torch.__version__), "cuda": getattr(torch.version, "cuda", None),
            "hip": getattr(torch.version, "hip", None), "python": python}


_availability = []  # (torch, answer): the first answer, so every check reads what the first ask saw


def cuda_available(torch):
    """(available, init error text or None), the first answer kept: torch warns once only, so a
    second ask could word a failed start-up differently from the first."""
    for asked, answer in _availability:
        if asked is torch:
            return answer
    answer = _ask_cuda_available(torch)
    _availability.append((torch, answer))
    return answer


def start_gpu(torch, index):
    """torch's CUDA (or HIP) start-up and device `index`'s context, ahead of the checks: no kernel,
    no allocation, nothing timed. What fails here is left for the checks to meet and report as
    they always do (torch keeps its failed start-up and raises it again)."""
    if torch is None or torch_backend(torch) is None:
        return
    available, _ = cuda_available(torch)
    if not available:
        return
    try:
        if index < torch.cuda.device_count():
            torch.cuda.set_device(index)
            torch.cuda.synchronize(index)
    except Exception:  # torch raises RuntimeError or its own types; the checks meet it again
        return


def build_of_version_file(text):
    """"cuda" or "hip" from the text of torch/version.py (`cuda: Optional[str] = '13.0'`,
    `hip: Optional[str] = None`), or None when it names neither or cannot be read."""
    values = {}
    for line in text.splitlines():
        match = re.match(r"\s*(cuda|hip)\s*(?::[^=]*)?=\s*(\S.*?)\s*$", line)
        if match:
            values[match.group(1)] = match.group(2)
    if values.get("hip", "None") != "None":
        return "hip"
    if values.get("cuda", "None") != "None":
        return "cuda"
    return None


def torch_build_unimported():
    """The build of the torch that `import torch` would load, read from its version.py without
    importing it (which takes seconds); None when that cannot be told."""
    try:
        spec = importlib.util.find_spec("torch")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.origin:
        return None
    try:
        with open(os.path.join(os.path.dirname(spec.origin), "version.py"), encoding="utf-8") as f:
            return build_of_version_file(f.read())
    except OSError:
        return None


def start_cuda_driver(index):
    """The CUDA driver's start-up and device `index`'s primary context, the one torch's runtime
    then uses, through libcuda itself: it needs no torch, so it can run while torch is still being
    imported (about 0.3 s saved after the import, measured on an H100). For a CUDA build of torch
    (torch_build_unimported); a driver that is missing or fails is left for torch to meet and report."""
    try:
        cuda = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return
    device = ctypes.c_int()
    if cuda.cuInit(0) != 0 or cuda.cuDeviceGet(ctypes.byref(device), index) != 0:
        return
    context = ctypes.c_void_p()
    # Retained for the process's life: torch's runtime takes this same context as the device's.
    cuda.cuDevicePrimaryCtxRetain(ctypes.byref(context), device)


def _ask_cuda_available(torch):
    """torch only warns on failure; init() says why."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        available = torch.cuda.is_available()
    if available:
        return True, None
    try:
        torch.cuda.init()
    except Exception as e:  # torch raises AssertionError, RuntimeError or its own types here
        return False, " ".join(f"{type(e).__name__}: {e}".split())
    texts = [" ".join(str(w.message).split()) for w in caught]
    return False, "; ".join(texts) or "torch.cuda.is_available() is False and gives no reason"


def pci_gpu_vendors(root="/"):
    """The vendor of each GPU (display class 0x03, NVIDIA or AMD) on the PCI bus, from sysfs."""
    found = []
    for dev in sorted(glob.glob(os.path.join(root, "sys/bus/pci/devices/*"))):
        pci_class = read_text(os.path.join(dev, "class")) or ""
        vendor = k_pci_vendors.get(read_text(os.path.join(dev, "vendor")) or "")
        if pci_class.startswith("0x03") and vendor:
            found.append(vendor)
    return found


def machine_vendors(root="/"):
    return set(pci_gpu_vendors(root))


def visible_devices_masked():
    return any(os.environ.get(v) is not None for v in k_mask_vars)


def cuda_driver_version(torch):
    """The driver API version as an int (13000 = 13.0), or None."""
    getter = getattr(torch._C, "_cuda_getDriverVersion", None)
    if getter is not None:
        try:
            return int(getter())
        except (RuntimeError, TypeError, ValueError):
            pass
    try:
        libcuda = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return None
    version = ctypes.c_int(0)
    return version.value if libcuda.cuDriverGetVersion(ctypes.byref(version)) == 0 else None


def read_text(path):
    try:
        with open(path, encoding="utf-8") as f:
            return f.read().strip() or None
    except OSError:
        return None
