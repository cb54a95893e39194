"""pytest plugin: each check's outcome as a report result object, plus torch's environment.

Options (all optional, so plain `pytest python_tests` works for developers; the checks' numbers
then come from the gpuconform executable, see thresholds.py):
  --gpuconform-results=PATH   JSON list of result objects (report-v1 schema, $defs/result)
  --gpuconform-native=PATH    JSON list of this run's native results, for attribution
  --gpuconform-env=PATH       JSON object {version, cuda, hip, python} of the torch in use
  --gpuconform-timings=PATH   JSON of this process's phases (timings.py), for the report's run.phases
  --gpuconform-profile=PATH, --gpuconform-quick, --gpuconform-only=GLOB, --gpuconform-device=N
With GPUCONFORM_GO_FD set (gpuconform started us early), torch is imported and then nothing
touches the GPU or reads the native results until gpuconform says go (timings.await_go); torch's
GPU start-up alone may come earlier, when gpuconform says "gpu".
"""
import fnmatch
import json
import os
import sys

import pytest

from . import attribution, checks, timings, torch_env
from .results import ResultBuilder
from .thresholds import load_thresholds

k_builder_key = pytest.StashKey()
k_session_key = pytest.StashKey()
k_exit_key = pytest.StashKey()


def pytest_addoption(parser):
    group = parser.getgroup("gpuconform", "gpuconform framework layer")
    group.addoption("--gpuconform-results", metavar="PATH", help="write results as JSON here")
    group.addoption("--gpuconform-native", metavar="PATH", help="native results JSON, for attribution")
    group.addoption("--gpuconform-env", metavar="PATH", help="write torch's environment JSON here")
    group.addoption("--gpuconform-timings", metavar="PATH", help="write this process's phases as JSON here")
    group.addoption("--gpuconform-profile", metavar="PATH",
                    help="the profile's layers as `gpuconform profile --prefix framework.` writes them "
                         "(default: ask $GPUCONFORM_BIN, the source tree's build/gpuconform, or gpuconform on PATH)")
    group.addoption("--gpuconform-quick", action="store_true", help="fewer trials and sizes")
    group.addoption("--gpuconform-only", metavar="GLOB", help="run only check ids matching GLOB (several: comma-separated)")
    group.addoption("--gpuconform-device", metavar="N", type=int, default=0,
                    help="torch device index to test (default 0)")


def pytest_configure(config):
    config.addinivalue_line("markers", "gpuconform(check_id): the framework check this test is")
    config.stash[k_session_key] = []


def check_id_of(item):
    marker = item.get_closest_marker("gpuconform")
    return marker.args[0] if marker else None


def _table_order(item):
    check_id = check_id_of(item)
    return checks.check_index(check_id) if check_id else -1


def pytest_collection_modifyitems(config, items):
    # Checks run (and report) in the table's order: build first, so later skips can point at it.
    items.sort(key=_table_order)
    pattern = config.getoption("--gpuconform-only")
    if not pattern:
        return
    patterns = [p for p in pattern.split(",") if p]
    keep = [i for i in items if check_id_of(i) and any(fnmatch.fnmatchcase(check_id_of(i), p) for p in patterns)]
    dropped = [i for i in items if i not in keep]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = keep


def _import_torch_early():
    with timings.Phase("torch_import"):
        torch_env.import_torch()


def _uses_gpu(session):
    return any("gpu" in getattr(item, "fixturenames", ()) for item in session.items)


def _gpu_start_for(session):
    """torch's GPU start-up, for when gpuconform allows it before go; None when no selected check
    uses the GPU."""
    if not _uses_gpu(session):
        return None
    index = session.config.getoption("--gpuconform-device")
    return lambda: torch_env.start_gpu(torch_env.import_torch()[0], index)


def _driver_start_for(session):
    """The driver's part of it, which needs no torch and so may overlap torch's import (CUDA
    builds of torch: torch_env.start_cuda_driver)."""
    if not _uses_gpu(session) or torch_env.torch_build_unimported() != "cuda":
        return None
    index = session.config.getoption("--gpuconform-device")
    return lambda: torch_env.start_cuda_driver(index)


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_runtestloop(session):
    # `--only` that leaves no framework check (`--only async.copy.*`): no torch import, which
    # alone costs seconds, for a layer that runs nothing.
    timings.await_go(prepare=_import_torch_early if session.items else None, start_gpu=_gpu_start_for(session),
                     start_driver=_driver_start_for(session))
    with timings.Phase("tests"):
        yield


def pytest_runtest_setup(item):
    check_id = check_id_of(item)
    if check_id is not None:
        checks.check_info(check_id)  # an id missing from the table is a bug: fail loudly here
        builder = ResultBuilder(check_id)
        item.stash[k_builder_key] = builder
        item.config.stash[k_session_key].append(builder)


