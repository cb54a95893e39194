"""reports/bench/side_by_side.sh end to end on the simulated backend, with a stand-in for
nvbandwidth (a CMake project whose `nvbandwidth` prints nvbandwidth's output shape) and one whose
configure fails for Boost: the table has both tools' figures, a before tree's beside this one's and
the native runs' call profile, or says gpuconform ran alone."""
import os
import subprocess
import sys
import textwrap

import pytest

k_root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
k_script = os.path.join(k_root, "reports", "bench", "side_by_side.sh")

k_fake_output = textwrap.dedent("""\
    nvbandwidth Version: v0.8
    Running host_to_device_memcpy_ce.
    memcpy CE CPU(row) -> GPU(column) bandwidth (GB/s)
               0
     0     54.61

    SUM host_to_device_memcpy_ce 54.61

    Running device_to_host_memcpy_ce.
    memcpy CE CPU(row) <- GPU(column) bandwidth (GB/s)
               0
     0     55.20

    SUM device_to_host_memcpy_ce 55.20

    Running host_to_device_bidirectional_memcpy_ce.
    memcpy CE CPU(row) <-> GPU(column) bandwidth (GB/s)
               0
     0     47.11

    Running device_to_host_bidirectional_memcpy_ce.
    memcpy CE CPU(row) <-> GPU(column) bandwidth (GB/s)
               0
     0     48.89
    """)


def fake_project(path, fails_for_boost=False):
    path.mkdir()
    if fails_for_boost:
        (path / "CMakeLists.txt").write_text(
            'cmake_minimum_required(VERSION 3.16)\nproject(fake NONE)\n'
            'message(FATAL_ERROR "Could NOT find Boost (missing: program_options)")\n')
        return path
    (path / "output.txt").write_text(k_fake_output)
    (path / "nvbandwidth.in").write_text(f'#!/bin/sh\ncat "{path / "output.txt"}"\n')
    (path / "CMakeLists.txt").write_text(textwrap.dedent("""\
        cmake_minimum_required(VERSION 3.16)
        project(fake NONE)
        configure_file(nvbandwidth.in ${CMAKE_BINARY_DIR}/nvbandwidth
                       FILE_PERMISSIONS OWNER_READ OWNER_EXECUTE OWNER_WRITE)
        """))
    return path


# The script is under test, not the simulated checks: each takes the least evidence the profile
# allows, so a run is seconds.
k_least_evidence = textwrap.dedent("""\
    schema_version: 1
    defaults:
      async.copy.bandwidth: {small_repetitions: 2, large_repetitions: 1, large_pageable_repetitions: 1, train_copies: 1}
      async.copy.bidirectional: {copy_bytes: 16777216, train_copies: 2}
      async.copy.numa_locality: {copy_bytes: 16777216, repetitions: 1}
      async.copy.pinned_capacity: {pinned_bytes: 16777216}
      async.event.cross_stream_order: {trials: 2}
    """)


