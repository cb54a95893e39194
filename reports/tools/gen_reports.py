#!/usr/bin/env python3
"""Writes N synthetic, schema-valid gpuconform reports for roll-up tests and benchmarks.

Plain python3, no dependencies. Reports spread over several distros and GPUs, with failure
patterns a fleet shows (a driver regression on one distro, memlock warnings, a framework build
mismatch, rare crashes), so the matrix and diff have something to find. Deterministic per --seed.

    python3 reports/tools/gen_reports.py --count 10000 --out /tmp/reports
    python3 reports/tools/gen_reports.py --count 3 --out /tmp/bad --bad   # adds broken files
    python3 reports/tools/gen_reports.py --count 100 --nights 90 --drift-every 50 --out /tmp/nights
"""
import argparse
import datetime
import copy
import json
import os
import random

DISTROS = [
    ("debian", "12", "Debian GNU/Linux 12 (bookworm)", "6.1.0-27-amd64", "2.36"),
    ("debian", "13", "Debian GNU/Linux 13 (trixie)", "6.12.38+deb13-amd64", "2.41"),
    ("ubuntu", "22.04", "Ubuntu 22.04.5 LTS", "5.15.0-126-generic", "2.35"),
    ("ubuntu", "24.04", "Ubuntu 24.04.3 LTS", "6.8.0-87-generic", "2.39"),
    ("rhel", "9.4", "Red Hat Enterprise Linux 9.4 (Plow)", "5.14.0-427.13.1.el9_4.x86_64", "2.34"),
]
# name, vendor, backend, arch, memory, pinned GB/s at 256 MiB, driver, runtime, torch
GPUS = [
    ("NVIDIA H200", "nvidia", "cuda", "sm_90", 150754820096, 55.0, "13.0", "13.0", "2.11.0+cu130"),
    ("NVIDIA H100 80GB HBM3", "nvidia", "cuda", "sm_90", 85520809984, 54.0, "12.8", "12.6", "2.7.1+cu126"),
    ("NVIDIA A100-SXM4-80GB", "nvidia", "cuda", "sm_80", 85198045184, 25.0, "12.4", "12.4", "2.4.1+cu124"),
    ("AMD Instinct MI300X", "amd", "hip", "gfx942", 205822885888, 50.0, "6.4.1", "6.4.1", "2.7.1+rocm6.4"),
    ("AMD Instinct MI250X", "amd", "hip", "gfx90a", 68702699520, 24.0, "6.2.4", "6.2.4", "2.5.1+rocm6.2"),
]
SIZES = [4096, 65536, 1048576, 16777216, 268435456]
HOST_CHECKS = ["host.distro", "host.kernel", "host.glibc", "host.memlock", "host.vm_overcommit",
               "host.device_nodes", "host.groups", "host.container", "host.env_vars",
               "host.kernel_driver", "host.pcie.link"]
RUNTIME_CHECKS = ["runtime.load", "runtime.driver_compat", "runtime.devices", "runtime.pci_agree",
                  "runtime.properties"]
ASYNC_CHECKS = ["async.copy.pinned_returns_early", "async.copy.d2d_returns_early",
                "async.copy.pageable_behaviour", "async.copy.bandwidth", "async.copy.bidirectional",
                "async.stream.legacy_default_sync", "async.stream.per_thread_default",
                "async.event.ordering", "async.event.timing", "async.overlap.copy_compute",
                "async.queue.depth", "async.error.deferred", "async.copy.source_reuse"]
FRAMEWORK_CHECKS = ["framework.torch.build_matches", "framework.torch.pin_memory",
                    "framework.torch.non_blocking_h2d", "framework.torch.dataloader_pinning",
                    "framework.torch.streams_events", "framework.torch.overlap"]


def result(check_id, backend=None, device=None, status="pass", summary=None, measurements=None,
           facts=None, expectation=None, remediation=None, attribution=None, rng=None):
    layer = check_id.split(".")[0]
    return {
        "id": check_id, "layer": layer, "backend": backend, "device": device, "status": status,
        "summary": summary or f"{check_id}: {status}",
        "remediation": remediation if status != "pass" else None,
        "attribution": attribution, "measurements": measurements or [], "facts": facts or {},
        "expectation": expectation or {}, "duration_s": round(rng.uniform(0.001, 2.0), 4),
    }


def measurement(name, value, unit, rng, n=5):
    spread = abs(value) * 0.02
    return {"name": name, "value": round(value, 4), "unit": unit, "n": n,
            "min": round(value - rng.uniform(0, spread), 4), "max": round(value + rng.uniform(0, spread), 4)}


def bandwidth(peak, rng):
    ms = []
    for direction in ("h2d", "d2h"):
        for kind, scale in (("pinned", 1.0), ("pageable", 0.2)):
            for size in SIZES:
                ramp = size / (size + 2_000_000)  # small copies are latency-bound
                ms.append(measurement(f"{direction}_{kind}_bw_{size}", peak * scale * ramp * rng.gauss(1, 0.03), "GB/s", rng))
    return ms


