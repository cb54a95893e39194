"""Expectations and sizes as data (thresholds.json), overridable by files the user passes."""
import json
import os

k_default_path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "thresholds.json")
k_env_var = "GPUCONFORM_FRAMEWORK_THRESHOLDS"


class ThresholdError(ValueError):
    """A thresholds file that cannot be used; the message names the file and the field."""


def _table(doc, section, source):
    table = doc.get(section, {})
    if not isinstance(table, dict):
        raise ThresholdError(f"{source}: {section}: expected an object")
    for check, keys in table.items():
        if not isinstance(keys, dict):
            raise ThresholdError(f"{source}: {section}.{check}: expected an object")
        for key, value in keys.items():
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
                raise ThresholdError(f"{source}: {section}.{check}.{key}: expected a number >= 0")
    return table


class Thresholds:
    """Layers resolved in order, later wins: per file, defaults, vendor, then quick."""

    def __init__(self, docs, vendor=None, quick=False):
        self._tables = []
        for source, doc in docs:
            if not isinstance(doc, dict) or doc.get("schema_version") != 1:
                raise ThresholdError(f"{source}: schema_version: expected 1")
            self._tables.append(_table(doc, "defaults", source))
            vendors = doc.get("vendors", {})
            if vendor and isinstance(vendors, dict) and vendor in vendors:
                self._tables.append(_table(vendors, vendor, f"{source}: vendors"))
            if quick:
                self._tables.append(_table(doc, "quick", source))

    def get(self, check, key):
        for table in reversed(self._tables):
            if key in table.get(check, {}):
                return table[check][key]
        raise KeyError(f"no threshold {check}.{key} in any thresholds file")


def load_json(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        raise ThresholdError(f"{path}: {e}") from e


def load_thresholds(extra_paths=(), vendor=None, quick=False):
    """The built-in file, then $GPUCONFORM_FRAMEWORK_THRESHOLDS, then `extra_paths`."""
    paths = [k_default_path]
    if os.environ.get(k_env_var):
        paths.append(os.environ[k_env_var])
    paths.extend(p for p in extra_paths if p)
    return Thresholds([(p, load_json(p)) for p in paths], vendor=vendor, quick=quick)
