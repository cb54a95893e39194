#!/usr/bin/env python3
"""One node's verdict from one gpuconform report, for the schedulers (Slurm, Kubernetes).

  pass          nothing failed and something was judged: a node we drained may come back
  fail          a check failed on an undisturbed measurement: drain / mark the node
  inconclusive  no report, an interrupted run, an error, or a failure on a disturbed measurement,
                or nothing judged: leave the node alone

The verdict is gpuconform's own: `gpuconform render -f verdict REPORT` reads the report with the
one reader every view uses (a report that is not valid JSON, has an unknown status such as "FAIL"
or a field of the wrong type is refused) and judges it by the one rule (probes/core/run_verdict.hpp).
This script only words the answer for a scheduler. Without gpuconform there is no verdict:
inconclusive, never pass. The executable is $GPUCONFORM, else `gpuconform` on PATH.
Python standard library only.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

REASON_PREFIX = "gpuconform:"
# Slurm keeps long reasons but sinfo and squeue show them cut; say the check first.
REASON_MAX = 100
STATES = ("pass", "fail", "inconclusive")


def _shorten(text, limit):
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 3].rstrip() + "..."


def gpuconform_executable(gpuconform=None):
    """The executable to ask: the one given, else $GPUCONFORM, else gpuconform on PATH; None when none."""
    exe = gpuconform or os.environ.get("GPUCONFORM") or shutil.which("gpuconform")
    if exe and os.sep not in exe:
        exe = shutil.which(exe)
    return exe if exe and os.access(exe, os.X_OK) else None


def verdict_json(path, gpuconform=None):
    """(gpuconform's verdict object, "") or (None, why there is none)."""
    exe = gpuconform_executable(gpuconform)
    if exe is None:
        wanted = gpuconform or os.environ.get("GPUCONFORM") or "gpuconform on PATH"
        return None, f"{REASON_PREFIX} gpuconform not found ({_shorten(wanted, 50)}): no verdict"
    try:
        out = subprocess.run([exe, "render", "-f", "verdict", path], capture_output=True, text=True,
                             timeout=60, check=False)
    except (OSError, subprocess.SubprocessError) as e:
        return None, f"{REASON_PREFIX} cannot run gpuconform ({type(e).__name__})"
    if out.returncode != 0:
        lines = out.stderr.strip().splitlines()
        why = lines[-1].split(": ", 2)[-1] if lines else f"exit {out.returncode}"
        return None, f"{REASON_PREFIX} no readable report ({_shorten(why, 60)})"
    try:
        verdict = json.loads(out.stdout)
    except ValueError:
        verdict = None
    if not isinstance(verdict, dict) or verdict.get("verdict") not in STATES:
        return None, f"{REASON_PREFIX} gpuconform gave no verdict (an older gpuconform without render -f verdict?)"
    return verdict, ""


def words(verdict):
    """(state, reason, details) from gpuconform's verdict object: reason names the deciding result."""
    state = verdict["verdict"]
    deciding = verdict.get("deciding") or {}
    if state == "fail":
        failing = verdict.get("failing") or []
        why = deciding.get("cause") or deciding.get("summary") or ""
        more = f" (+{len(failing) - 1} more)" if len(failing) > 1 else ""
        head = f"{REASON_PREFIX} {deciding.get('name', '?')}"
        return "fail", _shorten(f"{head}: {why}", REASON_MAX - len(more)) + more, failing
    if state == "inconclusive":
        if verdict.get("interrupted"):
            return state, f"{REASON_PREFIX} the run was interrupted (partial report)", []
        if deciding:
            what = "disturbed" if deciding.get("disturbance") else "error"
            why = deciding.get("disturbance") or deciding.get("summary") or ""
            reason = _shorten(f"{REASON_PREFIX} {deciding.get('name', '?')} {what}: {why}", REASON_MAX)
            return state, reason, verdict.get("inconclusive") or []
        if not verdict.get("judged"):
            return state, f"{REASON_PREFIX} every check skipped", []
        return state, _shorten(f"{REASON_PREFIX} {verdict.get('reason') or 'the run could not judge'}", REASON_MAX), []
    return "pass", f"{REASON_PREFIX} {verdict.get('judged', 0)} checks judged, none failed", []


def verdict_of_file(path, gpuconform=None):
    verdict, why = verdict_json(path, gpuconform)
    if verdict is None:
        return "inconclusive", why, []
    return words(verdict)


def node_verdict(report, gpuconform=None):
    """The verdict of a report held as a dict: written to a temporary file and given to gpuconform."""
    with tempfile.TemporaryDirectory(prefix="gpuconform-verdict-") as tmp:
        path = os.path.join(tmp, "report.json")
        with open(path, "w", encoding="utf-8") as f:
            json.dump(report, f)
        return verdict_of_file(path, gpuconform)


def main(argv):
    if len(argv) != 2 or argv[1] in ("-h", "--help"):
        print("usage: gpuconform_verdict.py REPORT.json\n"
              "prints STATE<TAB>REASON (STATE: pass, fail, inconclusive); exit 0, 1, 3 accordingly;\n"
              "the verdict is `$GPUCONFORM render -f verdict REPORT` (else gpuconform on PATH)",
              file=sys.stderr if len(argv) != 2 else sys.stdout)
        return 2 if len(argv) != 2 else 0
    state, reason, _ = verdict_of_file(argv[1])
    print(f"{state}\t{reason}")
    return {"pass": 0, "fail": 1}.get(state, 3)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
