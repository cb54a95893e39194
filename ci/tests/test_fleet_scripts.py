"""Hostile input to the fleet scripts: the Slurm health check fails closed and writes what it is
given literally; the packaged nightly passes the operator's words as written and never leaves
an old Prometheus file standing for a night that failed; the service cannot hang for ever."""
import configparser
import json
import os
import subprocess
import time

HERE = os.path.dirname(os.path.abspath(__file__))
HEALTHCHECK = os.path.join(HERE, "..", "slurm", "gpuconform-healthcheck")
NIGHTLY = os.path.join(HERE, "..", "..", "packaging", "nightly")
SERVICE = os.path.join(HERE, "..", "..", "packaging", "gpuconform.service")


def recording_gpuconform(tmp_path, summary="pinned H2D 9 GB/s", status="fail", rc=1, write_report=True):
    """`run` records its arguments one per line and writes a report with one result."""
    report = json.dumps({"results": [{"id": "async.copy.bandwidth", "status": status, "backend": "cuda",
                                      "device": 0, "summary": summary}]})
    (tmp_path / "report.json").write_text(report)
    # `render -f verdict` answers in gpuconform's own verdict shape (the verdict script reads it).
    deciding = {"name": "async.copy.bandwidth cuda:0", "summary": summary}
    verdict = {"verdict": status, "reason": summary, "deciding": deciding if status != "pass" else None,
               "failing": [deciding] if status == "fail" else [], "inconclusive": []}
    (tmp_path / "verdict.json").write_text(json.dumps(verdict))
    write = f'cp "{tmp_path / "report.json"}" "$out"' if write_report else ":"
    script = tmp_path / "gpuconform"
    listed = json.dumps([{"id": "host.distro", "layer": "host"}, {"id": "health.ecc", "layer": "health"},
                         {"id": "host.toolchain.cuda_compile", "layer": "host"},
                         {"id": "async.copy.pinned_returns_early", "layer": "async"}])
    script.write_text(f"""#!/bin/sh
if [ "$1" = list ]; then
    echo '{listed}'
    exit 0
fi
if [ "$1" = render ] && [ "$3" = verdict ]; then
    cat "{tmp_path / "verdict.json"}"
    exit 0
fi
if [ "$1" = render ]; then
    while [ $# -gt 0 ]; do [ "$1" = --output ] && printf 'gpuconform_check_status 1\\n' > "$2"; shift; done
    exit 0
fi
printf '%s\\n' "$@" > "{tmp_path}/args"
while [ $# -gt 0 ]; do [ "$1" = --json ] && out=$2; shift; done
{write}
exit {rc}
""")
    script.chmod(0o755)
    return str(script)


def scontrol(tmp_path, show_fails=False, state="IDLE", reason="", comment=""):
    script = tmp_path / "scontrol"
    lines = [f"NodeName=n1", f"   State={state} ThreadsPerCore=1", "   Partitions=gpu"]
    lines += [f"   Comment={comment}"] if comment else []
    lines += [f"   Reason={reason} [root@2026-12-01T02:00:00]"]
    show = "exit 1" if show_fails else "printf '%s\\n' " + " ".join(f"'{x}'" for x in lines)
    script.write_text(f"""#!/bin/sh
if [ "$1" = show ]; then {show}
else printf '%s\\n' "$*" >> "{tmp_path}/actions"; fi
""")
    script.chmod(0o755)
    return str(script)


def sinfo(tmp_path, nodes=4, drained_by_us=(), drained_with_our_resume_note=()):
    """A partition gpu of n1..nN; drained_by_us are listed by `sinfo -R` with a reason of ours,
    and so is n1 once the fake scontrol recorded a drain of it and no resume after;
    drained_with_our_resume_note with the note a resume of ours leaves (someone else's drain)."""
    script = tmp_path / "sinfo"
    others = "".join(f"echo '{n}|'\"$now\"'|gpuconform: x'\n" for n in drained_by_us)
    others += "".join(f"echo '{n}|'\"$now\"'|gpuconform: resumed: the checks pass again'\n"
                      for n in drained_with_our_resume_note)
    script.write_text(f"""#!/bin/sh
now=$(date +%Y-%m-%dT%H:%M:%S)
case "$*" in
    *-R*) {others or ":"}
        last=$(grep 'NodeName=n1 State=' "{tmp_path}/actions" 2>/dev/null | tail -n 1)
        case "$last" in *State=DRAIN*) echo "n1|$now|gpuconform: y" ;; esac ;;
    *) for i in $(seq {nodes}); do echo "n$i"; done ;;
esac
""")
    script.chmod(0o755)
    return str(script)


