"""Writes a fleet of schema-valid reports with known failures, fast (1,000 in about a second),
for the HTML browser tests and the screenshots in reports/examples/. Also a command:
    python3 fleet_reports.py OUT_DIR [COUNT]
The expected verdicts come back from write_fleet(), decided here, not read from gpuconform."""
import json
import os
import sys

DISTROS = ["Debian 12", "Debian 13", "Ubuntu 24.04", "RHEL 9.4", "Rocky 9"]
GPUS = ["H200", "H100 80GB HBM3", "A100-SXM4-80GB", "L40S", "MI300X", "MI250X"]
# The fingerprint fields a root cause is described by: a kernel per distro, a torch build per GPU.
KERNELS = dict(zip(DISTROS, ["6.1.0-27-amd64", "6.12.38+deb13-amd64", "6.8.0-87-generic",
                             "5.14.0-427.13.1.el9_4.x86_64", "5.14.0-503.14.1.el9_5.x86_64"]))
TORCH = dict(zip(GPUS, ["2.11.0+cu130", "2.7.1+cu126", "2.4.1+cu124", "2.7.1+cu126", "2.7.1+rocm6.4", "2.5.1+rocm6.2"]))
TORCH_FIX = "install the torch 2.5.1 wheel built on Rocky 9 (the EL9.4 one links the old libnuma)"
CHECKS = ([f"host.check{i:02d}" for i in range(10)] + [f"runtime.check{i:02d}" for i in range(6)]
          + ["async.copy.bandwidth", "async.overlap.copy_compute"] + [f"async.check{i:02d}" for i in range(8)]
          + [f"framework.check{i:02d}" for i in range(4)])
SIZES = {"4KiB": 0.3, "64KiB": 0.7, "1MiB": 0.85, "16MiB": 0.97, "256MiB": 1.0}
PEAKS = {"bw_pinned_H2D": 55.0, "bw_pinned_D2H": 55.2, "bw_pageable_H2D": 9.0, "bw_pageable_D2H": 12.0,
         "bw_train_pinned_H2D": 54.8, "bw_train_pinned_D2H": 55.1}


def result(check, status, device, host, summary=None, remediation=None, measurements=(), facts=None, disturbance=None):
    r = {"id": check, "layer": check.split(".")[0], "backend": "cuda" if device is not None else None, "device": device,
         "status": status, "summary": summary or f"{check} {status} on {host}",
         "remediation": remediation, "attribution": None,
         "measurements": [{"name": n, "value": v, "unit": u, "n": 5, "min": None, "max": None} for n, v, u in measurements],
         "facts": facts or {}, "expectation": {}, "duration_s": 0.1}
    if disturbance:
        r["disturbance"] = disturbance
    return r


def bandwidth(scale):
    return [(f"{s}_{size}", round(peak * frac * scale, 3), "GB/s") for s, peak in PEAKS.items() for size, frac in SIZES.items()]


def report(i, host, distro, gpu, results, causes=None, night=0):
    doc = {
        "schema": "gpuconform-report", "schema_version": "1.0",
        "tool": {"name": "gpuconform", "version": "0.1.0"},
        "run": {"id": f"run-{i:05d}", "started": f"2026-11-{10 + night:02d}T02:00:00Z",
                "finished": f"2026-11-{10 + night:02d}T02:05:00Z", "duration_s": 300.0,
                "command_line": ["gpuconform", "run"], "interrupted": False, "exit_status": 0},
        "environment": {"hostname": host, "distro": {"id": "d", "version_id": "1", "pretty_name": distro},
                        "kernel": KERNELS.get(distro, "6.1.0"), "glibc": "2.36", "cpu": {"model": "cpu", "logical_cpus": 64, "numa_nodes": 2},
                        "memory_bytes": 1, "container": None, "limits": {"memlock_soft_bytes": None, "memlock_hard_bytes": None},
                        "user": {"uid": 1, "name": "u", "groups": []}, "env": {}, "kernel_drivers": {},
                        "pci_gpus": [{"bdf": f"0000:0{d}:00.0", "vendor": "nvidia", "current_speed_gts": 32.0, "current_width": 16,
                                      "max_speed_gts": 32.0, "max_width": 16} for d in range(2)],
                        "torch": {"version": TORCH.get(gpu, "2.11.0+cu130"), "cuda": "13.0", "hip": None, "python": "3.11.2"}},
        "backends": [{"name": "cuda", "loaded": True, "load_error": None, "driver_version": "580.95.05",
                      "runtime_version": "13.0", "device_count": 2}],
        "devices": [{"backend": "cuda", "index": d, "vendor": "nvidia", "name": gpu, "arch": "sm_90",
                     "pci_bus_id": None, "memory_bytes": 1} for d in range(2)],
        "results": results,
        "summary": {"pass": 0, "fail": 0, "warn": 0, "skip": 0, "error": 0, "info": 0, "verdict": "pass"},
    }
    if causes is not None:
        doc["causes"] = causes
    return doc


