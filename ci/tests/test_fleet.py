"""The fleet glue's decisions: a report -> a node's verdict (Slurm drain reason, Kubernetes label
and condition), and the per-node Job the nightly fan-out creates."""
import json
import os
import socket
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "fleet"))
sys.path.insert(0, os.path.join(HERE, "..", "kubernetes"))

import gpuconform_kube as kube  # noqa: E402
import gpuconform_verdict  # noqa: E402
from gpuconform_verdict import REASON_MAX, verdict_of_file  # noqa: E402

# The verdict is gpuconform's own (`render -f verdict`): ctest names the built executable.
GPUCONFORM = os.environ.get("GPUCONFORM") or os.path.join(HERE, "..", "..", "build", "gpuconform")
if not os.access(GPUCONFORM, os.X_OK):
    pytest.skip(f"no gpuconform executable at {GPUCONFORM} (build it, or set GPUCONFORM)", allow_module_level=True)
GPUCONFORM = os.path.abspath(GPUCONFORM)


def res(rid, status, backend=None, device=None, summary="s", **extra):
    return {"id": rid, "status": status, "backend": backend, "device": device, "summary": summary, **extra}


def report(results, run=None, **top):
    """A report as gpuconform's reader accepts it, around `results`."""
    return {"schema": "gpuconform-report", "schema_version": "1.3", "run": {"id": "r1", **(run or {})},
            "environment": {"hostname": "n1"}, "results": results, **top}


def node_verdict(doc):
    return gpuconform_verdict.node_verdict(doc, GPUCONFORM)


HEALTHY = [res("host.memlock", "pass"), res("async.copy.bandwidth", "pass", "cuda", 0), res("host.distro", "info")]


@pytest.mark.parametrize("results, state", [
    (HEALTHY, "pass"),
    (HEALTHY + [res("async.copy.bandwidth", "fail", "cuda", 1)], "fail"),
    (HEALTHY + [res("async.copy.bandwidth", "error", "cuda", 1)], "inconclusive"),
    # A failure measured while another process used the GPU is no evidence about the node.
    (HEALTHY + [res("async.copy.bandwidth", "fail", "cuda", 1,
                    disturbance={"summary": "pid 4242 python used the GPU", "others": []})], "inconclusive"),
    (HEALTHY + [res("async.copy.pinned_returns_early", "skip", "cuda", 0)], "pass"),
    ([res("async.copy.bandwidth", "skip", "cuda", 0)], "inconclusive"),
    ([], "inconclusive"),
    (HEALTHY + [res("host.x", "warn")], "pass"),
])
def test_verdict_states(results, state):
    assert node_verdict(report(results))[0] == state


def test_an_interrupted_run_is_never_a_pass_but_its_failure_still_counts():
    stopped = report(HEALTHY, run={"interrupted": True})
    state, reason, _ = node_verdict(stopped)
    assert state == "inconclusive" and "interrupted" in reason
    stopped["results"] = HEALTHY + [res("async.copy.bandwidth", "fail", "cuda", 1)]
    assert node_verdict(stopped)[0] == "fail"


def test_the_reports_own_inconclusive_verdict_is_never_read_as_a_pass():
    doc = report(HEALTHY, summary={"verdict": "inconclusive",
                                   "reason": "no device check was judged on a node with GPUs"})
    state, reason, _ = node_verdict(doc)
    assert state == "inconclusive" and "no device check" in reason
    doc["results"] = HEALTHY + [res("async.copy.bandwidth", "fail", "cuda", 1)]
    assert node_verdict(doc)[0] == "fail"


def test_fail_beats_error_and_names_the_check_and_device():
    doc = report(HEALTHY + [res("async.event.timing_accuracy", "error", "cuda", 0),
                            res("async.copy.bandwidth", "fail", "cuda", 3, "pinned H2D 12.1 GB/s")])
    state, reason, failed = node_verdict(doc)
    assert state == "fail"
    assert reason == "gpuconform: async.copy.bandwidth cuda:3: pinned H2D 12.1 GB/s"
    assert failed == ["async.copy.bandwidth cuda:3"]


