#!/usr/bin/env python3
"""A generated fleet with three planted problems, ingested into an SQLite store; `store outliers
--last-night` and `store drift` must name exactly them: one slow GPU among eight siblings (by its
siblings and its group's baseline), one driver branch change that lowered the copy bandwidth (a
driver shift, not a drift of its nodes), one node drifting down 1 % a night (by drift; its last
night also leaves the baseline), and no other node. Reports are a committed H200 sample copied to
8 GPUs, 12 nodes, 20 nights, 0.5 % noise.

Usage: planted_outliers.py GPUCONFORM SAMPLE_REPORT
"""
import copy
import json
import os
import random
import re
import subprocess
import sys
import tempfile

NODES, NIGHTS, GPUS = 12, 20, 8
SLOW_NODE, SLOW_GPU, SLOW = "node03", 5, 0.85          # 15 % below its siblings, last night only
NEW_DRIVER_NODES, NEW_DRIVER_NIGHT, DRIVER_LOSS = {"node08", "node09", "node10", "node11"}, 10, 0.92
DRIFT_NODE, DRIFT_PER_NIGHT = "node05", 0.01


def main():
    gpuconform, sample = sys.argv[1], sys.argv[2]
    base = json.load(open(sample))
    rng = random.Random(7)
    with tempfile.TemporaryDirectory() as work:
        for night in range(NIGHTS):
            for n in range(NODES):
                host = f"node{n:02d}"
                d = copy.deepcopy(base)
                d["run"]["id"] = f"{host}-night{night:02d}"
                d["run"]["started"] = f"2026-11-{night + 1:02d}T02:{n:02d}:00Z"
                d["environment"]["hostname"] = host
                new_driver = host in NEW_DRIVER_NODES and night >= NEW_DRIVER_NIGHT
                if new_driver:
                    d["backends"][0]["driver_version"] = "14.0"
                results = []
                for r in d["results"]:
                    if r.get("device") != 0:
                        results.append(r)
                        continue
                    for g in range(GPUS):
                        rr = copy.deepcopy(r)
                        rr["device"] = g
                        for m in rr.get("measurements", []):
                            if m.get("role") != "key" or not isinstance(m.get("value"), (int, float)):
                                continue
                            f = rng.gauss(1.0, 0.005)
                            if new_driver and m.get("unit") == "GB/s":
                                f *= DRIVER_LOSS
                            if host == DRIFT_NODE:
                                f *= (1 - DRIFT_PER_NIGHT) ** night
                            if host == SLOW_NODE and g == SLOW_GPU and night == NIGHTS - 1:
                                f *= SLOW
                            m["value"] = m["value"] * f
                            for k in ("min", "max"):
                                m.pop(k, None)
                            m.pop("samples", None)
                        results.append(rr)
                d["results"] = results
                json.dump(d, open(os.path.join(work, f"{host}-{night:02d}.json"), "w"))
        store = os.path.join(work, "store.sqlite")
        subprocess.run([gpuconform, "store", "ingest", "-q", "--store", store, work], check=True)
        out = subprocess.run([gpuconform, "store", "outliers", "--store", store, "--last-night", "--min-runs", "20"],
                             capture_output=True, text=True)
        assert out.returncode == 1, f"exit {out.returncode}, expected 1 (something named): {out.stderr}"
        found = json.loads(out.stdout)
        named = {(o["host"], o["device"]) for o in found["group_outliers"] + found["sibling_outliers"]}
        named_elsewhere = {n for n in named if n[0] != DRIFT_NODE}
        assert named_elsewhere == {(SLOW_NODE, f"cuda:{SLOW_GPU}")}, f"named {sorted(named)}"
        assert any(o["host"] == SLOW_NODE for o in found["sibling_outliers"]), "the slow GPU not named by its siblings"
        shifts = {(s["from_driver_branch"], s["to_driver_branch"]) for s in found["driver_shifts"]}
        assert shifts == {("13", "14")}, f"driver shifts {shifts}"
        assert all(s["unit"] == "GB/s" for s in found["driver_shifts"]), "a shift named on a figure the driver kept"
        drift = subprocess.run([gpuconform, "store", "drift", "--store", store, "--nights", "30"],
                               capture_output=True, text=True)
        assert drift.returncode == 1, f"drift exit {drift.returncode}, expected 1: {drift.stderr}"
        drifting = {d["host"] for d in json.loads(drift.stdout)}
        assert drifting == {DRIFT_NODE}, f"drift named {sorted(drifting)}"
        one = subprocess.run([gpuconform, "store", "drift", "--store", store, "--host", "node00"],
                             capture_output=True, text=True)
        assert one.returncode == 0 and json.loads(one.stdout) == [], f"node00 named as drifting: {one.stdout}"
        page_declines(gpuconform, store, work)
        noisy_fleet_drift(gpuconform, work)
        frozen = freeze_and_judge(gpuconform, store, work, found)
        print(f"drift: {sorted(drifting)}; named {sorted(named)}, driver shifts {len(found['driver_shifts'])} "
              f"figures 13 -> 14: as planted; frozen into a profile of {frozen} baselines, the same named by it")