def _skip_reason(report):
    if isinstance(report.longrepr, tuple) and len(report.longrepr) == 3:
        return report.longrepr[2].removeprefix("Skipped: ")
    return str(report.longrepr)


def _failure_text(report):
    crash = getattr(report.longrepr, "reprcrash", None)
    text = crash.message if crash is not None else str(report.longrepr)
    return " ".join(text.split())


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    builder = item.stash.get(k_builder_key, None)
    if builder is None:
        return
    builder.duration_s += report.duration
    if report.skipped and not builder.finished:
        builder.finish(("skip", _skip_reason(report), None))
    elif report.failed and builder.status not in ("fail", "error"):
        builder.finish(("error", f"the check could not run ({report.when}): {_failure_text(report)}",
                        "see the pytest output of python_tests/framework for the traceback"))
    elif report.when == "call" and report.passed and not builder.finished:
        builder.finish(("error", "the check ended without a verdict", "report this to gpuconform"))


def conclude(builder, verdict):
    """Records the verdict, then makes pytest's outcome say the same thing."""
    builder.finish(verdict)
    if builder.status in ("fail", "error"):
        pytest.fail(builder.summary, pytrace=False)
    if builder.status == "skip":
        pytest.skip(builder.summary)


@pytest.fixture
def gc(request):
    """The ResultBuilder of the current check (tests carry @pytest.mark.gpuconform(id))."""
    builder = request.node.stash.get(k_builder_key, None)
    if builder is None:
        pytest.fail("a test using `gc` needs @pytest.mark.gpuconform(check_id)", pytrace=False)
    return builder


@pytest.fixture(scope="session")
def thresholds(pytestconfig):
    vendors = torch_env.machine_vendors()
    return load_thresholds(pytestconfig.getoption("--gpuconform-profile"),
                           vendor=next(iter(vendors)) if len(vendors) == 1 else None,
                           quick=pytestconfig.getoption("--gpuconform-quick"))


def _read_native(path):
    if not path:
        return None
    with open(path, encoding="utf-8") as f:
        native = json.load(f)
    if not isinstance(native, list):
        raise ValueError(f"{path}: expected a JSON list of result objects")
    return native


@pytest.fixture(scope="session")
def native_results(pytestconfig):
    """This run's native results (a list), or None when none were given or they are unreadable."""
    try:
        return _read_native(pytestconfig.getoption("--gpuconform-native"))
    except (OSError, ValueError):
        return None


def _write_json(path, value):
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(value, f, indent=1)
        f.write("\n")
    os.replace(tmp, path)


def build_results(builders, native, backend):
    """Result dicts with twin, backend default and attribution filled in."""
    twin_backend = backend or torch_env.backend_of_vendors(torch_env.machine_vendors())
    out = []
    for builder in builders:
        result = builder.to_dict()
        result["backend"] = result["backend"] or backend
        result["facts"]["native_twin"] = checks.native_twin(result["id"], twin_backend)
        out.append(attribution.attribute(result, native))
    return out


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session, exitstatus):
    session.config.stash[k_exit_key] = int(exitstatus)
    timings.await_go(prepare=_import_torch_early)  # a session that never reached its test loop
    with timings.Phase("results"):
        _write_session_files(session.config)
    timings_path = session.config.getoption("--gpuconform-timings")
    if timings_path:
        timings.write(timings_path)
    _end_if_run_by_gpuconform(session.config)


def _end_if_run_by_gpuconform(config):
    """Run by gpuconform (its results file is the output): once every file is written, end without
    pytest's summary and teardown or the interpreter's. On an H200 the summary and the other
    plugins' unconfigure took 0.9-1.3 s after the results were written, and tearing down torch
    and its CUDA context about 1.5 s before that was skipped; neither bought anything. A plain
    pytest run is left alone."""
    if config.getoption("--gpuconform-results", None) and k_exit_key in config.stash:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(config.stash[k_exit_key])


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config):
    # A session whose files could not all be written ends here, after pytest's summary.
    _end_if_run_by_gpuconform(config)


def _write_session_files(config):
    results_path = config.getoption("--gpuconform-results")
    env_path = config.getoption("--gpuconform-env")
    torch = sys.modules.get("torch")
    if env_path:
        # No framework check selected (`--only async.*`): torch is not imported for its version
        # alone (seconds); the report's torch fields stay null, as for a layer that did not run.
        if torch is None and config.stash[k_session_key]:
            torch = torch_env.import_torch()[0]
        _write_json(env_path, torch_env.torch_info(torch))
    if results_path:
        try:
            native = _read_native(config.getoption("--gpuconform-native"))
        except (OSError, ValueError) as e:
            # Attribution is lost, the results are not: they are written without it.
            sys.stderr.write(f"gpuconform: native results not used: {e}\n")
            native = None
        backend = torch_env.torch_backend(torch) if torch else None
        _write_json(results_path, build_results(config.stash[k_session_key], native, backend))
