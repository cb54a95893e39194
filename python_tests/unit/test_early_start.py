"""The early start's gate: a pytest started with GPUCONFORM_GO_FD runs no check and reads no native
results until "go" arrives, and ends at once when the socket closes without it."""
import json
import os
import socket
import subprocess
import sys
import threading
import time

import pytest

from test_plugin import k_fake_checks, k_tests_dir

k_marker_check = '''
import pathlib, time
@pytest.mark.gpuconform("framework.torch.non_blocking_h2d")
def test_marks(gc):
    pathlib.Path(__file__).with_name("ran").write_text(repr(time.monotonic()))
    conclude(gc, ("pass", "ran", None))
'''


def start_early(tmp_path, *extra):
    (tmp_path / "conftest.py").write_text('pytest_plugins = ("gpuconform_torch.plugin",)\n')
    (tmp_path / "test_fake.py").write_text(k_fake_checks + k_marker_check)
    ours, theirs = socket.socketpair()
    env = dict(os.environ, PYTHONPATH=k_tests_dir, PYTHONDONTWRITEBYTECODE="1", GPUCONFORM_GO_FD=str(theirs.fileno()))
    paths = {name: tmp_path / f"{name}.json" for name in ("results", "native", "timings")}
    proc = subprocess.Popen([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path),
                             f"--gpuconform-results={paths['results']}", f"--gpuconform-native={paths['native']}",
                             f"--gpuconform-timings={paths['timings']}", *extra],
                            cwd=tmp_path, env=env, pass_fds=(theirs.fileno(),),
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    theirs.close()
    return proc, ours, paths


@pytest.mark.parametrize("early_word", [b"", b"gpu\n"])  # "gpu" allows a GPU start-up, never a check
def test_nothing_runs_before_go_and_native_results_are_read_after_it(tmp_path, early_word):
    proc, ours, paths = start_early(tmp_path)
    ours.sendall(early_word)
    time.sleep(3)  # long enough for pytest to collect and to import torch when it is installed
    assert proc.poll() is None, proc.communicate()[0]
    assert not (tmp_path / "ran").exists() and not paths["results"].exists()
    # The native results appear only now, as gpuconform writes them just before go.
    paths["native"].write_text(json.dumps([{"id": "async.overlap.copy_compute", "status": "pass",
                                            "backend": "cuda", "device": 0}]))
    go_at = time.monotonic()
    ours.sendall(b"go\n")
    ours.close()
    output = proc.communicate(timeout=120)[0]
    assert proc.returncode == 1, output  # the fake checks include a failure
    assert float((tmp_path / "ran").read_text()) >= go_at
    results = {r["id"]: r for r in json.loads(paths["results"].read_text())}
    assert results["framework.torch.overlap_copy_compute"]["attribution"] == "framework"
    stamps = json.loads(paths["timings"].read_text())
    names = [p["name"] for p in stamps["phases"]]
    assert {"torch_import", "wait_for_go", "tests", "results"} <= set(names)
    wait = next(p for p in stamps["phases"] if p["name"] == "wait_for_go")
    assert wait["end"] >= go_at - 0.05 and stamps["loaded"] <= wait["start"]


def test_closed_socket_without_go_ends_pytest_at_once(tmp_path):
    proc, ours, paths = start_early(tmp_path)
    time.sleep(1)
    ours.close()
    proc.communicate(timeout=30)
    assert proc.returncode == 4  # timings.k_no_go_exit
    assert not (tmp_path / "ran").exists() and not paths["results"].exists()


def test_an_only_that_selects_no_framework_check_imports_no_torch(tmp_path):
    env = tmp_path / "env.json"
    proc, ours, paths = start_early(tmp_path, "--gpuconform-only=async.copy.bandwidth", f"--gpuconform-env={env}")
    ours.sendall(b"go\n")
    ours.close()
    output = proc.communicate(timeout=120)[0]
    assert proc.returncode == 5, output  # pytest: no tests ran
    names = [p["name"] for p in json.loads(paths["timings"].read_text())["phases"]]
    assert "torch_import" not in names and "wait_for_go" in names, names
    assert json.loads(env.read_text())["version"] is None  # not imported for its version either


