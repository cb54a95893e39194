"""Result objects follow the report schema; the profile's layers are read, resolved and validated."""
import ast
import json
import os
import subprocess

import pytest

from gpuconform_torch import checks, thresholds
from gpuconform_torch.results import ResultBuilder, measurement

k_schema = os.path.join(os.path.dirname(__file__), "..", "..", "reports", "schema", "report-v1.schema.json")


def result_validator():
    jsonschema = pytest.importorskip("jsonschema")
    with open(k_schema, encoding="utf-8") as f:
        schema = json.load(f)
    return jsonschema.Draft202012Validator({**schema["$defs"]["result"], "$defs": schema["$defs"]})


def test_measurement_is_median_min_max():
    assert measurement("t", "ms", [3, 1, 2]) == {"name": "t", "value": 2, "unit": "ms", "n": 3,
                                                  "min": 1, "max": 3}
    assert measurement("t", "ms", [])["value"] is None


@pytest.mark.parametrize("verdict", [("pass", "ok", "ignored"), ("fail", "bad", "fix it"),
                                     ("skip", "no GPU", None), ("info", "seen", None)])
def test_builder_output_matches_schema(verdict):
    builder = ResultBuilder("framework.torch.non_blocking_h2d", "async.copy.pinned_returns_early")
    builder.measure("call_ms", "ms", [0.1, 0.2])
    builder.finish(verdict)
    result = builder.to_dict()
    result_validator().validate(result)
    assert result["status"] == verdict[0]
    assert result["remediation"] is None if verdict[0] == "pass" else result["remediation"] == verdict[2]


def test_unfinished_builder_reports_error():
    assert ResultBuilder("framework.torch.build").to_dict()["status"] == "error"


def test_every_check_id_fits_the_schema_pattern():
    validator = result_validator()
    for info in checks.k_checks:
        builder = ResultBuilder(info.id)
        builder.finish(("info", "x", None))
        validator.validate(builder.to_dict())


def test_twins_resolve_per_backend():
    assert checks.native_twin("framework.torch.driver_compat", "hip") == "runtime.hip.driver_compat"
    assert checks.native_twin("framework.torch.driver_compat", None) is None
    assert checks.native_twin("framework.torch.build", "cuda") is None


def _layers(*layers):
    return {"schema_version": 1, "layers": [{"source": f"l{i}", **layer} for i, layer in enumerate(layers)]}


def _write(tmp_path, doc):
    path = tmp_path / "profile.json"
    path.write_text(json.dumps(doc))
    return str(path)


k_overlap = "framework.torch.overlap_copy_compute"


def test_layers_resolve_as_the_profile_does(tmp_path):
    doc = _layers({"defaults": {k_overlap: {"overlap_min_ratio": 0.5, "size_bytes": 100}},
                   "vendors": {"nvidia": {k_overlap: {"overlap_min_ratio": 0.6}}},
                   "quick": {k_overlap: {"size_bytes": 10}}},
                  {"defaults": {k_overlap: {"overlap_min_ratio": 0.9}}})
    path = _write(tmp_path, doc)
    # A later layer's plain default beats an earlier layer's vendor value (a folded file would not).
    assert thresholds.load_thresholds(path, vendor="nvidia").get(k_overlap, "overlap_min_ratio") == 0.9
    assert thresholds.load_thresholds(path).get(k_overlap, "size_bytes") == 100
    assert thresholds.load_thresholds(path, quick=True).get(k_overlap, "size_bytes") == 10
    with pytest.raises(KeyError):
        thresholds.load_thresholds(path).get(k_overlap, "no_such_key")


@pytest.mark.parametrize("doc", [{"schema_version": 2, "layers": [{}]}, {"schema_version": 1},
                                 {"schema_version": 1, "layers": []},
                                 _layers({"defaults": {"c": {"k": -1}}}), _layers({"defaults": {"c": {"k": "x"}}}),
                                 _layers({"defaults": {"c": {"k": True}}}), _layers({"vendors": []})])
def test_bad_profile_files_are_refused(tmp_path, doc):
    with pytest.raises(thresholds.ThresholdError):
        thresholds.load_thresholds(_write(tmp_path, doc), vendor="nvidia")


