#!/usr/bin/env python3
"""The markdown table of reports/bench/side_by_side.sh from the raw files in its scratch folder:
wall times per tool, pinned 256 MiB H2D/D2H and the bidirectional sum (gpuconform from its JSON
reports, nvbandwidth from its text output), their spread over the rounds, the suite's wall times
early and late framework start, one full run's phase profile, with BEFORE_BUILD the same figures
of the tree before a change, and the call profile of the native runs (where each device check's
time goes).  Usage: side_by_side_table.py DIR"""
import collections
import datetime
import glob
import json
import os
import re
import socket
import statistics
import sys

k_nvb_tests = {"h2d": "host_to_device_memcpy_ce", "d2h": "device_to_host_memcpy_ce",
               "bidir_h2d": "host_to_device_bidirectional_memcpy_ce",
               "bidir_d2h": "device_to_host_bidirectional_memcpy_ce"}


def nvbandwidth_figures(text):
    """{key: GB/s} from nvbandwidth's output: its `SUM <test> <value>` lines, else the first
    value of the matrix printed after `Running <test>.` (one GPU: the only cell)."""
    out = {}
    for key, test in k_nvb_tests.items():
        m = re.search(rf"^SUM {test}\s+([0-9.]+)", text, re.M)
        if not m:
            block = re.search(rf"Running {test}\.(.*?)(?:\nRunning |\Z)", text, re.S)
            m = block and re.search(r"^[ \t]*0[ \t]+([0-9.]+)", block.group(1), re.M)
        if m:
            out[key] = float(m.group(1))
    return out


def measurement(report, check_id, name):
    for r in report.get("results", []):
        if r.get("id") == check_id:
            for m in r.get("measurements", []):
                if m.get("name") == name:
                    return m.get("value")
    return None


def gpuconform_figures(report):
    return {"h2d": measurement(report, "async.copy.bandwidth", "bw_pinned_H2D_256MiB"),
            "d2h": measurement(report, "async.copy.bandwidth", "bw_pinned_D2H_256MiB"),
            "bidir": measurement(report, "async.copy.bidirectional", "bw_bidirectional_aggregate")}