def run_script(tmp_path, nvbandwidth_src, rounds="2", suite_rounds="1", late_rounds="1", before=False):
    build = os.environ.get("GPUCONFORM_BUILD_DIR")
    if not build or not os.access(os.path.join(build, "gpuconform"), os.X_OK):
        pytest.skip("GPUCONFORM_BUILD_DIR does not name a build tree with gpuconform")
    out = tmp_path / "out"
    profile = tmp_path / "least-evidence.yaml"
    profile.write_text(k_least_evidence)
    env = dict(os.environ, OUT=str(out), ROUNDS=rounds, SUITE_ROUNDS=suite_rounds, LATE_ROUNDS=late_rounds,
               GPUCONFORM_BUILD=build, NVBANDWIDTH_SRC=str(nvbandwidth_src),
               GPUCONFORM_RUN_ARGS=f"--backend sim --layer runtime,async,framework --python {sys.executable} --profile {profile}")
    if before:  # the same tree stands in for the one before a change
        env["BEFORE_BUILD"] = build
    proc = subprocess.run([k_script], env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (out / "side-by-side.tar.gz").exists()
    return (out / "table.md").read_text()


def enclosing_checkout(path):
    """A git checkout with one commit, to hold a source that is not a checkout of its own."""
    path.mkdir()
    git = ["git", "-C", str(path), "-c", "user.name=t", "-c", "user.email=t@example.invalid"]
    subprocess.run(git + ["init", "-q"], check=True)
    subprocess.run(git + ["commit", "-q", "--allow-empty", "-m", "outer"], check=True)
    return path


def test_both_tools_in_one_table(tmp_path):
    outer = enclosing_checkout(tmp_path / "outer")
    table = run_script(tmp_path, fake_project(outer / "nvb"), before=True)
    # The enclosing checkout's revision is not nvbandwidth's: the table quotes nvbandwidth's own line.
    assert "nvbandwidth built from" in table and "(not a git checkout of its own)" in table, table
    assert "nvbandwidth's own word: nvbandwidth Version: v0.8" in table, table
    assert "| pinned H2D (GB/s; gpuconform 256 MiB, nvbandwidth its default size) | 54.6 (spread 0.0%)" in table, table
    assert "vs nvbandwidth: medians " in table, table
    assert "| bidirectional, sum of both directions (GB/s) | 96.0" in table, table  # 47.11 + 48.89
    rows = [line for line in table.splitlines() if line.startswith("| 1 |") or line.startswith("| 2 |")]
    assert len(rows) == 2 and all("54.61" in r and "96.00" in r for r in rows), table
    # The sim's own figures come from its JSON reports: numbers, not dashes.
    assert all(r.split("|")[7].strip() not in ("", "—") for r in rows), table
    # The sim's timing-sensitive statuses move with this machine's load; the line is what is tested.
    assert "- 2 full runs (1 early, 1 late framework start): " in table, table
    assert "## Phase profile of full run 1" in table and "device.checks" in table, table
    assert "alongside the device checks" in table, table
    # BEFORE_BUILD (the same tree stands in): both sides' figures, and the call profile's section.
    assert "## Before and after (BEFORE_BUILD against this tree, alternating)" in table, table
    rows = {line.split("|")[1].strip(): line for line in table.splitlines() if line.startswith("| ")}
    for shape in ("whole suite (s)", "--quick (s)", "native layers, --layer host,runtime,async (s)",
                  "copy checks alone, --quick (s)", "pinned H2D 256 MiB (GB/s)"):
        cells = [c.strip() for c in rows[shape].split("|")[2:5]]
        assert all(c not in ("", "—") for c in cells), rows[shape]  # before, after and their ratio
    assert "- native, run 1: " in table, table
    assert "## Where the native runs' device time goes" in table, table
    bandwidth = rows["async.copy.bandwidth"]
    assert "memcpy_async" in bandwidth, bandwidth
    before_s, after_s = (float(c.strip()) for c in bandwidth.split("|")[2:4])
    assert before_s > 0 and after_s > 0, bandwidth


def test_missing_boost_runs_gpuconform_alone(tmp_path):
    # One copy round and no suite run: only the fallback is under test here.
    table = run_script(tmp_path, fake_project(tmp_path / "nvb", fails_for_boost=True), rounds="1", suite_rounds="0",
                       late_rounds="0")
    assert "Boost program_options not found" in table, table
    assert "nvbandwidth did not run" in table, table


def test_runs_that_did_not_finish_are_counted_not_timed(tmp_path):
    """Only the table: a gpuconform that could not start (exit 127) gives no wall time and no
    figure, and nvbandwidth's rounds stand without a gpuconform report."""
    work = tmp_path / "work"
    work.mkdir()
    (work / "nvbandwidth-1.txt").write_text(k_fake_output)
    (work / "walls.tsv").write_text("nvbandwidth\t1\t100.0\t107.0\t0\n"
                                    "gpuconform-bw\t1\t107.0\t107.001\t127\n"
                                    "full\t1\t108.0\t114.0\t1\n")
    table = subprocess.run([sys.executable, os.path.join(k_root, "reports", "bench", "side_by_side_table.py"),
                            str(work)], capture_output=True, text=True, check=True).stdout
    assert "1 runs did not run to their end, left out of every figure: gpuconform-bw ×1 (exit 127)" in table, table
    rows = {line.split("|")[1].strip(): line for line in table.splitlines() if line.startswith("| ")}
    assert rows["wall time, whole process (s)"].split("|")[3].strip() == "—", table  # not 0.00
    assert "54.6" in rows["pinned H2D (GB/s; gpuconform 256 MiB, nvbandwidth its default size)"], table
    assert rows["whole suite, all four layers (s)"].split("|")[3].strip().startswith("6.00"), table  # exit 1 is a verdict