def test_run_by_gpuconform_pytest_skips_the_interpreters_teardown_and_keeps_its_status(tmp_path):
    # An atexit handler stands for torch's teardown: it must not run, the exit status must stay.
    (tmp_path / "test_teardown.py").write_text(
        "import atexit, pathlib\n"
        "atexit.register(lambda: pathlib.Path(__file__).with_name('torn_down').write_text('x'))\n")
    proc, ours, paths = start_early(tmp_path)
    ours.sendall(b"go\n")
    ours.close()
    output = proc.communicate(timeout=120)[0]
    assert proc.returncode == 1, output  # the fake checks include a failure
    assert paths["results"].exists() and paths["timings"].exists()
    assert not (tmp_path / "torn_down").exists()


def _await_in_process(monkeypatch, sent, prepare=None, start_driver=None):
    """await_go here, on a socket that already holds `sent`: what ran, in order, and the phases."""
    from gpuconform_torch import timings
    ours, theirs = socket.socketpair()
    monkeypatch.setenv("GPUCONFORM_GO_FD", str(theirs.detach()))  # await_go closes it
    monkeypatch.setitem(timings._state, "waited", False)
    monkeypatch.setattr(timings, "_phases", [])
    ours.sendall(sent)
    ours.close()
    ran = []
    timings.await_go(prepare=lambda: ran.append(prepare() if prepare else "prepare"),
                     start_gpu=lambda: ran.append("gpu"),
                     start_driver=(lambda: ran.append(start_driver())) if start_driver else None)
    return ran, {p["name"]: p for p in timings.phases()}


def test_the_gpu_word_starts_the_gpu_inside_the_wait(monkeypatch):
    ran, phases = _await_in_process(monkeypatch, b"gpu\ngo\n")  # one read brings both lines
    assert ran == ["prepare", "gpu"]
    wait, start = phases["wait_for_go"], phases["gpu_start"]
    assert wait["start"] <= start["start"] <= start["end"] <= wait["end"]


def test_the_drivers_start_runs_beside_the_import_and_before_torchs(monkeypatch):
    driver_started = threading.Event()

    def importing():  # stands for torch's import: it ends only once the driver's start has run
        assert driver_started.wait(30), "the driver's start-up did not run while the import did"
        return "prepare"

    def driver():
        driver_started.set()
        return "driver"

    ran, phases = _await_in_process(monkeypatch, b"gpu\ngo\n", prepare=importing, start_driver=driver)
    assert sorted(ran[:2]) == ["driver", "prepare"] and ran[2:] == ["gpu"]  # torch's start comes last
    assert phases["driver_start"]["start"] <= phases["wait_for_go"]["start"]


def test_a_failing_driver_start_still_lets_go_through(monkeypatch):
    def broken():
        raise OSError("no libcuda here")

    ran, phases = _await_in_process(monkeypatch, b"gpu\ngo\n", start_driver=broken)
    assert ran == ["prepare", "gpu"] and "driver_start" in phases


def test_go_alone_starts_no_gpu_early(monkeypatch):
    ran, phases = _await_in_process(monkeypatch, b"go\n", start_driver=lambda: "driver")
    assert ran == ["prepare"] and "gpu_start" not in phases and "driver_start" not in phases


@pytest.mark.parametrize("text, build", [
    ("__version__ = '2.11.0+cu130'\ndebug = False\ncuda: Optional[str] = '13.0'\nhip: Optional[str] = None\n", "cuda"),
    ("__version__ = '2.5.1+rocm6.2'\ncuda: Optional[str] = None\nhip: Optional[str] = '6.2.41133'\n", "hip"),
    ("__version__ = '1.13.0a0'\ndebug = False\ncuda = None\ngit_version = 'Unknown'\nhip = None\n", None),
    ("__all__ = ['cuda', 'hip']\n", None),
    ("", None),
])
def test_the_build_of_torch_is_read_without_importing_it(text, build):
    from gpuconform_torch import torch_env
    assert torch_env.build_of_version_file(text) == build


def test_without_the_variable_nothing_waits(tmp_path, monkeypatch):
    from gpuconform_torch import timings
    monkeypatch.delenv("GPUCONFORM_GO_FD", raising=False)
    monkeypatch.setitem(timings._state, "waited", False)
    prepared = []
    timings.await_go(prepare=lambda: prepared.append(True))
    assert prepared == []  # a plain pytest run imports torch where it always did


if __name__ == "__main__":
    sys.exit(pytest.main([__file__]))