def healthcheck(tmp_path, env, *options):
    env = env if "SINFO" in env else dict(env, SINFO=sinfo(tmp_path))
    env = dict({"GPUCONFORM_BREAKER_SETTLE": "0"}, **env)    # the fakes have no second to wait for
    return subprocess.run(["sh", HEALTHCHECK, "--node", "n1", "--report", str(tmp_path / "hc.json"), *options],
                          env=dict(os.environ, **env), check=True, capture_output=True, text=True)


def test_healthcheck_runs_no_device_check_when_the_node_state_cannot_be_read(tmp_path):
    env = {"SCONTROL": scontrol(tmp_path, show_fails=True),
           "GPUCONFORM": recording_gpuconform(tmp_path, status="pass", rc=0)}
    healthcheck(tmp_path, env)
    args = (tmp_path / "args").read_text().splitlines()
    assert args[args.index("--layer") + 1] == "host,runtime"


def test_healthcheck_drain_reason_has_no_control_characters_and_keeps_backslashes(tmp_path):
    summary = "slow\x1b[2J link\nforged\\c line\r\x07 done"
    env = {"SCONTROL": scontrol(tmp_path), "GPUCONFORM": recording_gpuconform(tmp_path, summary=summary)}
    out = healthcheck(tmp_path, env)
    (line,) = (tmp_path / "actions").read_text().splitlines()
    assert line.startswith("update NodeName=n1 State=DRAIN Reason=gpuconform: async.copy.bandwidth cuda:0: ")
    reason = line.split("Reason=", 1)[1]
    assert not any(ord(c) < 32 or ord(c) == 127 for c in reason), repr(reason)
    assert "\\c line" in reason and reason.endswith("done")
    # the log line says the same, not cut at the backslash as echo would
    assert "\\c line" in out.stderr and "done" in out.stderr


def test_healthcheck_drains_while_the_share_allows_it(tmp_path):
    env = {"SCONTROL": scontrol(tmp_path), "SINFO": sinfo(tmp_path, nodes=4, drained_by_us=["n2"]),
           "GPUCONFORM": recording_gpuconform(tmp_path)}
    healthcheck(tmp_path, env)
    actions = (tmp_path / "actions").read_text().splitlines()
    assert actions[0].startswith("update NodeName=n1 State=DRAIN Reason=gpuconform: ")
    assert not any("RESUME" in a for a in actions)


def test_breaker_holds_a_drain_beyond_the_share_and_says_so(tmp_path):
    # 4 nodes, share 0.5: two may be drained; n2 and n3 already are.
    env = {"SCONTROL": scontrol(tmp_path), "SINFO": sinfo(tmp_path, nodes=4, drained_by_us=["n2", "n3"]),
           "GPUCONFORM": recording_gpuconform(tmp_path)}
    out = healthcheck(tmp_path, env)
    (action,) = (tmp_path / "actions").read_text().splitlines()
    assert action.startswith("update NodeName=n1 Comment=gpuconform: not drained: breaker: partition gpu: ")
    assert "share 0.5 allows 2" in action
    assert "n1 not drained: breaker" in out.stderr


def test_breaker_recount_sees_a_node_drained_later_in_the_same_second_and_gives_way(tmp_path):
    # 3 nodes, share 0.5: one may be drained. The first count sees none; n0 drains after it, in
    # the same second as n1, so the recount after the settle ranks n0 first (same time, then name).
    script = tmp_path / "sinfo"
    script.write_text(f"""#!/bin/sh
now=$(date +%Y-%m-%dT%H:%M:%S)
case "$*" in
    *-R*) grep -q 'NodeName=n1 State=DRAIN' "{tmp_path}/actions" 2>/dev/null &&
              printf 'n0|%s|gpuconform: x\\nn1|%s|gpuconform: y\\n' "$now" "$now" ;;
    *) printf 'n0\\nn1\\nn2\\n' ;;
esac
""")
    script.chmod(0o755)
    env = {"SCONTROL": scontrol(tmp_path), "SINFO": str(script), "GPUCONFORM": recording_gpuconform(tmp_path),
           "GPUCONFORM_BREAKER_SETTLE": "1"}
    started = time.monotonic()
    out = healthcheck(tmp_path, env)
    assert time.monotonic() - started >= 1.0    # the recount waited for the second to end
    actions = (tmp_path / "actions").read_text().splitlines()
    assert actions[0].startswith("update NodeName=n1 State=DRAIN Reason=gpuconform: ")
    assert actions[1].startswith("update NodeName=n1 State=RESUME Reason=gpuconform: resumed: not drained: breaker: ")
    assert "2 of 3 nodes" in actions[1] and "share 0.5 allows 1" in actions[1]
    assert "(others drained first)" in out.stderr


