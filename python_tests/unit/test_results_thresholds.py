"""Result objects follow the report schema; thresholds are data, layered and validated."""
import json
import os

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


def test_builtin_thresholds_cover_every_key_the_checks_use():
    t = thresholds.load_thresholds()
    assert t.get("framework.torch.overlap_copy_compute", "overlap_min_ratio") > 0
    with pytest.raises(KeyError):
        t.get("framework.torch.overlap_copy_compute", "no_such_key")


def test_quick_and_user_files_override(tmp_path):
    user = tmp_path / "t.json"
    user.write_text(json.dumps({"schema_version": 1, "defaults": {
        "framework.torch.overlap_copy_compute": {"overlap_min_ratio": 0.9}}}))
    base = thresholds.load_thresholds()
    quick = thresholds.load_thresholds(quick=True)
    over = thresholds.load_thresholds([str(user)], quick=True)
    key = ("framework.torch.overlap_copy_compute", "size_bytes")
    assert quick.get(*key) < base.get(*key)
    assert over.get("framework.torch.overlap_copy_compute", "overlap_min_ratio") == 0.9


@pytest.mark.parametrize("doc", [{"schema_version": 2}, {"schema_version": 1, "defaults": {"c": {"k": -1}}},
                                 {"schema_version": 1, "defaults": {"c": {"k": "x"}}}])
def test_bad_threshold_files_are_refused(tmp_path, doc):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(thresholds.ThresholdError):
        thresholds.load_thresholds([str(path)])
