"""The plugin end to end, in a child pytest: outcomes become schema-valid result objects."""
import json
import os
import subprocess
import sys
import textwrap

import pytest

from test_results_thresholds import result_validator

k_tests_dir = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

k_fake_checks = textwrap.dedent('''
    import pytest
    from gpuconform_torch.plugin import conclude

    @pytest.mark.gpuconform("framework.torch.overlap_copy_compute")
    def test_fails(gc):
        gc.backend, gc.device = "cuda", 0
        gc.measure("overlap_ratio", "ratio", [0.1])
        conclude(gc, ("fail", "no overlap", "fix streams"))

    @pytest.mark.gpuconform("framework.torch.record_stream")
    def test_crashes(gc):
        raise RuntimeError("CUDA error: an illegal memory access")

    @pytest.mark.gpuconform("framework.torch.pin_memory")
    def test_skips(gc):
        pytest.skip("no GPU here")

    @pytest.mark.gpuconform("framework.torch.build")
    def test_passes(gc):
        conclude(gc, ("pass", "fine", None))
''')


def run_pytest(args, cwd):
    env = dict(os.environ, PYTHONPATH=k_tests_dir, PYTHONDONTWRITEBYTECODE="1")
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args],
                          cwd=cwd, env=env, capture_output=True, text=True, timeout=120)


@pytest.fixture
def fake_run(tmp_path):
    (tmp_path / "conftest.py").write_text('pytest_plugins = ("gpuconform_torch.plugin",)\n')
    (tmp_path / "test_fake.py").write_text(k_fake_checks)
    native = tmp_path / "native.json"
    native.write_text(json.dumps([{"id": "async.overlap.copy_compute", "status": "pass",
                                   "backend": "cuda", "device": 0}]))
    results = tmp_path / "results.json"
    proc = run_pytest([str(tmp_path), f"--gpuconform-results={results}",
                       f"--gpuconform-native={native}"], tmp_path)
    return proc, {r["id"]: r for r in json.loads(results.read_text())}


def test_outcomes_map_to_statuses(fake_run):
    proc, results = fake_run
    assert proc.returncode == 1, proc.stdout  # a failed check fails the pytest run too
    assert {i: r["status"] for i, r in results.items()} == {
        "framework.torch.overlap_copy_compute": "fail", "framework.torch.record_stream": "error",
        "framework.torch.pin_memory": "skip", "framework.torch.build": "pass"}
    assert "illegal memory access" in results["framework.torch.record_stream"]["summary"]
    assert results["framework.torch.pin_memory"]["summary"] == "no GPU here"


def test_results_are_schema_valid_and_attributed(fake_run):
    _, results = fake_run
    validator = result_validator()
    for result in results.values():
        validator.validate(result)
    failed = results["framework.torch.overlap_copy_compute"]
    assert failed["facts"]["native_twin"] == "async.overlap.copy_compute"
    assert failed["attribution"] == "framework"


def test_only_glob_selects_checks(tmp_path):
    (tmp_path / "conftest.py").write_text('pytest_plugins = ("gpuconform_torch.plugin",)\n')
    (tmp_path / "test_fake.py").write_text(k_fake_checks)
    results = tmp_path / "results.json"
    run_pytest([str(tmp_path), f"--gpuconform-results={results}",
                "--gpuconform-only=framework.torch.b*"], tmp_path)
    assert [r["id"] for r in json.loads(results.read_text())] == ["framework.torch.build"]


def test_framework_checks_without_gpu_skip_with_reasons(tmp_path):
    """On a machine with no usable GPU (CI), every GPU check skips and says why."""
    results, env = tmp_path / "r.json", tmp_path / "e.json"
    proc = run_pytest([os.path.join(k_tests_dir, "framework"), f"--gpuconform-results={results}",
                       f"--gpuconform-env={env}"], tmp_path)
    out = json.loads(results.read_text())
    torch_env = json.loads(env.read_text())
    if torch_env["version"] and (torch_env["cuda"] or torch_env["hip"]):
        pytest.skip("this torch has a GPU build: the skip paths are not what runs here")
    assert proc.returncode == 0, proc.stdout
    validator = result_validator()
    for result in out:
        validator.validate(result)
        assert result["status"] in ("skip", "info", "fail"), result
        assert result["summary"]
    assert {r["id"] for r in out} >= {"framework.torch.build", "framework.torch.non_blocking_h2d"}
