#!/usr/bin/env python3
"""One node's verdict from one gpuconform report, for the schedulers (Slurm, Kubernetes).

  pass          nothing failed and something was judged: a node we drained may come back
  fail          a check failed on an undisturbed measurement: drain / mark the node
  inconclusive  no report, an interrupted run, an error, or a failure on a disturbed measurement,
                or nothing judged: leave the node alone
The same rule as the report's own `summary.verdict` (probes/core/run_verdict.hpp), which this
reads from the results so that reports of every schema version are judged alike.

Reads only results[].id/status/summary/backend/device and the optional `disturbance` per result
and top-level `causes` (older reports lack both). Python standard library only.
"""
import json
import sys

REASON_PREFIX = "gpuconform:"
# Slurm keeps long reasons but sinfo and squeue show them cut; say the check first.
REASON_MAX = 100


def result_name(result):
    """`check.id` or `check.id cuda:0` as the causes list and people write it."""
    name = result.get("id", "?")
    backend = result.get("backend")
    if backend:
        device = result.get("device")
        name += f" {backend}:{device}" if device is not None else f" {backend}"
    return name


def _cause_key(result):
    rid = result.get("id", "?")
    backend = result.get("backend")
    if backend:
        device = result.get("device")
        return f"{rid}[{backend}:{device}]" if device is not None else f"{rid}[{backend}]"
    return rid


def _cause_titles(report):
    titles = {}
    for cause in report.get("causes") or []:
        if not isinstance(cause, dict):
            continue
        for key in cause.get("results") or []:
            titles.setdefault(key, cause.get("title") or cause.get("id") or "")
    return titles


def _shorten(text, limit):
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 3].rstrip() + "..."


def node_verdict(report):
    """(state, reason, details): reason is one short line naming the first deciding result."""
    if not isinstance(report, dict) or not isinstance(report.get("results"), list):
        return "inconclusive", f"{REASON_PREFIX} report has no results", []
    results = [r for r in report["results"] if isinstance(r, dict)]
    if not results:
        return "inconclusive", f"{REASON_PREFIX} report has no results", []
    titles = _cause_titles(report)
    failed = [r for r in results if r.get("status") == "fail" and not r.get("disturbance")]
    if failed:
        first = failed[0]
        why = titles.get(_cause_key(first)) or titles.get(first.get("id")) or first.get("summary", "")
        more = f" (+{len(failed) - 1} more)" if len(failed) > 1 else ""
        head = f"{REASON_PREFIX} {result_name(first)}"
        reason = _shorten(f"{head}: {why}", REASON_MAX - len(more)) + more
        return "fail", reason, [result_name(r) for r in failed]
    run = report.get("run") if isinstance(report.get("run"), dict) else {}
    if run.get("interrupted") is True:
        return "inconclusive", f"{REASON_PREFIX} the run was interrupted (partial report)", []
    unsure = [r for r in results if r.get("status") == "error"
              or (r.get("status") == "fail" and r.get("disturbance"))]
    if unsure:
        first = unsure[0]
        what = "disturbed" if first.get("disturbance") else "error"
        why = (first.get("disturbance") or {}).get("summary") or first.get("summary", "")
        reason = _shorten(f"{REASON_PREFIX} {result_name(first)} {what}: {why}", REASON_MAX)
        return "inconclusive", reason, [result_name(r) for r in unsure]
    judged = [r for r in results if r.get("status") in ("pass", "warn", "info")]
    if not judged:
        return "inconclusive", f"{REASON_PREFIX} every check skipped", []
    # Schema 1.3 reports carry the run's own verdict, which also knows what the results alone do
    # not (a node with GPUs whose device checks never ran): it can only make a pass inconclusive.
    summary = report.get("summary") if isinstance(report.get("summary"), dict) else {}
    if summary.get("verdict") == "inconclusive":
        why = summary.get("reason") if isinstance(summary.get("reason"), str) else "the run could not judge"
        return "inconclusive", _shorten(f"{REASON_PREFIX} {why}", REASON_MAX), []
    return "pass", f"{REASON_PREFIX} {len(judged)} checks judged, none failed", []


def load_report(path):
    """The report, or None with a reason (missing, empty, not JSON)."""
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f), ""
    except (OSError, ValueError) as e:
        return None, f"{REASON_PREFIX} no readable report ({type(e).__name__}: {_shorten(e, 60)})"


def verdict_of_file(path):
    report, why = load_report(path)
    if report is None:
        return "inconclusive", why, []
    return node_verdict(report)


def main(argv):
    if len(argv) != 2 or argv[1] in ("-h", "--help"):
        print("usage: gpuconform_verdict.py REPORT.json\n"
              "prints STATE<TAB>REASON (STATE: pass, fail, inconclusive); exit 0, 1, 3 accordingly",
              file=sys.stderr if len(argv) != 2 else sys.stdout)
        return 2 if len(argv) != 2 else 0
    state, reason, _ = verdict_of_file(argv[1])
    print(f"{state}\t{reason}")
    return {"pass": 0, "fail": 1}.get(state, 3)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