def test_breaker_settle_that_is_not_whole_seconds_is_said_and_replaced(tmp_path):
    env = {"SCONTROL": scontrol(tmp_path), "SINFO": sinfo(tmp_path, nodes=4),
           "GPUCONFORM": recording_gpuconform(tmp_path), "GPUCONFORM_BREAKER_SETTLE": "2; reboot"}
    out = healthcheck(tmp_path, env)
    assert "GPUCONFORM_BREAKER_SETTLE='2; reboot' is not whole seconds; waiting 2" in out.stderr
    actions = (tmp_path / "actions").read_text().splitlines()
    assert actions[0].startswith("update NodeName=n1 State=DRAIN Reason=gpuconform: ")


def test_breaker_does_not_count_drains_that_kept_our_resume_note(tmp_path):
    # n2 is ours; n3 and n4 were drained by someone else and kept the note of our last resume.
    env = {"SCONTROL": scontrol(tmp_path),
           "SINFO": sinfo(tmp_path, nodes=4, drained_by_us=["n2"], drained_with_our_resume_note=["n3", "n4"]),
           "GPUCONFORM": recording_gpuconform(tmp_path)}
    healthcheck(tmp_path, env)
    assert (tmp_path / "actions").read_text().startswith("update NodeName=n1 State=DRAIN")


def test_breaker_share_is_configurable(tmp_path):
    env = {"SCONTROL": scontrol(tmp_path), "SINFO": sinfo(tmp_path, nodes=4, drained_by_us=["n2", "n3"]),
           "GPUCONFORM": recording_gpuconform(tmp_path), "GPUCONFORM_BREAKER_SHARE": "0.75"}
    healthcheck(tmp_path, env)
    assert (tmp_path / "actions").read_text().startswith("update NodeName=n1 State=DRAIN")


def test_breaker_leaves_an_admins_comment_alone(tmp_path):
    env = {"SCONTROL": scontrol(tmp_path, comment="rack 4 fan"),
           "SINFO": sinfo(tmp_path, nodes=2, drained_by_us=["n2"]), "GPUCONFORM": recording_gpuconform(tmp_path)}
    out = healthcheck(tmp_path, env)
    assert not (tmp_path / "actions").exists()
    assert "not drained: breaker" in out.stderr


def test_resume_replaces_our_failure_reason_with_one_that_says_resumed(tmp_path):
    # Slurm 24.11 keeps a node's last reason after State=RESUME (an empty Reason= does not clear
    # it); 22.05 drops it. Either way no failure reason of ours stays on a healthy node.
    env = {"SCONTROL": scontrol(tmp_path, state="IDLE+DRAIN", reason="gpuconform: async.x sim:1: slow"),
           "GPUCONFORM": recording_gpuconform(tmp_path, status="pass", rc=0)}
    healthcheck(tmp_path, env)
    assert (tmp_path / "actions").read_text().splitlines() == [
        "update NodeName=n1 State=RESUME Reason=gpuconform: resumed: the checks pass again"]


def test_a_drain_that_kept_our_resume_note_is_not_ours(tmp_path):
    # slurmctld's own drains keep an existing reason: the note our resume left is then someone
    # else's drain, never resumed nor re-drained by us, and not counted by the breaker.
    for status, rc in (("pass", 0), ("fail", 1)):
        env = {"SCONTROL": scontrol(tmp_path, state="IDLE+DRAIN", reason="gpuconform: resumed: the checks pass again"),
               "GPUCONFORM": recording_gpuconform(tmp_path, status=status, rc=rc)}
        healthcheck(tmp_path, env)
        assert not (tmp_path / "actions").exists(), status


def prolog(tmp_path, env, *options):
    env = dict(os.environ, **(env if "SINFO" in env else dict(env, SINFO=sinfo(tmp_path))))
    return subprocess.run(["sh", HEALTHCHECK, "--node", "n1", "--report", str(tmp_path / "hc.json"), "--prolog",
                           *options], env=env, capture_output=True, text=True)


def test_prolog_fail_drains_and_exits_non_zero(tmp_path):
    env = {"SCONTROL": scontrol(tmp_path), "GPUCONFORM": recording_gpuconform(tmp_path), "SLURM_JOB_GPUS": "1"}
    done = prolog(tmp_path, env, "--budget", "30", "--costs", str(tmp_path / "none.json"))
    assert done.returncode == 1, done.stderr
    assert (tmp_path / "actions").read_text().startswith("update NodeName=n1 State=DRAIN Reason=gpuconform: ")
    args = (tmp_path / "args").read_text().splitlines()
    assert "--device=1" in args
    # nothing measured on this node yet: no device check is guessed to fit, each is named skipped
    assert not any(a.startswith("async.") for a in args[args.index("--only") + 1].split(","))
    assert "skipped async.copy.pinned_returns_early: no measured cost on this node yet" in done.stderr