def test_reason_is_short_and_counts_the_rest():
    long = "x" * 500
    doc = report([res("host.pcie.link", "fail", summary=long)] +
                 [res(f"async.c{i}", "fail", "hip", i) for i in range(3)])
    state, reason, failed = node_verdict(doc)
    assert state == "fail" and len(reason) <= REASON_MAX
    assert reason.startswith("gpuconform: host.pcie.link: xxx") and reason.endswith("(+3 more)")
    assert len(failed) == 4


def test_a_cause_explains_the_failure_in_its_own_words():
    doc = report([res("async.copy.bandwidth", "fail", "cuda", 0, "54 GB/s, 43 % of the link")],
                 causes=[{"id": "c1", "kind": "degraded_link", "title": "GPU 0's link trained at Gen3 x16",
                          "fix": "reseat", "results": ["async.copy.bandwidth[cuda:0]"]}])
    assert node_verdict(doc)[1] == "gpuconform: async.copy.bandwidth cuda:0: GPU 0's link trained at Gen3 x16"


@pytest.mark.parametrize("content", ["", "{not json", "[]", '{"results": "x"}',
                                     json.dumps({"results": [res("async.copy.bandwidth", "fail", "cuda", 0)]})])
def test_unreadable_reports_never_fail_a_node(tmp_path, content):
    path = tmp_path / "r.json"
    path.write_text(content)
    state, reason, _ = verdict_of_file(str(path), GPUCONFORM)
    assert state == "inconclusive" and reason.startswith("gpuconform: no readable report")
    assert verdict_of_file(str(tmp_path / "missing.json"), GPUCONFORM)[0] == "inconclusive"


# What the reader refuses is never a pass: an unknown status ("FAIL" counted as not failing said
# pass before), a numeric id, a disturbance that is not an object.
@pytest.mark.parametrize("bad", [res("async.copy.bandwidth", "FAIL", "cuda", 0), dict(res("x", "pass"), id=7)])
def test_what_the_one_reader_refuses_is_inconclusive(bad):
    state, reason, _ = node_verdict(report(HEALTHY + [bad]))
    assert state == "inconclusive" and "no readable report" in reason


def test_a_disturbance_of_another_shape_never_raises():
    state, _, _ = node_verdict(report(HEALTHY + [res("async.copy.bandwidth", "fail", "cuda", 0, disturbance="x")]))
    assert state in ("fail", "inconclusive")


