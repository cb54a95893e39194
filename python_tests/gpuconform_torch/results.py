"""Result objects in the report's own shape (reports/schema/report-v1.schema.json, $defs/result)."""
import statistics
from collections import namedtuple

k_statuses = ("pass", "fail", "warn", "skip", "error", "info")

# What a judge returns: a status, one line a person can act on, and what to change when not pass.
Verdict = namedtuple("Verdict", "status summary remediation")


def measurement(name, unit, samples):
    """Median, min, max and n of `samples`; an empty list is "not measured" (value null)."""
    values = [float(s) for s in samples]
    if not values:
        return {"name": name, "value": None, "unit": unit, "n": 0, "min": None, "max": None}
    return {"name": name, "value": statistics.median(values), "unit": unit, "n": len(values),
            "min": min(values), "max": max(values)}


class ResultBuilder:
    """One check's result, filled in while the check runs; `to_dict` gives the report object."""

    def __init__(self, check_id, native_twin=None):
        self.check_id = check_id
        self.backend = None
        self.device = None
        self.status = None
        self.summary = ""
        self.remediation = None
        self.attribution = None
        self.measurements = []
        self.facts = {"native_twin": native_twin}
        self.expectation = {}
        self.duration_s = 0.0

    def measure(self, name, unit, samples):
        self.measurements.append(measurement(name, unit, samples))

    def fact(self, key, value):
        self.facts[key] = value

    def expect(self, thresholds, key):
        """Looks `key` up for this check and records it as part of the expectation."""
        value = thresholds.get(self.check_id, key)
        self.expectation[key] = value
        return value

    def finish(self, verdict):
        status, summary, remediation = verdict
        if status not in k_statuses:
            raise ValueError(f"unknown status {status!r}")
        self.status = status
        self.summary = summary
        self.remediation = remediation if status != "pass" else None

    @property
    def finished(self):
        return self.status is not None

    def to_dict(self):
        return {
            "id": self.check_id,
            "layer": "framework",
            "backend": self.backend,
            "device": self.device,
            "status": self.status or "error",
            "summary": self.summary or "the check recorded no verdict",
            "remediation": self.remediation,
            "attribution": self.attribution,
            "measurements": list(self.measurements),
            "facts": dict(self.facts),
            "expectation": dict(self.expectation),
            "duration_s": max(0.0, float(self.duration_s)),
        }