def load(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def spread(values):
    """(max - min) / median, as a fraction; None with fewer than two values."""
    values = [v for v in values if v is not None]
    if len(values) < 2:
        return None
    return (max(values) - min(values)) / statistics.median(values)


def span(values, fmt="{:.1f}"):
    values = [v for v in values if v is not None]
    if not values:
        return "—"
    lo, hi = min(values), max(values)
    return fmt.format(lo) if lo == hi else f"{fmt.format(lo)}–{fmt.format(hi)}"


def pct(x):
    return "—" if x is None else f"{100 * x:.1f}%"


def walls(work, unfinished=None):
    """Wall times by label, of the runs that ran to their end. A run whose process could not start
    or was killed (exit 126 and above: not executable, not found, a signal) has no time worth
    quoting; each is added to `unfinished` as (label, round, exit code) instead."""
    out = {}
    try:
        with open(os.path.join(work, "walls.tsv"), encoding="utf-8") as f:
            for line in f:
                label, round_, t0, t1, rc = line.rstrip("\n").split("\t")
                if int(rc) >= 126:
                    if unfinished is not None:
                        unfinished.append((label, round_, int(rc)))
                    continue
                out.setdefault(label, []).append(float(t1) - float(t0))
    except (OSError, ValueError):
        pass
    return out


def phase(report, name):
    for p in (report or {}).get("run", {}).get("phases", []):
        if p.get("name") == name:
            return p
    return None


def verdicts(report):
    return {(r.get("id"), r.get("backend"), r.get("device")): r.get("status") for r in report.get("results", [])}


def read_text(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def median_or_none(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def before_and_after(work, w, gc):
    """Wall times and pinned figures of the tree before a change (BEFORE_BUILD) beside this one's."""
    if not any(label.startswith("before-") for label in w):
        return
    before_rounds = sorted(glob.glob(os.path.join(work, "before-bw-*.json")),
                           key=lambda p: int(re.sub(r"\D", "", os.path.basename(p))))
    before = [gpuconform_figures(load(p) or {}) for p in before_rounds]
    print("\n## Before and after (BEFORE_BUILD against this tree, alternating)\n")
    print("| shape | before | after | after / before (medians) |")
    print("|---|---|---|---|")

    def row(label, b, a, fmt="{:.2f}"):
        mb, ma = median_or_none(b), median_or_none(a)
        ratio = f"{ma / mb:.2f}" if mb and ma else "—"
        print(f"| {label} | {span(b, fmt)} | {span(a, fmt)} | {ratio} |")
    for label, key in (("whole suite (s)", "full"), ("--quick (s)", "quick"),
                       ("native layers, --layer host,runtime,async (s)", "native"),
                       ("copy checks alone, --quick (s)", "gpuconform-bw")):
        row(label, w.get("before-" + key, []), w.get(key, []))
    for key, label in (("h2d", "pinned H2D 256 MiB (GB/s)"), ("d2h", "pinned D2H 256 MiB (GB/s)"),
                       ("bidir", "bidirectional sum (GB/s)")):
        row(label, [b.get(key) for b in before], [g.get(key) for g in gc], "{:.1f}")
    for shape in ("full", "native"):
        a = [load(p) for p in sorted(glob.glob(os.path.join(work, f"{shape}-[0-9]*.json")))]
        b = [load(p) for p in sorted(glob.glob(os.path.join(work, f"before-{shape}-[0-9]*.json")))]
        a, b = [r for r in a if r], [r for r in b if r]
        if a and b:
            va, vb = verdicts(a[0]), verdicts(b[0])
            moved = sorted(f"{k[0]}: {vb.get(k)} → {va.get(k)}" for k in set(va) | set(vb) if va.get(k) != vb.get(k))
            print(f"\n- {shape}, run 1: " + ("every check has the same status before and after" if not moved
                                            else "statuses that differ: " + "; ".join(moved)))


def call_lines(path):
    out = []
    try:
        with open(path, encoding="utf-8") as f:
            for line in f:
                try:
                    out.append(json.loads(line))
                except ValueError:
                    pass
    except OSError:
        pass
    return out


def call_profiles(work):
    """Per check: median seconds over the native runs, the share outside runtime calls, the calls
    that took longest (GPUCONFORM_CALL_PROFILE lines), before and after where both exist."""
    after, before = call_lines(os.path.join(work, "calls.jsonl")), call_lines(os.path.join(work, "before-calls.jsonl"))
    if not after:
        return

    def by_check(lines):
        out = {}
        for j in lines:
            out.setdefault(j.get("check"), []).append(j)
        return out
    a, b = by_check(after), by_check(before)
    print("\n## Where the native runs' device time goes (call profile, medians over the runs)\n")
    print("| check | before (s) | after (s) | after: outside runtime calls (s) | after: longest calls (count, s) |")
    print("|---|---|---|---|---|")
    order = sorted(a, key=lambda c: -(median_or_none([j.get("seconds") for j in a[c]]) or 0))
    for check in order:
        runs = a[check]
        calls = {}
        for j in runs:
            for name, t in j.get("calls", {}).items():
                calls.setdefault(name, []).append((t.get("count", 0), t.get("seconds", 0.0)))
        top = sorted(calls.items(), key=lambda kv: -statistics.median(s for _, s in kv[1]))[:3]
        top_text = ", ".join(f"{name} ({statistics.median(c for c, _ in v):.0f}, {statistics.median(s for _, s in v):.3f})"
                             for name, v in top)
        mb = median_or_none([j.get("seconds") for j in b.get(check, [])])
        print(f"| {check} | {'—' if mb is None else f'{mb:.3f}'} | "
              f"{median_or_none([j.get('seconds') for j in runs]):.3f} | "
              f"{median_or_none([j.get('outside_calls_s') for j in runs]):.3f} | {top_text} |")


def main(work):
    unfinished = []
    w = walls(work, unfinished)
    # A round is one nvbandwidth run and one gpuconform run; either may be missing.
    numbers = {int(m.group(1)) for name in os.listdir(work)
               for m in [re.fullmatch(r"(?:bw|nvbandwidth)-(\d+)\.(?:json|txt)", name)] if m}
    rounds = sorted(numbers)
    gc = [gpuconform_figures(load(os.path.join(work, f"bw-{i}.json")) or {}) for i in rounds]
    nvb = []
    for i in rounds:
        text = read_text(os.path.join(work, f"nvbandwidth-{i}.txt"))
        nvb.append(nvbandwidth_figures(text) if text else {})
    for n in nvb:
        if "bidir_h2d" in n and "bidir_d2h" in n:
            n["bidir"] = n["bidir_h2d"] + n["bidir_d2h"]
    have_nvb = any(nvb)
    full = [load(p) for p in sorted(glob.glob(os.path.join(work, "full-[0-9]*.json")))]
    late = [load(p) for p in sorted(glob.glob(os.path.join(work, "full-late-*.json")))]
    first = next((r for r in full + late if r), {})
    devices = first.get("devices", [])
    driver = next((b.get("driver_version") for b in first.get("backends", []) if b.get("name") == "cuda"), None)
    env = first.get("environment", {})
    print(f"# gpuconform side by side with nvbandwidth\n")
    print(f"- machine: {env.get('hostname', socket.gethostname())}, {devices[0]['name'] if devices else 'no GPU in the report'}"
          f", {env.get('distro', {}).get('pretty_name', '?')}, kernel {env.get('kernel', '?')}")
    smi = read_text(os.path.join(work, "nvidia-smi.txt")).strip().splitlines()
    print(f"- GPU and driver (nvidia-smi: index, name, driver, PCIe gen, width): {smi[-1] if smi else '?'}; "
          f"CUDA driver API {driver}")
    print(f"- date: {datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%d %H:%M UTC')}; "
          f"{len(rounds)} alternating rounds")
    for line in read_text(os.path.join(work, "notes.txt")).splitlines():
        print(f"- {line}")
    if unfinished:
        counts = collections.Counter((label, rc) for label, _round, rc in unfinished)
        parts = ", ".join(f"{label} ×{n} (exit {rc})" for (label, rc), n in sorted(counts.items()))
        print(f"- {len(unfinished)} runs did not run to their end, left out of every figure: {parts}")
    print()

    def same_run(key):  # the largest |gpuconform / nvbandwidth - 1| over the rounds
        ratios = [g[key] / n[key] - 1 for g, n in zip(gc, nvb) if g.get(key) and n.get(key)]
        return max(ratios, key=abs) if ratios else None

    print("| figure | nvbandwidth | gpuconform | goal |")
    print("|---|---|---|---|")
    print(f"| wall time, whole process (s) | {span(w.get('nvbandwidth', []), '{:.2f}')} | "
          f"{span(w.get('gpuconform-bw', []), '{:.2f}')} | ≤ 1.5 s |")
    for key, label, goal in (("h2d", "pinned H2D (GB/s; gpuconform 256 MiB, nvbandwidth its default size)", "±1% of nvbandwidth, spread ≤ 1%"),
                             ("d2h", "pinned D2H (GB/s; gpuconform 256 MiB, nvbandwidth its default size)", "±1% of nvbandwidth, spread ≤ 1%"),
                             ("bidir", "bidirectional, sum of both directions (GB/s)", "±2% of nvbandwidth, spread ≤ 2%")):
        n_vals = [n.get(key) for n in nvb]
        g_vals = [g.get(key) for g in gc]
        n_med, g_med = median_or_none(n_vals), median_or_none(g_vals)
        medians = pct(g_med / n_med - 1) if n_med and g_med else "—"
        print(f"| {label} | {span(n_vals)} (spread {pct(spread(n_vals))}) | {span(g_vals)} (spread "
              f"{pct(spread(g_vals))}; vs nvbandwidth: medians {medians}, worst same round "
              f"{pct(same_run(key))}) | {goal} |")
    print(f"| whole suite, all four layers (s) | — | {span(w.get('full', []), '{:.2f}')} "
          f"(--framework-start late: {span(w.get('full-late', []), '{:.2f}')}) | ≤ 10 s |")
    print(f"| --quick (s) | — | {span(w.get('quick', []), '{:.2f}')} "
          f"(late: {span(w.get('quick-late', []), '{:.2f}')}) | ≤ 5 s |")
    child = [p["duration_s"] for p in (phase(r, "framework.child") for r in full) if p]
    after_go = [p["duration_s"] for p in (phase(r, "framework.layer") for r in full) if p]
    print(f"| framework layer: pytest's whole life / what the run waits for after the device checks (s) | — | "
          f"{span(child, '{:.2f}')} / {span(after_go, '{:.2f}')} | ≤ 4 s cold |")
    if not have_nvb:
        print("\nnvbandwidth did not run (see the notes above): its column is empty.")

    print("\n## Each round\n")
    print("| round | nvbandwidth s | H2D | D2H | bidir sum | gpuconform s | H2D | D2H | bidir sum |")
    print("|---|---|---|---|---|---|---|---|---|")
    nw, gw = w.get("nvbandwidth", []), w.get("gpuconform-bw", [])

    def f(x, fmt="{:.2f}"):
        return "—" if x is None else fmt.format(x)
    for i, (g, n) in enumerate(zip(gc, nvb)):
        print(f"| {i + 1} | {f(nw[i] if i < len(nw) else None)} | {f(n.get('h2d'))} | {f(n.get('d2h'))} | "
              f"{f(n.get('bidir'))} | {f(gw[i] if i < len(gw) else None)} | {f(g.get('h2d'))} | {f(g.get('d2h'))} | "
              f"{f(g.get('bidir'))} |")

    print("\n## Verdicts\n")
    runs = [r for r in full + late if r]
    if runs:
        base = verdicts(runs[0])
        differing = sorted({str(k) for r in runs[1:] for k, v in verdicts(r).items() if base.get(k) != v})
        print(f"- {len(runs)} full runs ({len(full)} early, {len(late)} late framework start): "
              + ("every check has the same status in all" if not differing else "statuses differ for " + ", ".join(differing)))
    diff = read_text(os.path.join(work, "diff-sample-full.txt"))
    verdict = re.search(r"^verdict: (.*)$", diff, re.M)
    print(f"- `gpuconform diff` of the committed H200 sample (2026-12-01 full.json) against full run 1: "
          f"{verdict.group(1) if verdict else 'no verdict line (diff-sample-full.txt)'}")

    before_and_after(work, w, gc)
    call_profiles(work)

    for name, title in (("profile-early.txt", "Phase profile of full run 1 (framework started early)"),
                        ("profile-late.txt", "Phase profile of late run 1 (--framework-start late)")):
        text = read_text(os.path.join(work, name))
        if text:
            print(f"\n## {title}\n\n```\n{text.strip()}\n```")


if __name__ == "__main__":
    if len(sys.argv) != 2 or not os.path.isdir(sys.argv[1]):
        sys.stderr.write("usage: side_by_side_table.py SCRATCH_DIR (the folder side_by_side.sh filled)\n")
        sys.exit(2)
    main(sys.argv[1])