def node(i, host, distro, gpu, kind, night=0):
    """kind: ok, warn, fail (bandwidth on device 1 below its sibling), error, busy (disturbed, with a cause),
    torch (a framework check fails: every MI250X node on Rocky 9 has it, and only those)."""
    results, causes = [], None
    for check in CHECKS:
        if check == "async.copy.bandwidth":
            for d in (0, 1):
                slow = kind == "fail" and d == 1
                results.append(result(check, "fail" if slow else "pass", d, host,
                                      summary=(f"device 1 pinned H2D 256MiB at 31% of device 0 on {host}" if slow else None),
                                      remediation=("reseat the GPU or check its PCIe link" if slow else None),
                                      measurements=bandwidth(0.31 if slow else 1.0 - 0.01 * ((i + night) % 5))))
        elif check == "async.overlap.copy_compute":
            busy = kind == "busy"
            results.append(result(check, "error" if busy else "pass", 0, host,
                                  measurements=[("copy_alone_ms", 1.22, "ms"), ("kernel_alone_ms", 1.24, "ms"),
                                                ("both_ms", 2.1 if busy else 1.25, "ms"), ("overlap_ratio", 1.01, "ratio")],
                                  facts={"timeline": [{"label": "copy", "start_ms": 0.0, "end_ms": 1.22},
                                                      {"label": "kernel", "start_ms": 0.01, "end_ms": 1.25}]},
                                  disturbance=({"summary": "python3 (pid 4242) used 38 GiB and 97% of GPU 0",
                                                "others": [{"pid": 4242, "name": "python3", "memory_bytes": 40802189312}],
                                                "utilization_pct": 97, "memory_used_bytes": 40802189312} if busy else None)))
        elif check == "runtime.check03" and kind == "error":
            results.append(result(check, "error", None, host, summary=f"worker timed out after 60 s on {host}"))
        elif check == "framework.check01" and kind == "torch":
            results.append(result(check, "fail", 0, host, summary=f"torch {TORCH[gpu]}: a non_blocking copy from pinned "
                                  "memory returned only when it was done", remediation=TORCH_FIX))
        elif check == "host.check04" and kind == "warn":
            results.append(result(check, "warn", None, host, summary="memlock soft limit 64 KiB"))
        else:
            results.append(result(check, "pass", None if check.startswith("host") else 0, host))
    if kind == "busy":
        causes = [{"id": "busy_gpu", "kind": "busy_gpu", "title": "Another process was using the GPU",
                   "fix": "drain the node from the scheduler before the run", "results": ["async.overlap.copy_compute[cuda:0]"]}]
    return report(i, host, distro, gpu, results, causes, night)


def kind_of(i):
    if DISTROS[i % 5] == "Rocky 9" and GPUS[(i // 5) % 6] == "MI250X":
        return "torch"
    if i % 61 == 7:
        return "fail"
    if i % 97 == 40:
        return "error"
    if i % 89 == 21:
        return "busy"
    if i % 13 == 5:
        return "warn"
    return "ok"


def write_fleet(folder, count=1000, nights=4):
    """Writes count reports (one per node, 5 distros x 6 GPUs = 30 groups) plus `nights` earlier
    nights of node-0000; returns {host: kind} for the newest night of every node."""
    os.makedirs(folder, exist_ok=True)
    expected = {}
    for i in range(count):
        host = f"node-{i:04d}"
        kind = kind_of(i)
        expected[host] = kind
        doc = node(i, host, DISTROS[i % 5], GPUS[(i // 5) % 6], kind, night=nights)
        with open(os.path.join(folder, f"{host}.json"), "w") as f:
            json.dump(doc, f, separators=(",", ":"))
    return expected


def write_nights(folder, nights=4):
    """Several nights of one node, for the night-over-night trend; files sort oldest first."""
    os.makedirs(folder, exist_ok=True)
    for n in range(nights):
        doc = node(90000 + n, "node-nightly", DISTROS[0], GPUS[0], "ok", night=n)
        for r in doc["results"]:
            if r["id"] == "async.copy.bandwidth":
                r["measurements"] = [dict(m, value=round(m["value"] * (1.0 - 0.08 * n), 3)) for m in r["measurements"]]
        with open(os.path.join(folder, f"2026-11-{10 + n:02d}.json"), "w") as f:
            json.dump(doc, f, separators=(",", ":"))


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("usage: fleet_reports.py OUT_DIR [COUNT]")
    kinds = write_fleet(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 1000)
    print({k: list(kinds.values()).count(k) for k in ("ok", "warn", "fail", "error", "busy", "torch")})
