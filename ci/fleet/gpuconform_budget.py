#!/usr/bin/env python3
"""Which checks fit a time budget (a Slurm prolog's), from what they cost on this node before.

  gpuconform_budget.py --budget S --costs REPORT.json --checks LIST.json --only GLOBS --devices N

Always planned: the host and health layers' checks that --only selects, except host.toolchain.*
(compiling is not a prolog's work). Then the runtime and async checks that --only selects, in the
order `gpuconform list` gives, each while its measured cost fits what is left of the budget. A
check's cost is the longest duration_s it took on one device in the costs report (the node's last
health check) times N devices; a check with no measured cost there is skipped: it is never guessed
to fit. A startup allowance (the report's run time not spent in checks, at least 1 s) and a fifth
of the budget are kept back for the run's own start and the verdict.

Prints the check ids to pass to `gpuconform run --only`, comma-separated, on the first line, then
one line per skipped check: "skipped<TAB>ID<TAB>why". Python standard library only.
"""
import argparse
import fnmatch
import json
import sys

ALWAYS_LAYERS = ("host", "health")
NEVER_IN_BUDGET = ("host.toolchain.*",)


def selected(check_id, globs):
    return any(fnmatch.fnmatchcase(check_id, g) for g in globs)


def measured_costs(report):
    """{check id: longest duration on one device} and the run's time outside the checks."""
    costs = {}
    for r in report.get("results") or []:
        if isinstance(r, dict) and isinstance(r.get("duration_s"), (int, float)) and r.get("id"):
            costs[r["id"]] = max(costs.get(r["id"], 0.0), float(r["duration_s"]))
    run_s = (report.get("run") or {}).get("duration_s")
    in_checks = sum(float(r.get("duration_s") or 0) for r in report.get("results") or [] if isinstance(r, dict))
    overhead = run_s - in_checks if isinstance(run_s, (int, float)) and run_s > in_checks else 0.0
    return costs, overhead


def plan(checks, report, budget, globs, devices):
    """(ids to run, [(id, why skipped)])."""
    costs, overhead = measured_costs(report) if report else ({}, 0.0)
    left = budget * 0.8 - max(1.0, overhead)
    run, skipped = [], []
    for c in checks:
        cid, layer = c["id"], c.get("layer", "")
        if not selected(cid, globs):
            continue
        if selected(cid, NEVER_IN_BUDGET):
            skipped.append((cid, "not a prolog's work (the health check and nightly run it)"))
            continue
        if layer in ALWAYS_LAYERS:
            run.append(cid)
            left -= costs.get(cid, 0.0)
    for c in checks:
        cid, layer = c["id"], c.get("layer", "")
        if layer in ALWAYS_LAYERS or not selected(cid, globs) or selected(cid, NEVER_IN_BUDGET):
            continue
        if cid not in costs:
            skipped.append((cid, "no measured cost on this node yet"))
            continue
        cost = costs[cid] * (max(1, devices) if layer != "runtime" else 1)
        if cost > left:
            skipped.append((cid, f"measured {cost:.2f} s, {max(left, 0):.2f} s of the budget left"))
            continue
        run.append(cid)
        left -= cost
    return run, skipped


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--budget", type=float, required=True)
    ap.add_argument("--costs", help="the node's last health-check report (missing: nothing measured)")
    ap.add_argument("--checks", required=True, help="`gpuconform list --json` output")
    ap.add_argument("--only", required=True, help="comma-separated globs the health check runs")
    ap.add_argument("--devices", type=int, default=1, help="the job's GPUs")
    args = ap.parse_args(argv[1:])
    with open(args.checks, encoding="utf-8") as f:
        listed = json.load(f)
    checks = listed.get("checks", listed) if isinstance(listed, dict) else listed
    # `list` shows the framework layer's rows too; a prolog never runs pytest.
    checks = [c for c in checks if isinstance(c, dict) and c.get("layer") != "framework"]
    report = None
    if args.costs:
        try:
            with open(args.costs, encoding="utf-8") as f:
                report = json.load(f)
        except (OSError, ValueError):
            report = None
    run, skipped = plan(checks, report, args.budget, [g for g in args.only.split(",") if g], args.devices)
    print(",".join(run))
    for cid, why in skipped:
        print(f"skipped\t{cid}\t{why}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