def test_without_gpuconform_there_is_no_verdict(tmp_path, monkeypatch):
    path = tmp_path / "r.json"
    path.write_text(json.dumps(report(HEALTHY)))
    state, reason, _ = verdict_of_file(str(path), str(tmp_path / "no-such-gpuconform"))
    assert state == "inconclusive" and "gpuconform not found" in reason
    monkeypatch.delenv("GPUCONFORM", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    state, reason, _ = verdict_of_file(str(path))
    assert state == "inconclusive" and "gpuconform not found" in reason


def test_command_line_prints_state_and_reason_with_exit_status(tmp_path):
    path = tmp_path / "r.json"
    path.write_text(json.dumps(report([res("async.copy.bandwidth", "fail", "sim", 1, "slow")])))
    script = os.path.join(HERE, "..", "fleet", "gpuconform_verdict.py")
    out = subprocess.run([sys.executable, script, str(path)], capture_output=True, text=True,
                         env=dict(os.environ, GPUCONFORM=GPUCONFORM))
    assert out.returncode == 1
    assert out.stdout == "fail\tgpuconform: async.copy.bandwidth sim:1: slow\n"


@pytest.mark.parametrize("state, status, label, reason", [
    ("pass", "False", "pass", "ChecksPassed"),
    ("fail", "True", "fail", "CheckFailed"),
    ("inconclusive", "Unknown", "inconclusive", "RunInconclusive"),
])
def test_verdict_marks(state, status, label, reason):
    meta, st = kube.verdict_marks(state, "gpuconform: why", None, "2026-12-01T02:17:00Z")
    assert meta["metadata"]["labels"] == {"gpuconform/verdict": label}
    gpus = {} if state == "inconclusive" else {"gpuconform/failed-gpus": None}
    assert meta["metadata"]["annotations"] == {"gpuconform/reason": "gpuconform: why", **gpus}
    (cond,) = st["status"]["conditions"]
    assert (cond["type"], cond["status"], cond["reason"]) == ("GPUConformanceFailed", status, reason)
    assert cond["message"] == "gpuconform: why"


def test_transition_time_moves_only_when_the_status_changes():
    before = {"type": "GPUConformanceFailed", "status": "False", "lastTransitionTime": "2026-11-01T02:17:00Z"}
    _, same = kube.verdict_marks("pass", "r", before, "2026-12-01T02:17:00Z")
    _, changed = kube.verdict_marks("fail", "r", before, "2026-12-01T02:17:00Z")
    assert same["status"]["conditions"][0]["lastTransitionTime"] == "2026-11-01T02:17:00Z"
    assert changed["status"]["conditions"][0]["lastTransitionTime"] == "2026-12-01T02:17:00Z"


def node(name, **allocatable):
    return {"metadata": {"name": name}, "status": {"allocatable": allocatable}}


def test_one_job_per_gpu_node_with_that_nodes_own_count():
    nodes = [node("a100-1", **{"nvidia.com/gpu": "4"}), node("h200-1", **{"nvidia.com/gpu": "8"}),
             node("cpu-1", cpu="64"), node("mi300-1", **{"amd.com/gpu": "8"})]
    images = {"GPUCONFORM_IMAGE_NVIDIA": "img/nv", "GPUCONFORM_IMAGE_AMD": "img/amd"}
    jobs = kube.jobs_for_nodes(nodes, images, "20261201")
    got = {}
    for job in jobs:
        spec = job["spec"]["template"]["spec"]
        term = spec["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
        (field,) = term["nodeSelectorTerms"][0]["matchFields"]
        assert field["key"] == "metadata.name"  # the node's name, not its hostname label
        (pinned,) = field["values"]
        got[pinned] = (spec["containers"][0]["resources"]["limits"], spec["containers"][0]["image"])
    assert got == {"a100-1": ({"nvidia.com/gpu": 4}, "img/nv"), "h200-1": ({"nvidia.com/gpu": 8}, "img/nv"),
                   "mi300-1": ({"amd.com/gpu": 8}, "img/amd")}
    # Without an AMD image, AMD nodes get no Job rather than the wrong image.
    assert len(kube.jobs_for_nodes(nodes, {"GPUCONFORM_IMAGE_NVIDIA": "img/nv"}, "20261201")) == 2


def test_job_runs_unprivileged_with_the_node_name_from_the_downward_api():
    job = kube.node_job("Node_With.Odd-Name" + "x" * 80, "nvidia", 2, "img", "20261201")
    name = job["metadata"]["name"]
    assert len(name) <= 63 and name == name.lower() and not name.endswith("-")
    pod = job["spec"]["template"]["spec"]
    (main,) = pod["containers"]
    assert pod["securityContext"]["runAsNonRoot"] is True
    assert main["securityContext"]["capabilities"] == {"drop": ["ALL"]}
    assert main["securityContext"]["allowPrivilegeEscalation"] is False
    assert {"name": "NODE_NAME", "valueFrom": {"fieldRef": {"fieldPath": "spec.nodeName"}}} in main["env"]
    assert job["spec"]["backoffLimit"] == 0 and job["spec"]["activeDeadlineSeconds"] > 0


def host_paths(pod):
    return sorted(v["hostPath"]["path"] for v in pod["volumes"] if "hostPath" in v)


def test_job_writes_to_the_reports_claim_and_touches_no_host_folder_by_default():
    pod = kube.node_job("n", "nvidia", 1, "img", "20261201")["spec"]["template"]["spec"]
    assert host_paths(pod) == [] and "initContainers" not in pod
    assert {"name": "reports", "persistentVolumeClaim": {"claimName": "gpuconform-reports"}} in pod["volumes"]
    assert pod["containers"][0]["args"] == ["run", "--reports", "/reports/2026-12-01", "--"]
    assert {"name": "profile", "configMap": {"name": "gpuconform-profile", "optional": True}} in pod["volumes"]
    assert pod["containers"][0]["envFrom"] == [{"configMapRef": {"name": "gpuconform-settings", "optional": True}}]
    # The settings name another claim, and node-exporter's folder, mounted as it is (never created).
    nodes = [node("h200-1", **{"nvidia.com/gpu": "8"})]
    (job,) = kube.jobs_for_nodes(nodes, {"GPUCONFORM_IMAGE_NVIDIA": "img/nv", "GPUCONFORM_REPORTS_CLAIM": "nfs-gpu",
                                         "GPUCONFORM_TEXTFILE_DIR": "/var/lib/prometheus/node-exporter/"},
                                 "20261201")
    pod = job["spec"]["template"]["spec"]
    assert host_paths(pod) == ["/var/lib/prometheus/node-exporter"]
    assert {"name": "textfile", "hostPath": {"path": "/var/lib/prometheus/node-exporter", "type": "Directory"}} \
        in pod["volumes"]
    assert {"name": "reports", "persistentVolumeClaim": {"claimName": "nfs-gpu"}} in pod["volumes"]
    assert pod["containers"][0]["args"][3:5] == ["--textfile", "/textfile"]
    with pytest.raises(ValueError, match="not an absolute path"):
        kube.node_job("n", "nvidia", 1, "img", "20261201", (), {"GPUCONFORM_TEXTFILE_DIR": "metrics"})


def job_state(night, ended):
    conditions = [{"type": "Complete", "status": "True"}] if ended else []
    return {"metadata": {"labels": {"gpuconform/night": night}}, "status": {"conditions": conditions}}


def test_a_night_is_rolled_up_once_its_jobs_ended_and_again_when_a_report_is_newer(tmp_path):
    for night, files in {"2026-11-30": ["a.json", "matrix.html"], "2026-12-01": ["a.json", "b.json"],
                         "2026-12-02": ["a.json"], "2026-12-03": [], "notes": ["x.json"]}.items():
        (tmp_path / night).mkdir()
        for f in files:
            (tmp_path / night / f).write_text("{}")
    os.utime(tmp_path / "2026-11-30" / "a.json", (1, 1))  # the matrix is newer: rolled up already
    jobs = [job_state("20261201", True), job_state("20261202", False)]
    assert kube.nights_to_roll_up(str(tmp_path), jobs) == ["2026-12-01"]  # 12-02 still runs, 12-03 is empty
    os.utime(tmp_path / "2026-11-30" / "matrix.html", (0, 0))              # a report came in after it
    assert kube.nights_to_roll_up(str(tmp_path), jobs) == ["2026-11-30", "2026-12-01"]
    assert kube.nights_to_roll_up(str(tmp_path / "absent"), jobs) == []


def test_gpu_count_ignores_what_is_not_a_whole_number():
    assert kube.gpu_count(node("n", **{"nvidia.com/gpu": "8"}), "nvidia.com/gpu") == 8
    assert kube.gpu_count(node("n", **{"nvidia.com/gpu": "500m"}), "nvidia.com/gpu") == 0
    assert kube.gpu_count({"metadata": {"name": "n"}}, "nvidia.com/gpu") == 0


def test_verdict_marks_name_the_failing_gpus_and_clear_them_on_a_pass():
    gpus = [{"gpu": "cuda:3", "index": 3, "pci_bus_id": "0000:bb:00.0", "uuid": "GPU-3333"}]
    meta, st = kube.verdict_marks("fail", "gpuconform: health.ecc cuda:3: 2 uncorrectable", None,
                                  "2026-12-01T02:17:00Z", gpus)
    assert meta["metadata"]["annotations"]["gpuconform/failed-gpus"] == "cuda:3 (0000:bb:00.0, GPU-3333)"
    assert st["status"]["conditions"][0]["message"].endswith("failing GPUs: cuda:3 (0000:bb:00.0, GPU-3333)")
    meta, _ = kube.verdict_marks("pass", "gpuconform: fine", None, "2026-12-02T02:17:00Z", gpus)
    assert meta["metadata"]["annotations"]["gpuconform/failed-gpus"] is None  # merge patch: removed


def gpu_node(name, tainted=False, other_taints=()):
    n = node(name, **{"nvidia.com/gpu": "8"})
    taints = list(other_taints) + ([dict(kube.TAINT)] if tainted else [])
    n["spec"] = {"taints": taints}
    n["metadata"]["resourceVersion"] = "41"
    return n


@pytest.mark.parametrize("state, tainted_here, tainted_elsewhere, action", [
    ("fail", False, 0, "add"),
    ("fail", True, 3, "keep"),        # already ours: nothing to add, the breaker is not asked
    ("fail", False, 2, "breaker"),    # a third of six would pass 0.5: 3 of 6 is the most
    ("pass", True, 0, "remove"),
    ("pass", False, 0, "keep"),
    ("inconclusive", True, 0, "keep"),  # an inconclusive run never clears a fail
])
def test_taint_decision(state, tainted_here, tainted_elsewhere, action):
    nodes = [gpu_node("n0", tainted_here)] + [gpu_node(f"t{i}", True) for i in range(tainted_elsewhere)]
    nodes += [gpu_node(f"ok{i}") for i in range(6 - len(nodes))] + [node("cpu-1", cpu="64")]
    if state == "fail" and not tainted_here and tainted_elsewhere == 2:
        nodes[3]["spec"]["taints"] = [dict(kube.TAINT)]  # three tainted of six GPU nodes already
    got, why = kube.taint_decision(state, "n0", nodes, 0.5)
    assert got == action
    if action == "breaker":
        assert why == "not tainted: breaker (3 of 6 GPU nodes tainted already, at most 0.5 of them)"


def test_taints_patch_touches_only_our_taint_and_carries_the_resource_version():
    admin = {"key": "maintenance", "value": "bios", "effect": "NoExecute"}
    n = gpu_node("n0", tainted=True, other_taints=[admin])
    assert kube.taints_patch(n, "remove") == {"metadata": {"resourceVersion": "41"}, "spec": {"taints": [admin]}}
    added = kube.taints_patch(gpu_node("n1", other_taints=[admin]), "add")
    assert added["spec"]["taints"] == [admin, kube.TAINT]


def test_our_job_tolerates_our_taint_so_a_tainted_node_is_checked_again():
    pod = kube.node_job("n0", "nvidia", 8, "img", "20261201")["spec"]["template"]["spec"]
    assert {"key": "gpuconform/failed", "operator": "Exists", "effect": "NoSchedule"} in pod["tolerations"]


@pytest.mark.parametrize("raw", ["2", "-0.1", "half", "nan"])
def test_a_taint_share_that_is_not_a_share_is_refused(monkeypatch, raw):
    monkeypatch.setenv("GPUCONFORM_TAINT_MAX_SHARE", raw)
    with pytest.raises(RuntimeError, match="not a share"):
        kube.max_taint_share()


class FakeApi:
    """Records what the marker sends; answers GET with a node that has our condition already, and
    the node list with it and three healthy GPU nodes."""
    calls = []

    def call(self, method, path, body=None, content_type="application/json"):
        FakeApi.calls.append((method, path, body, content_type))
        this = gpu_node(path.rsplit("/", 1)[-1])
        this["status"]["conditions"] = [{"type": "GPUConformanceFailed", "status": "True",
                                         "lastTransitionTime": "2026-11-30T02:17:00Z"}]
        if path == "/api/v1/nodes":
            this = gpu_node("h200-7")
            return {"items": [this] + [gpu_node(f"h200-{i}") for i in range(3)]}
        return this


def fake_gpuconform(tmp_path, status, write_report=True, rc=0):
    """A stand-in executable: `run` writes a report with one result, `render` prints metrics and
    `render -f verdict` is the real one's."""
    doc = json.dumps(report([res("async.copy.bandwidth", status, "cuda", 0, "pinned H2D 9 GB/s")]))
    (tmp_path / "report.json").write_text(doc)
    write = f'cp "{tmp_path / "report.json"}" "$out"' if write_report else ":"
    script = tmp_path / "gpuconform"
    script.write_text(f"""#!/bin/sh
if [ "$1" = render ]; then
    case " $* " in *" -f verdict "*) exec "{GPUCONFORM}" "$@" ;; esac
    echo 'gpuconform_check_status{{check="x"}} 1'; exit 0
fi
while [ $# -gt 0 ]; do [ "$1" = --json ] && out=$2; shift; done
{write}
exit {rc}
""")
    script.chmod(0o755)
    return str(script)


@pytest.mark.parametrize("status, write_report, rc, exit_code, label, cond", [
    ("fail", True, 1, 0, "fail", "True"),        # a failing check: the node is marked, the pod succeeds
    ("pass", True, 0, 0, "pass", "False"),
    ("pass", False, 2, 1, "inconclusive", "Unknown"),  # no run: the pod fails, the condition is Unknown
])
def test_run_marks_the_node_named_by_the_downward_api(tmp_path, monkeypatch, status, write_report, rc,
                                                      exit_code, label, cond):
    monkeypatch.setenv("NODE_NAME", "h200-7")
    monkeypatch.setenv("GPUCONFORM", fake_gpuconform(tmp_path, status, write_report, rc))
    (tmp_path / "textfile").mkdir()
    FakeApi.calls = []
    got = kube.cmd_run(["--reports", str(tmp_path / "reports" / "2026-12-01"), "--textfile",
                        str(tmp_path / "textfile")], api_factory=FakeApi)
    assert got == exit_code
    listed, *taint, get, meta, st = FakeApi.calls
    assert listed[:2] == ("GET", "/api/v1/nodes")
    if label == "fail":  # the taint, under the breaker's Lease: count again, read the node, add ours
        (take, recount, read, patch, give_back) = taint
        assert take[:2] == ("POST", "/apis/coordination.k8s.io/v1/namespaces/gpu-ops/leases")
        assert recount[:2] == ("GET", "/api/v1/nodes")
        assert give_back[:2] == ("DELETE", "/apis/coordination.k8s.io/v1/namespaces/gpu-ops/leases/"
                                           "gpuconform-taint-breaker")
        assert read[:2] == ("GET", "/api/v1/nodes/h200-7") and patch[1] == "/api/v1/nodes/h200-7"
        assert patch[2]["spec"]["taints"] == [kube.TAINT] and patch[2]["metadata"]["resourceVersion"] == "41"
    else:
        assert taint == []
    assert get[:2] == ("GET", "/api/v1/nodes/h200-7")
    assert meta[1] == "/api/v1/nodes/h200-7" and meta[3] == "application/merge-patch+json"
    assert meta[2]["metadata"]["labels"]["gpuconform/verdict"] == label
    assert st[1] == "/api/v1/nodes/h200-7/status" and st[3] == "application/strategic-merge-patch+json"
    assert st[2]["status"]["conditions"][0]["status"] == cond
    reports = sorted(p.name for p in (tmp_path / "reports" / "2026-12-01").iterdir())
    prom = sorted(p.name for p in (tmp_path / "textfile").iterdir())
    if write_report:
        assert "h200-7.json" in reports and prom == ["gpuconform.prom"]
    else:
        assert prom == []


def test_run_without_a_node_name_is_bad_usage(monkeypatch):
    monkeypatch.delenv("NODE_NAME", raising=False)
    assert kube.cmd_run([], api_factory=FakeApi) == 2


HEALTHCHECK = os.path.join(HERE, "..", "slurm", "gpuconform-healthcheck")


@pytest.mark.parametrize("state, reason, status, action", [
    ("IDLE", "", "fail", "DRAIN"),
    ("IDLE", "", "error", None),                                      # inconclusive: never drains
    ("IDLE", "", "pass", None),
    ("IDLE+DRAIN", "gpuconform: async.copy.bandwidth cuda:0: slow", "pass", "RESUME"),
    ("IDLE+DRAIN", "admin: replacing a fan", "pass", None),           # not ours to resume
    ("IDLE+DRAIN", "admin: replacing a fan", "fail", None),           # nor to overwrite
    ("MIXED+DRAIN", "gpuconform: async.copy.bandwidth cuda:0: slow", "pass", None),  # device checks not rerun
    ("IDLE+DRAIN", "gpuconform: old reason", "fail", "DRAIN"),        # ours: the reason is refreshed
])
def test_healthcheck_decisions(tmp_path, state, reason, status, action):
    scontrol = tmp_path / "scontrol"
    scontrol.write_text(f"""#!/bin/sh
if [ "$1" = show ]; then printf 'NodeName=n1\\n   State={state} ThreadsPerCore=1\\n   Reason={reason} [root@2026-12-01T02:00:00]\\n'
else echo "$@" >> "{tmp_path}/actions"; fi
""")
    scontrol.chmod(0o755)
    env = dict(os.environ, SCONTROL=str(scontrol), GPUCONFORM=fake_gpuconform(tmp_path, status, True, 1))
    subprocess.run(["sh", HEALTHCHECK, "--node", "n1", "--report", str(tmp_path / "hc.json")], env=env,
                   check=True, capture_output=True)
    actions = (tmp_path / "actions").read_text().splitlines() if (tmp_path / "actions").exists() else []
    if action is None:
        assert actions == []
    else:
        (line,) = actions
        assert line.startswith(f"update NodeName=n1 State={action}")
        if action == "DRAIN":
            assert line.endswith("Reason=gpuconform: async.copy.bandwidth cuda:0: pinned H2D 9 GB/s")


def test_healthcheck_acts_on_the_node_as_it_is_after_the_run_not_before(tmp_path):
    """Drained by us when the run starts, drained by an admin while it runs: a pass must not resume
    over the admin's drain (the node is read again after the checks, not only before them)."""
    scontrol = tmp_path / "scontrol"
    shows = tmp_path / "shows"
    scontrol.write_text(f"""#!/bin/sh
if [ "$1" = show ]; then
    n=$(cat "{shows}" 2>/dev/null || echo 0); echo $((n + 1)) > "{shows}"
    if [ "$n" = 0 ]; then reason="gpuconform: async.copy.bandwidth cuda:0: slow"; else reason="admin: replacing a fan"; fi
    printf 'NodeName=n1\\n   State=IDLE+DRAIN ThreadsPerCore=1\\n   Reason=%s [root@2026-12-01T02:00:00]\\n' "$reason"
else echo "$@" >> "{tmp_path}/actions"; fi
""")
    scontrol.chmod(0o755)
    env = dict(os.environ, SCONTROL=str(scontrol), GPUCONFORM=fake_gpuconform(tmp_path, "pass", True, 0))
    subprocess.run(["sh", HEALTHCHECK, "--node", "n1", "--report", str(tmp_path / "hc.json")], env=env,
                   check=True, capture_output=True)
    assert int(shows.read_text()) >= 2  # read before the run (which layers) and again after it
    assert not (tmp_path / "actions").exists(), (tmp_path / "actions").read_text()


ROLLUP = os.path.join(HERE, "..", "slurm", "gpuconform-rollup.sbatch")
GEN_REPORTS = os.path.join(HERE, "..", "..", "reports", "tools", "gen_reports.py")


def test_the_rollup_diff_of_two_generated_nights_names_each_node_that_broke(tmp_path):
    """Night 2 of a generated fleet: one node newly fails a check, one is gone, one's link trained
    x8. The roll-up's diff.md names each by host, and no other node."""
    subprocess.run([sys.executable, GEN_REPORTS, "--count", "12", "--out", str(tmp_path / "gen")], check=True)
    nights = [tmp_path / "reports" / "2026-12-01", tmp_path / "reports" / "2026-12-02"]
    for n in nights:
        n.mkdir(parents=True)
    docs = []
    for root, _, files in os.walk(tmp_path / "gen"):
        docs += [json.load(open(os.path.join(root, f))) for f in sorted(files) if f.endswith(".json")]
    gpu_hosts = sorted(d["environment"]["hostname"] for d in docs if d["devices"])
    failing, vanished, narrowed = gpu_hosts[0], gpu_hosts[1], gpu_hosts[2]
    for doc in docs:
        host = doc["environment"]["hostname"]
        (nights[0] / f"{host}.json").write_text(json.dumps(doc))
        if host == vanished:
            continue
        doc["run"]["id"] += "-night2"
        for r in doc["results"]:
            if host == failing and r["id"] == "async.stream.legacy_default_sync":
                r["status"], r["summary"] = "fail", "the legacy default stream did not wait for stream 1"
            if host == narrowed and r["id"] == "host.pcie.link":
                r["status"] = "fail"
                for m in r["measurements"]:
                    m["value"] = 8.0 if m["name"].endswith(" current_width") else m["value"]
        (nights[1] / f"{host}.json").write_text(json.dumps(doc))
    out = subprocess.run(["sh", ROLLUP, str(tmp_path / "reports"), "2026-12-02"], capture_output=True, text=True,
                         env=dict(os.environ, GPUCONFORM=GPUCONFORM))
    assert out.returncode == 0, out.stderr
    diff = (nights[1] / "diff.md").read_text()
    verdict = next(line for line in diff.splitlines() if "REGRESSED" in line)
    assert verdict == f"base: 12 runs, new: 11 runs; 11 hosts compared, 2 regressed. " \
                      f"**REGRESSED ({failing}, {narrowed}, {vanished} vanished)**", diff
    assert f"`{failing}: async.stream.legacy_default_sync [cuda:0]`" in diff
    assert f"- vanished host: {vanished}" in diff
    assert f"- worse {narrowed}: 0000:3b:00.0: link x16 → x8" in diff


def test_the_fanout_rolls_up_a_finished_night_with_slurms_script(tmp_path, monkeypatch):
    night = tmp_path / "reports" / "2026-12-01"
    night.mkdir(parents=True)
    subprocess.run([GPUCONFORM, "run", "--backend", "sim", "--sim-devices", "2", "--layer", "host,runtime",
                    "--quick", "--quiet", "--json", str(night / "gpu-node-17.json")], check=False)
    monkeypatch.setenv("GPUCONFORM", GPUCONFORM)

    class Jobs:
        calls = []

        def call(self, method, path, body=None, content_type=None):
            Jobs.calls.append((method, path))
            return {"items": [job_state("20261201", True), job_state("20261202", False)]}

    assert kube.roll_up(Jobs(), str(tmp_path / "reports")) == 0
    assert Jobs.calls == [("GET", "/apis/batch/v1/namespaces/gpu-ops/jobs"
                                  "?labelSelector=app.kubernetes.io%2Fname%3Dgpuconform")]
    assert "<html" in (night / "matrix.html").read_text()
    assert socket.gethostname() in (night / "matrix.md").read_text()  # by host: the report's own
    assert kube.nights_to_roll_up(str(tmp_path / "reports"), []) == []  # done: not again
