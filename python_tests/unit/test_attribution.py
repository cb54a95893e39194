"""Attribution: who is to blame when a framework check fails."""
import pytest

from gpuconform_torch import attribution


def _result(status, twin):
    return {"id": "framework.torch.x", "status": status, "summary": "s", "attribution": None,
            "backend": "cuda", "device": 0, "facts": {"native_twin": twin}}


def _native(status, device=0, backend="cuda"):
    return {"id": "async.t", "status": status, "backend": backend, "device": device, "facts": {}}


@pytest.mark.parametrize("status, twin, native, expected", [
    ("fail", "async.t", [_native("pass")], "framework"),
    ("fail", "async.t", [_native("fail")], "runtime"),
    ("fail", "async.t", [_native("error")], "runtime"),
    ("fail", "async.t", [_native("skip")], None),
    ("fail", "async.t", [], None),           # twin not run: unknown
    ("fail", "async.t", None, None),         # no native results at all
    ("fail", None, None, "framework"),       # the check tests torch itself
    ("pass", "async.t", [_native("fail")], None),
    ("skip", None, None, None),
])
def test_attribute(status, twin, native, expected):
    assert attribution.attribute(_result(status, twin), native)["attribution"] == expected


def test_summary_says_who_is_to_blame():
    result = attribution.attribute(_result("fail", "async.t"), [_native("pass")])
    assert "framework" in result["summary"] and result["summary"].startswith("s")


def test_find_native_prefers_same_device():
    natives = [_native("fail", device=1), _native("pass", device=0)]
    assert attribution.find_native(natives, "async.t", "cuda", 0)["status"] == "pass"


@pytest.mark.parametrize("native, expected", [
    ([{"id": "runtime.cuda.devices", "status": "pass", "facts": {"devices": [{"name": "A"}, {"name": "B"}]}}],
     ["A", "B"]),
    ([{"id": "runtime.cuda.devices", "status": "info", "device": 1, "facts": {"name": "B"}},
      {"id": "runtime.cuda.devices", "status": "info", "device": 0, "facts": {"name": "A"}}], ["A", "B"]),
    ([{"id": "runtime.cuda.devices", "status": "error", "facts": {"devices": [{"name": "A"}]}}], None),
    ([], None),
    (None, None),
])
def test_native_device_names(native, expected):
    assert attribution.native_device_names(native, "runtime.cuda.devices") == expected