def test_prolog_pass_and_inconclusive_let_the_job_start_without_asking_slurmctld(tmp_path):
    for status, rc in (("pass", 0), ("inconclusive", 1)):
        env = {"SCONTROL": scontrol(tmp_path, show_fails=True), "GPUCONFORM": recording_gpuconform(tmp_path, status=status, rc=rc)}
        done = prolog(tmp_path, env)
        assert done.returncode == 0, (status, done.stderr)
        assert not (tmp_path / "actions").exists()


def nightly(tmp_path, options, gpuconform):
    state = tmp_path / "state"
    textfile = tmp_path / "textfile"
    state.mkdir(exist_ok=True)
    textfile.mkdir(exist_ok=True)
    env = dict(os.environ, STATE_DIRECTORY=str(state), GPUCONFORM_TEXTFILE_DIR=str(textfile),
               GPUCONFORM=gpuconform, GPUCONFORM_OPTIONS=options)
    return subprocess.run(["sh", NIGHTLY], env=env, cwd=tmp_path, capture_output=True, text=True)


def test_nightly_passes_quoted_words_whole_and_globs_literally(tmp_path):
    (tmp_path / "async.match-me").write_text("")  # a glob that would expand in the working folder
    gc = recording_gpuconform(tmp_path, status="pass", rc=0)
    done = nightly(tmp_path, "--quick --profile '/etc/gpuconform/my profile.yaml' --only async.*", gc)
    assert done.returncode == 0, done.stderr
    args = (tmp_path / "args").read_text().splitlines()
    assert args[:5] == ["run", "--quick", "--profile", "/etc/gpuconform/my profile.yaml", "--only"]
    assert args[5] == "async.*"


def test_nightly_refuses_options_that_do_not_parse(tmp_path):
    gc = recording_gpuconform(tmp_path)
    done = nightly(tmp_path, "--profile 'unbalanced", gc)
    assert done.returncode == 2
    assert not (tmp_path / "args").exists()


def test_a_failed_night_leaves_no_old_prometheus_file(tmp_path):
    (tmp_path / "textfile").mkdir()
    old = tmp_path / "textfile" / "gpuconform.prom"
    old.write_text("gpuconform_check_status 0\n")
    gc = recording_gpuconform(tmp_path, rc=2, write_report=False)
    done = nightly(tmp_path, "--quick", gc)
    assert done.returncode == 2
    assert not old.exists()


def test_the_service_has_a_finite_start_timeout():
    unit = configparser.ConfigParser(strict=False, interpolation=None)
    unit.optionxform = str
    unit.read(SERVICE)
    timeout = unit["Service"].get("TimeoutStartSec", "")
    assert timeout not in ("", "0", "infinity")
    minutes = int(timeout[:-3]) if timeout.endswith("min") else int(timeout) // 60
    assert 30 <= minutes <= 6 * 60


def test_budget_plans_by_measured_cost_and_names_what_it_skipped():
    import sys
    sys.path.insert(0, os.path.join(HERE, "..", "fleet"))
    from gpuconform_budget import plan
    checks = [{"id": "host.distro", "layer": "host"}, {"id": "host.toolchain.cuda_compile", "layer": "host"},
              {"id": "health.ecc", "layer": "health"}, {"id": "async.a", "layer": "async"},
              {"id": "async.b", "layer": "async"}, {"id": "async.c", "layer": "async"}]
    report = {"run": {"duration_s": 2.0},
              "results": [{"id": "host.distro", "duration_s": 0.1}, {"id": "async.a", "duration_s": 1.0, "device": 0},
                          {"id": "async.a", "duration_s": 1.5, "device": 1}, {"id": "async.b", "duration_s": 4.0}]}
    # budget 10: 8 usable, 1.9 s start-up, 0.1 host: async.a costs 1.5 x 2 GPUs = 3 fits, async.b 8 does not
    run, skipped = plan(checks, report, 10, ["host.*", "health.*", "async.*"], 2)
    assert run == ["host.distro", "health.ecc", "async.a"]
    why = dict(skipped)
    assert why["async.b"].startswith("measured 8.00 s")
    assert why["async.c"] == "no measured cost on this node yet"
    assert "host.toolchain.cuda_compile" in why
