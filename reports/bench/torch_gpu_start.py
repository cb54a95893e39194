"""Where torch's GPU start-up goes, and what starting the CUDA driver beside `import torch` saves.

One mode per process (a process starts CUDA once), each printing its stamps in seconds from the
start:
  plain         import torch, then is_available / set_device / synchronize / a first kernel
  thread        the driver (cuInit, the device's primary context through libcuda) on a thread
                while torch is imported, then the same torch calls
  driver_first  the driver first, then the import and the same calls
The framework layer does what `thread` does once gpuconform says "gpu"
(python_tests/gpuconform_torch/timings.py). Run on an NVIDIA GPU node with a CUDA build of torch:
  for i in 1 2 3 4; do for m in plain thread driver_first; do python3 torch_gpu_start.py $m; done; done
"""
import ctypes
import sys
import threading
import time

k_modes = ("plain", "thread", "driver_first")
t0 = time.monotonic()
stamps = {}


def stamp(name):
    stamps[name] = round(time.monotonic() - t0, 4)


def start_driver(index=0):
    cuda = ctypes.CDLL("libcuda.so.1")
    stamp("dlopen")
    if cuda.cuInit(0) != 0:
        raise RuntimeError("cuInit failed")
    stamp("cuInit")
    device, context = ctypes.c_int(), ctypes.c_void_p()
    if cuda.cuDeviceGet(ctypes.byref(device), index) != 0 or \
            cuda.cuDevicePrimaryCtxRetain(ctypes.byref(context), device) != 0:
        raise RuntimeError("no primary context for device %d" % index)
    stamp("ctx_retain")


def main(mode):
    thread = None
    if mode == "thread":
        thread = threading.Thread(target=start_driver)
        thread.start()
    elif mode == "driver_first":
        start_driver()
    import torch  # noqa: PLC0415 - the import's time is part of what is measured
    stamp("import")
    if thread is not None:
        thread.join()
        stamp("joined")
    if not torch.cuda.is_available():
        raise SystemExit("torch sees no GPU")
    stamp("is_available")
    torch.cuda.set_device(0)
    stamp("set_device")
    torch.cuda.synchronize(0)
    stamp("synchronize")
    torch.cuda._sleep(1000)
    torch.cuda.synchronize()
    stamp("first_kernel")
    print(mode, stamps, flush=True)


if __name__ == "__main__":
    if len(sys.argv) != 2 or sys.argv[1] not in k_modes:
        raise SystemExit("usage: torch_gpu_start.py {%s}" % "|".join(k_modes))
    main(sys.argv[1])
