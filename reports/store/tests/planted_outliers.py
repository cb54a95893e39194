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
        print(f"drift: {sorted(drifting)}; named {sorted(named)}, driver shifts {len(found['driver_shifts'])} figures 13 -> 14: as planted")


if __name__ == "__main__":
    main()