def device_results(gpu, distro, rng):
    name, vendor, backend, _arch, _mem, peak, driver, *_ = gpu
    out = []
    debian13_regression = distro[1] == "13" and vendor == "nvidia"
    for cid in ASYNC_CHECKS:
        status, summary, rem, ms, facts = "pass", None, None, [], {}
        if cid == "async.copy.pinned_returns_early":
            ret = rng.uniform(0.01, 0.05)
            if debian13_regression and rng.random() < 0.3:
                status, ret = "fail", rng.uniform(90, 110)
                summary = f"pinned H2D cudaMemcpyAsync returned after {ret:.1f} ms, after the queued kernel"
                rem = "pinned copies must return early; check CUDA_LAUNCH_BLOCKING and the driver package"
            ms = [measurement("return_ms", ret, "ms", rng)]
        elif cid == "async.copy.bandwidth":
            status = "pass"  # as the real check ends: its figures judged against the link
            slow = 0.8 if debian13_regression else 1.0
            ms = bandwidth(peak * slow, rng)
            summary = f"pinned H2D {ms[4]['value']:.1f} GB/s at 256 MiB"
        elif cid == "async.copy.pageable_behaviour":
            status, summary = "info", "pageable H2D staged up to 2 MiB, synchronous above"
        elif cid == "async.overlap.copy_compute":
            t = rng.uniform(9, 11)
            facts = {"timeline": [{"label": "kernel", "start_ms": 0.0, "end_ms": round(t, 3)},
                                  {"label": "h2d copy", "start_ms": 0.2, "end_ms": round(t * 0.95, 3)}]}
            ms = [measurement("overlap_fraction", rng.uniform(0.9, 1.0), "ratio", rng)]
        elif rng.random() < 0.001:
            status, summary, rem = "error", "worker timed out after 10 s", "rerun the check alone with --verbose"
        out.append(result(cid, backend, 0, status, summary, ms, facts, remediation=rem, rng=rng))
    return out


def framework_results(gpu, rng):
    out = []
    for cid in FRAMEWORK_CHECKS:
        status, summary, rem, attribution = "pass", None, None, None
        if gpu[0] == "AMD Instinct MI250X" and cid == "framework.torch.non_blocking_h2d":
            status, rem, attribution = "fail", "install the torch build for ROCm 6.2", "framework"
            copy_ms = 268435456 / (gpu[5] * 1e9) * 1e3  # the whole 256 MiB copy at the GPU's pinned rate
            summary = (f"tensor.to(non_blocking=True) from pinned memory returned after the copy "
                       f"({copy_ms:.1f} ms for 256 MiB): torch {gpu[8]} synchronizes it")
        out.append(result(cid, gpu[2] if cid != "framework.torch.build_matches" else None, 0, status, summary,
                          remediation=rem, attribution=attribution, rng=rng))
    return out