def noisy_fleet_drift(gpuconform, work):
    """200 nodes over 21 nights with 3 % night-to-night noise (reports/tools/gen_reports.py), every
    25th node falling 1 % a night: `store drift` names those 8 and none of the 192 others. Judged
    one series at a time, 2 of the 192 were named by chance in two of three generated fleets."""
    fleet = os.path.join(work, "noisy")
    gen = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "reports", "tools", "gen_reports.py")
    subprocess.run([sys.executable, gen, "--count", "200", "--nights", "21", "--drift-every", "25", "--indent", "0",
                    "--seed", "1", "--out", fleet], check=True)
    store = os.path.join(work, "noisy.sqlite")
    subprocess.run([gpuconform, "store", "ingest", "-q", "--store", store, fleet], check=True)
    out = subprocess.run([gpuconform, "store", "drift", "--store", store, "--nights", "30"],
                         capture_output=True, text=True)
    assert out.returncode == 1, f"drift exit {out.returncode}: {out.stderr}"
    named = {d["host"] for d in json.loads(out.stdout)}
    planted = {h for h in named if int(h[-6:]) % 25 == 24}
    assert len(planted) == 8 and named == planted, f"named {sorted(named - planted)} beside {len(planted)} of 8"


def page_declines(gpuconform, store, work):
    """`matrix --store --drift -f html`: the fleet page's slow declines name the drifting node, with a
    chart of its nights and trend, and no other node; without --store the option is refused."""
    page = os.path.join(work, "page.html")
    out = subprocess.run([gpuconform, "matrix", "--store", store, "--drift", "-f", "html", "-o", page],
                         capture_output=True, text=True)
    assert out.returncode in (0, 1), f"matrix --drift exit {out.returncode}: {out.stderr}"
    html = open(page).read()
    start = html.index("<h2>Slow declines</h2>")
    section = html[start:html.index("<h2>", start + 1)]
    rows = re.findall(r"<tr><td>(node\d+)</td>", section)
    assert rows and set(rows) == {DRIFT_NODE}, f"the page's declines name {sorted(set(rows))}"
    assert section.count('<svg class="chart decline"') == len(rows) and 'class="trend"' in section
    refused = subprocess.run([gpuconform, "matrix", work, "--drift", "-f", "html"], capture_output=True, text=True)
    assert refused.returncode == 2 and "--drift" in refused.stderr, refused.stderr


def outlier_keys(found):
    return {(o["host"], o["device"], o["check"], o["name"]) for o in found["group_outliers"]}


def freeze_and_judge(gpuconform, store, work, learned):
    """The baselines learned before the last night, frozen into a profile: `profile --profile` takes
    the file, and `store outliers --profile` names what the learned baselines named."""
    last_day = f"2026-11-{NIGHTS:02d}"
    frozen = os.path.join(work, "frozen.yaml")
    out = subprocess.run([gpuconform, "store", "baselines", "--store", store, "--until", last_day, "--min-runs", "20",
                          "--export-profile", frozen], capture_output=True, text=True)
    assert out.returncode == 0 and "wrote " in out.stdout, f"export exit {out.returncode}: {out.stderr}"
    text = open(frozen).read()
    assert text.startswith("# gpuconform baselines") and "min_runs: 20" in text, text[:300]
    checked = subprocess.run([gpuconform, "profile", "--profile", frozen], capture_output=True, text=True)
    assert checked.returncode == 0, f"the run's profile reader refused the export: {checked.stderr}"
    judged = subprocess.run([gpuconform, "store", "outliers", "--store", store, "--last-night", "--profile", frozen],
                            capture_output=True, text=True)
    assert judged.returncode == 1, f"exit {judged.returncode}: {judged.stderr}"
    by_frozen = json.loads(judged.stdout)
    assert by_frozen["settings"]["baselines"].startswith("frozen") and by_frozen["settings"]["min_runs"] == 20
    assert outlier_keys(by_frozen) == outlier_keys(learned), \
        f"frozen named {sorted(outlier_keys(by_frozen))}, learned {sorted(outlier_keys(learned))}"
    assert by_frozen["sibling_outliers"] == learned["sibling_outliers"]
    # The file's min_runs is the profile minimum: above every baseline's runs, nothing is judged.
    strict = os.path.join(work, "strict.yaml")
    open(strict, "w").write(text.replace("min_runs: 20", "min_runs: 1000"))
    judged = subprocess.run([gpuconform, "store", "outliers", "--store", store, "--last-night", "--profile", strict],
                            capture_output=True, text=True)
    none = json.loads(judged.stdout)
    assert none["group_outliers"] == [] and none["not_judged"] and none["settings"]["min_runs"] == 1000, judged.stdout
    # A hand-edited file that is wrong is refused with its line, by both readers.
    broken = os.path.join(work, "broken.yaml")
    open(broken, "w").write(text.replace('direction: "higher"', 'direction: "sideways"', 1))
    for cmd in (["profile", "--profile", broken],
                ["store", "outliers", "--store", store, "--last-night", "--profile", broken]):
        bad = subprocess.run([gpuconform, *cmd], capture_output=True, text=True)
        assert bad.returncode == 2 and "broken.yaml:" in bad.stderr and "sideways" in bad.stderr, \
            f"{cmd[0]}: exit {bad.returncode}: {bad.stderr}"
    return text.count("check: ")


if __name__ == "__main__":
    main()
