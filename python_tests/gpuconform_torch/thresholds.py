"""The framework checks' expectations and sizes come from gpuconform's profile, the one source of
every number (probes/profiles/default.yaml, then each --profile file). `gpuconform profile
--prefix framework.` prints its layers, validated, as JSON; `gpuconform run` hands that file to
pytest (--gpuconform-profile). A plain pytest run asks the executable itself."""
import json
import os
import shutil
import subprocess

k_bin_env = "GPUCONFORM_BIN"
# A developer's build tree next to the sources (the README's build folder).
k_tree_bin = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "build", "gpuconform")
k_export_args = ("profile", "--prefix", "framework.")
k_export_timeout_s = 60


class ThresholdError(ValueError):
    """A profile that cannot be read or used; the message names where it came from."""


def _table(layer, section, where):
    table = layer.get(section, {})
    if not isinstance(table, dict):
        raise ThresholdError(f"{where}: {section}: expected an object")
    for check, keys in table.items():
        if not isinstance(keys, dict):
            raise ThresholdError(f"{where}: {section}.{check}: expected an object")
        for key, value in keys.items():
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
                raise ThresholdError(f"{where}: {section}.{check}.{key}: expected a number >= 0")
    return table


class Thresholds:
    """The layers resolved as gpuconform resolves them, later wins: per layer, defaults, the
    vendor's section, then quick (with --gpuconform-quick). Archs are not read: the profile
    refuses them for framework checks."""

    def __init__(self, doc, source, vendor=None, quick=False):
        if not isinstance(doc, dict) or doc.get("schema_version") != 1:
            raise ThresholdError(f"{source}: schema_version: expected 1")
        layers = doc.get("layers")
        if not isinstance(layers, list) or not layers:
            raise ThresholdError(f"{source}: layers: expected a non-empty list")
        self._tables = []
        for i, layer in enumerate(layers):
            if not isinstance(layer, dict):
                raise ThresholdError(f"{source}: layers[{i}]: expected an object")
            where = f"{source}: layers[{i}] ({layer.get('source', '?')})"
            self._tables.append(_table(layer, "defaults", where))
            vendors = layer.get("vendors", {})
            if not isinstance(vendors, dict):
                raise ThresholdError(f"{where}: vendors: expected an object")
            if vendor and vendor in vendors:
                self._tables.append(_table(vendors, vendor, f"{where}: vendors"))
            if quick:
                self._tables.append(_table(layer, "quick", where))

    def get(self, check, key):
        for table in reversed(self._tables):
            if key in table.get(check, {}):
                return table[check][key]
        raise KeyError(f"no value {check}.{key} in the profile (declare it in probes/framework/framework_checks.cpp "
                       "and give it a default in probes/profiles/default.yaml)")


def find_gpuconform():
    """$GPUCONFORM_BIN, else the source tree's build/gpuconform, else gpuconform on PATH."""
    if os.environ.get(k_bin_env):
        return os.environ[k_bin_env]
    if os.access(k_tree_bin, os.X_OK):
        return os.path.normpath(k_tree_bin)
    return shutil.which("gpuconform")


def export_profile(executable):
    """The layers as `gpuconform profile --prefix framework.` prints them."""
    command = [executable, *k_export_args]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=k_export_timeout_s, check=False)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise ThresholdError(f"{' '.join(command)}: {e}") from e
    if done.returncode != 0:
        raise ThresholdError(f"{' '.join(command)} exited {done.returncode}: {done.stderr.strip()}")
    try:
        return json.loads(done.stdout)
    except ValueError as e:
        raise ThresholdError(f"{' '.join(command)}: not JSON: {e}") from e


def load_profile_file(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        raise ThresholdError(f"{path}: {e}") from e


def load_thresholds(profile_path=None, vendor=None, quick=False):
    """From `profile_path` (a file `gpuconform profile` wrote), else from the executable."""
    if profile_path:
        return Thresholds(load_profile_file(profile_path), profile_path, vendor=vendor, quick=quick)
    executable = find_gpuconform()
    if not executable:
        raise ThresholdError("no profile for the framework checks: pass --gpuconform-profile=FILE (written by "
                             "`gpuconform profile --prefix framework.`), or set GPUCONFORM_BIN to the gpuconform "
                             "executable, or put it on PATH")
    return Thresholds(export_profile(executable), executable, vendor=vendor, quick=quick)