def report(i, rng, night=None, decline=1.0):
    """Report i; with `night`, that night of node i's nightly history (its own run id and start),
    every GB/s figure scaled by `decline` (a slow drift)."""
    distro = DISTROS[i % len(DISTROS)]
    no_gpu = i % 97 == 0
    gpu = GPUS[(i // len(DISTROS)) % len(GPUS)]
    host = f"{distro[0]}{distro[1].replace('.', '')}-{gpu[3]}-{i:06d}"
    results = []
    for cid in HOST_CHECKS:
        status, rem, ms = ("info" if cid in ("host.distro", "host.kernel", "host.glibc") else "pass"), None, []
        if cid == "host.memlock" and distro[0] == "rhel":
            status, rem = "warn", "raise memlock in /etc/security/limits.d for RDMA"
        if cid == "host.pcie.link":
            # As the real check records it: trained and capable speed and width per GPU address.
            status = "skip" if no_gpu else "pass"
            ms = [] if no_gpu else [{"name": f"0000:3b:00.0 {what}", "value": value, "unit": unit, "n": 1,
                                     "min": None, "max": None}
                                    for what, value, unit in (("current_speed", 32.0, "GT/s"),
                                                              ("max_speed", 32.0, "GT/s"),
                                                              ("current_width", 16.0, "lanes"),
                                                              ("max_width", 16.0, "lanes"))]
        results.append(result(cid, status=status, remediation=rem, measurements=ms, rng=rng))
    if no_gpu:
        results.append(result("runtime.load", gpu[2], None, "skip", "no GPU on the PCI bus", rng=rng))
    else:
        for cid in RUNTIME_CHECKS:
            results.append(result(cid, gpu[2], None if cid in ("runtime.load", "runtime.driver_compat") else 0, rng=rng))
        device = device_results(gpu, distro, rng)
        for r in device:
            for m in r["measurements"]:
                if m["unit"] == "GB/s" and decline != 1.0:
                    for k in ("value", "min", "max"):
                        m[k] = round(m[k] * decline, 4)
        results += device
        results += framework_results(gpu, rng)
    counts = {s: sum(r["status"] == s for r in results) for s in ("pass", "fail", "warn", "skip", "error", "info")}
    counts["verdict"] = "fail" if counts["fail"] or counts["error"] else "pass"
    pci = [] if no_gpu else [{"bdf": "0000:3b:00.0", "vendor": gpu[1], "vendor_id": 4318 if gpu[1] == "nvidia" else 4098,
                             "device_id": 8965, "current_speed_gts": 32.0, "max_speed_gts": 32.0,
                             "current_width": 16, "max_width": 16, "numa_node": 0}]
    return {
        "schema": "gpuconform-report", "schema_version": "1.0",
        "tool": {"name": "gpuconform", "version": "0.1.0"},
        "run": {"id": f"synthetic-{i:08d}" + ("" if night is None else f"-n{night:03d}"),
                "started": night_start(night), "finished": night_start(night).replace(":00:00Z", ":01:00Z"),
                "duration_s": 60.0, "command_line": ["gpuconform", "run"], "interrupted": False,
                "exit_status": 1 if counts["verdict"] == "fail" else 0},
        "environment": {
            "hostname": host,
            "distro": {"id": distro[0], "version_id": distro[1], "pretty_name": distro[2]},
            "kernel": distro[3], "glibc": distro[4],
            "cpu": {"model": "AMD EPYC 9454 48-Core Processor", "logical_cpus": 96, "numa_nodes": 2},
            "memory_bytes": 1099511627776, "container": None, "cgroup": "/system.slice/slurmd.service",
            "limits": {"memlock_soft_bytes": 8388608 if distro[0] == "rhel" else None,
                       "memlock_hard_bytes": 8388608 if distro[0] == "rhel" else None, "cap_ipc_lock": False},
            "user": {"uid": 1000, "name": "ci", "groups": ["ci", "video", "render"]},
            "env": {}, "kernel_drivers": {} if no_gpu else {("nvidia" if gpu[1] == "nvidia" else "amdgpu"): gpu[6]},
            "pci_gpus": pci,
            "torch": None if no_gpu else {"version": gpu[8], "cuda": gpu[7] if gpu[1] == "nvidia" else None,
                                          "hip": gpu[7] if gpu[1] == "amd" else None, "python": "3.11.2"},
        },
        "backends": [{"name": gpu[2], "module_path": None, "loaded": not no_gpu,
                      "load_error": "no device" if no_gpu else None,
                      "driver_version": None if no_gpu else gpu[6], "runtime_version": None if no_gpu else gpu[7],
                      "device_count": 0 if no_gpu else 1}],
        "devices": [] if no_gpu else [{"backend": gpu[2], "index": 0, "vendor": gpu[1], "name": gpu[0], "arch": gpu[3],
                                       "pci_bus_id": "0000:3b:00.0", "memory_bytes": gpu[4]}],
        "results": results,
        "summary": counts,
    }


def night_start(night):
    """2026-11-29T10:00:00Z for a single report; night k of a history: k days after 2026-09-01, 02:00 UTC."""
    if night is None:
        return "2026-11-29T10:00:00Z"
    day = datetime.date(2026, 9, 1) + datetime.timedelta(days=night)
    return f"{day.isoformat()}T02:00:00Z"


def write_bad(out):
    bad = os.path.join(out, "bad")
    os.makedirs(bad, exist_ok=True)
    open(os.path.join(bad, "empty.json"), "w").close()
    with open(os.path.join(bad, "not_json.json"), "w") as f:
        f.write("this is not JSON\n")
    text = json.dumps(report(1, random.Random(1)))
    with open(os.path.join(bad, "truncated.json"), "w") as f:
        f.write(text[: len(text) // 2])
    doc = report(2, random.Random(2))
    doc["schema_version"] = "2.0"
    with open(os.path.join(bad, "schema_v2.json"), "w") as f:
        json.dump(doc, f)
    with open(os.path.join(bad, "duplicate_of_0.json"), "w") as f:
        json.dump(report(0, random.Random(0)), f)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--count", type=int, required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--bad", action="store_true", help="also write empty, truncated, non-JSON, v2 and duplicate files")
    ap.add_argument("--indent", type=int, default=2, help="JSON indent (gpuconform run writes 2)")
    ap.add_argument("--nights", type=int, default=0,
                    help="write each of the COUNT nodes' nightly history of this many nights (OUT/night-NNN/...)")
    ap.add_argument("--drift-every", type=int, default=0,
                    help="with --nights: every K-th node's GB/s figures fall 1 %% a night (a slow drift)")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    if args.nights > 0:
        for night in range(args.nights):
            folder = os.path.join(args.out, f"night-{night:03d}")
            os.makedirs(folder, exist_ok=True)
            for i in range(args.count):
                drifting = args.drift_every > 0 and i % args.drift_every == args.drift_every - 1
                doc = report(i, rng, night, 0.99 ** night if drifting else 1.0)
                with open(os.path.join(folder, doc["environment"]["hostname"] + ".json"), "w") as f:
                    json.dump(doc, f, indent=args.indent or None)
        return
    for i in range(args.count):
        doc = report(i, rng)
        folder = os.path.join(args.out, f"{doc['environment']['distro']['id']}-{doc['environment']['distro']['version_id']}")
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, doc["environment"]["hostname"] + ".json"), "w") as f:
            json.dump(doc, f, indent=args.indent or None)
    if args.bad:
        write_bad(args.out)


if __name__ == "__main__":
    main()
