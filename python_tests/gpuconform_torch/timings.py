"""Where the framework layer's time goes, and the early start's gate.

gpuconform starts pytest while its native device checks still run: GPUCONFORM_GO_FD names a
socket on which it writes "go" when they have finished. Until then the plugin may only do work
that leaves the GPU alone (Python, pytest, collection, `import torch`, which does not
initialise CUDA); await_go() is called before anything that touches the GPU or reads the native
results. Before "go", gpuconform may write "gpu": none of its measurements is left (only checks
that fault on purpose, and their worker's end), so the GPU runtime may start, timing nothing: the
driver's part at once, on the thread that listens, even while torch is still being imported;
torch's own once it is. Stamps are time.monotonic() (CLOCK_MONOTONIC, the clock gpuconform's steady_clock reads).
"""
import json
import os
import queue
import threading
import time

k_go_fd_variable = "GPUCONFORM_GO_FD"
k_no_go_exit = 4  # the run ended (or was stopped) before the framework layer's turn

loaded_at = time.monotonic()
_phases = []
_state = {"waited": False}


class Phase:
    """`with Phase("name"):` stamps one phase."""

    def __init__(self, name):
        self.name = name
        self.start = None

    def __enter__(self):
        self.start = time.monotonic()
        return self

    def __exit__(self, *exc):
        add(self.name, self.start, time.monotonic())
        return False


def add(name, start, end):
    _phases.append({"name": name, "start": start, "end": end})


def phases():
    return list(_phases)


def _lines(fd):
    """gpuconform's lines, one at a time, until end of file."""
    pending = b""
    while True:
        while b"\n" not in pending:
            chunk = os.read(fd, 64)
            if not chunk:
                return
            pending += chunk
        line, pending = pending.split(b"\n", 1)
        yield line.strip()


def _listen(fd, start_driver, heard):
    """On its own thread: each line gpuconform writes goes to `heard`, then None at end of file.
    On "gpu" the driver's start-up runs here first, while the main thread may still import torch."""
    for line in _lines(fd):
        if line == b"gpu" and start_driver is not None:
            try:
                with Phase("driver_start"):
                    start_driver()
            except Exception:  # a start-up that fails is met again by the checks, which report it
                pass
        heard.put(line)
        if line != b"gpu":
            break
    heard.put(None)


def await_go(prepare=None, start_gpu=None, start_driver=None):
    """Blocks until gpuconform says go; returns at once without the variable (a plain pytest run,
    which then imports torch where it always did).
    `prepare` runs first (the start-up work that may overlap the native checks). If gpuconform
    says "gpu" first, `start_driver` runs as soon as it does, beside `prepare` (it must not need
    torch), and `start_gpu` once `prepare` is done. On end of file, or any other word, the process
    ends at once: nothing was measured, nothing is to be written."""
    if _state["waited"]:
        return
    _state["waited"] = True
    value = os.environ.pop(k_go_fd_variable, "")
    if not value.isdigit():
        return
    fd = int(value)
    heard = queue.SimpleQueue()
    threading.Thread(target=_listen, args=(fd, start_driver, heard), daemon=True).start()
    if prepare is not None:
        prepare()
    with Phase("wait_for_go"):
        while (line := heard.get()) == b"gpu":
            if start_gpu is not None:
                with Phase("gpu_start"):
                    start_gpu()
        go = line == b"go"
    os.close(fd)
    if not go:
        os._exit(k_no_go_exit)


def write(path):
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump({"loaded": loaded_at, "phases": _phases}, f, indent=1)
        f.write("\n")
    os.replace(tmp, path)
