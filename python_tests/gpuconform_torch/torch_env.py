"""What torch and the machine say about themselves, read without running anything on a GPU.

ROCm builds of torch expose HIP through torch.cuda.*, so one code path serves both; the
backend name follows torch.version.hip.
"""
import ctypes
import glob
import os
import platform
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