def test_an_unreadable_file_is_refused_with_its_name(tmp_path):
    with pytest.raises(thresholds.ThresholdError, match="missing.json"):
        thresholds.load_thresholds(str(tmp_path / "missing.json"))


def test_no_executable_and_no_file_says_what_to_do(monkeypatch):
    monkeypatch.setattr(thresholds, "find_gpuconform", lambda: None)
    with pytest.raises(thresholds.ThresholdError, match="--gpuconform-profile"):
        thresholds.load_thresholds()


def test_an_executable_that_fails_is_an_error_naming_it(tmp_path):
    fake = tmp_path / "gpuconform"
    fake.write_text("#!/bin/sh\necho 'bad profile' >&2\nexit 2\n")
    fake.chmod(0o755)
    with pytest.raises(thresholds.ThresholdError, match="exited 2: bad profile"):
        thresholds.export_profile(str(fake))


def _real_export():
    executable = thresholds.find_gpuconform()
    if not executable or not os.access(executable, os.X_OK):
        pytest.skip("no gpuconform executable (ctest sets GPUCONFORM_BIN)")
    return thresholds.export_profile(executable)


def test_the_real_profile_gives_every_framework_check_its_numbers():
    doc = _real_export()
    assert [layer["source"] for layer in doc["layers"]] == ["built-in profile"]
    t = thresholds.Thresholds(doc, "export", vendor="nvidia")
    quick = thresholds.Thresholds(doc, "export", vendor="nvidia", quick=True)
    assert t.get("framework.torch", "calibration_ms") > 0
    assert 0 < t.get(k_overlap, "overlap_min_ratio") <= 1
    assert quick.get(k_overlap, "size_bytes") < t.get(k_overlap, "size_bytes")
    assert quick.get(k_overlap, "overlap_min_ratio") == t.get(k_overlap, "overlap_min_ratio")
    for layer in doc["layers"]:
        for section in ("defaults", "quick"):
            assert all(check.startswith("framework.") for check in layer[section])


def _keys_the_checks_read():
    """(check id, key) of every `check.expect(thresholds, "key")` in the framework checks, by the
    @pytest.mark.gpuconform(id) of the function it is in; plus `thresholds.get("id", "key")`."""
    found = set()
    folder = os.path.join(os.path.dirname(__file__), "..", "framework")
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".py"):
            continue
        with open(os.path.join(folder, name), encoding="utf-8") as f:
            tree = ast.parse(f.read())
        for func in ast.walk(tree):
            if not isinstance(func, ast.FunctionDef):
                continue
            marks = [d.args[0].value for d in func.decorator_list
                     if isinstance(d, ast.Call) and getattr(d.func, "attr", "") == "gpuconform"]
            for call in ast.walk(func):
                if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)):
                    continue
                args = [a.value for a in call.args if isinstance(a, ast.Constant)]
                if call.func.attr == "expect" and marks and len(args) == 1:
                    found.add((marks[0], args[0]))
                elif call.func.attr == "get" and getattr(call.func.value, "id", "") == "thresholds" and len(args) == 2:
                    found.add(tuple(args))
    return found


def test_every_key_the_checks_read_has_a_default_and_every_default_is_read():
    doc = _real_export()
    defaults = {(check, key) for check, keys in doc["layers"][0]["defaults"].items() for key in keys}
    read = _keys_the_checks_read()
    assert len(read) > 20  # the scan found the checks
    assert read - defaults == set(), "read by a check, with no default in probes/profiles/default.yaml"
    assert defaults - read == set(), "a default no check reads"


def test_the_table_names_exactly_the_checks_gpuconform_declares():
    """checks.py keeps each id's native twin; probes/framework/framework_checks.cpp declares what
    each check owns. One set of ids: a check missing from either side fails here."""
    executable = thresholds.find_gpuconform()
    if not executable or not os.access(executable, os.X_OK):
        pytest.skip("no gpuconform executable (ctest sets GPUCONFORM_BIN)")
    done = subprocess.run([executable, "list", "--layer", "framework", "--json"], capture_output=True, text=True,
                          timeout=60, check=True)
    declared = [c["id"] for c in json.loads(done.stdout) if c["id"] != "framework.torch"]
    assert declared == [c.id for c in checks.k_checks]
