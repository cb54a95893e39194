#!/usr/bin/env python3
"""How far each key figure moves between repeat runs of one machine, and the floor and role that follow.

    figure_spread.py [--others REPORT ...] [--diff GPUCONFORM] [--md OUT] REPEAT.json ...

REPEAT: full `gpuconform run` reports of one machine, same software. A key figure is one its
report stamps `role: key`. For each: the median, min and max of the runs' medians, the spread
(max-min)/median, the worst drop of one run's median below another's (in the figure's bad
direction) and the worst drop beyond the other run's min..max, which is what the diff's noise
floor must cover (reports/README.md "How diff tells a regression from noise"); --others adds the
same drop against reports of other machines of the GPU model, both ways. The rule: a figure whose
spread exceeds THRESHOLD is a diagnostic; a floor is the worst drop beyond range times MARGIN,
rounded up to a whole percent, and at least MIN_FLOOR. --diff runs `GPUCONFORM diff` over every
ordered pair of repeats and of repeats with --others, and counts the verdicts. Python stdlib only.
"""

import argparse
import itertools
import json
import math
import os
import statistics
import subprocess
import sys

THRESHOLD = 0.20  # a drop the suite must catch (a link at 80 %): a wider spread cannot tell it
MARGIN = 1.2
MIN_FLOOR = 0.10


def read(path):
    """{(check, device, name): (median, lo, hi, direction, role)} for the report's measurements."""
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    out = {}
    for r in doc["results"]:
        for m in r["measurements"]:
            v = m["value"]
            lo = v if m.get("min") is None else m["min"]
            hi = v if m.get("max") is None else m["max"]
            out[(r["id"], r.get("device"), m["name"])] = (v, lo, hi, m.get("direction"), m.get("role"))
    return out


def drop_beyond(base, new, direction):
    """How far new's median lies beyond base's min..max, the bad way, relative (0: inside)."""
    v, lo, hi = new[0], base[1], base[2]
    if direction == "higher":
        return max(0.0, (lo - v) / abs(lo)) if lo else 0.0
    return max(0.0, (v - hi) / abs(hi)) if hi else 0.0


def median_drop(base, new, direction):
    if not base[0]:
        return 0.0
    d = (base[0] - new[0]) / abs(base[0])
    return max(0.0, d if direction == "higher" else -d)


def worst(pairs, key, direction, fn):
    return max((fn(a[key], b[key], direction) for a, b in pairs if key in a and key in b), default=0.0)


def figures(repeats, others):
    keys = sorted({k for r in repeats for k, m in r.items() if m[4] == "key"}, key=str)
    rows = []
    for k in keys:
        direction = next(r[k][3] for r in repeats if k in r)
        meds = [r[k][0] for r in repeats if k in r]
        med = statistics.median(meds)
        same = list(itertools.permutations(repeats, 2))
        cross = [(a, b) for a in repeats for b in others] + [(b, a) for a in repeats for b in others]
        row = {
            "check": k[0],
            "name": k[2],
            "direction": direction,
            "runs": len(meds),
            "median": med,
            "min": min(meds),
            "max": max(meds),
            "spread": (max(meds) - min(meds)) / abs(med) if med else 0.0,
            "median_drop": worst(same, k, direction, median_drop),
            "beyond_range": worst(same, k, direction, drop_beyond),
            "others_beyond_range": worst(cross, k, direction, drop_beyond),
        }
        need = max(row["beyond_range"], row["others_beyond_range"]) * MARGIN
        row["floor"] = max(MIN_FLOOR, math.ceil(need * 100 - 1e-9) / 100)
        row["role"] = "diagnostic" if row["spread"] > THRESHOLD else "key"
        rows.append(row)
    return rows


def table(rows, with_others):
    pct = lambda x: f"{x * 100:.1f} %"
    head = ["check", "figure", "runs", "median", "min", "max", "spread", "worst median drop", "worst drop beyond range"]
    head += ["… against other machines"] if with_others else []
    head += ["floor", "role"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        cells = [r["check"], f"`{r['name']}`", str(r["runs"]), f"{r['median']:.4g}", f"{r['min']:.4g}", f"{r['max']:.4g}"]
        cells += [pct(r["spread"]), pct(r["median_drop"]), pct(r["beyond_range"])]
        cells += [pct(r["others_beyond_range"])] if with_others else []
        cells += [f"{r['floor'] * 100:.0f} %", r["role"]]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def diff_pairs(exe, pairs):
    """Runs `exe diff A B` per pair: verdict counts and, per regressed pair, its worse key lines."""
    counts, regressed = {}, []
    for a, b in pairs:
        p = subprocess.run([exe, "diff", a, b], capture_output=True, text=True)
        verdict = {0: "no regression", 1: "REGRESSED", 4: "could not compare (not the same node)"}.get(p.returncode, f"exit {p.returncode}")
        counts[verdict] = counts.get(verdict, 0) + 1
        if p.returncode == 1:
            worse = [" ".join(l.split()[1:7]) for l in p.stdout.splitlines() if l.lstrip().startswith("worse")]
            regressed.append((a, b, worse))
    return counts, regressed


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("repeats", nargs="+", help="reports of one machine, same software")
    ap.add_argument("--others", nargs="*", default=[], help="reports of other machines of the GPU model")
    ap.add_argument("--diff", metavar="GPUCONFORM", help="count `GPUCONFORM diff` verdicts over the pairs")
    ap.add_argument("--md", metavar="OUT", help="write the table (and the pair counts) as markdown here")
    args = ap.parse_args()
    repeats = [read(p) for p in args.repeats]
    others = [read(p) for p in args.others]
    rows = figures(repeats, others)
    text = table(rows, bool(others))
    rule = (f"Rule: role diagnostic when the spread exceeds {THRESHOLD * 100:.0f} %; floor = the worst drop "
            f"beyond range (this machine or another) × {MARGIN}, rounded up to a whole percent, at least "
            f"{MIN_FLOOR * 100:.0f} %.")
    out = [text, "", rule]
    if args.diff:
        rel = lambda p: os.path.relpath(p)
        same = list(itertools.permutations(args.repeats, 2))
        cross = [(a, b) for a in args.repeats for b in args.others] + [(b, a) for a in args.repeats for b in args.others]
        for what, pairs in (("repeat against repeat", same), ("repeat against another machine, both ways", cross)):
            if not pairs:
                continue
            counts, regressed = diff_pairs(args.diff, pairs)
            out += ["", f"`gpuconform diff` over {len(pairs)} ordered pairs, {what}: "
                    + ", ".join(f"{n} {v}" for v, n in sorted(counts.items()))]
            out += [f"- {rel(a)} → {rel(b)}: " + "; ".join(w) for a, b, w in regressed]
    print("\n".join(out))
    if args.md:
        words = [a if a.startswith("-") else os.path.relpath(a) for a in sys.argv[1:]]
        cmd = "reports/tools/figure_spread.py " + " ".join(words)
        with open(args.md, "w", encoding="utf-8") as f:
            f.write(f"# Spread of the key figures over repeat runs\n\nMade by `{cmd}`.\n\n" + "\n".join(out) + "\n")


if __name__ == "__main__":
    main()
