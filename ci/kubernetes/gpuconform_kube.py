#!/usr/bin/env python3
"""gpuconform on Kubernetes, with nothing but the Python standard library and the pod's token.

  fanout   (the nightly CronJob) roll up each finished night in the reports claim, then create one
           Job per GPU node, pinned to it, requesting all of that node's GPUs, so the GPUs are
           allocated only while the run lasts
  run      (inside that Job) run the suite, keep NIGHT/NODE.json and .xml in the reports claim, push
           the Prometheus text to GPUCONFORM_PUSHGATEWAY and/or write it atomically into
           GPUCONFORM_TEXTFILE_DIR, then put the verdict on the node: label gpuconform/verdict, annotations
           gpuconform/reason and gpuconform/failed-gpus (index, PCI address and UUID of each
           failing GPU), the node condition GPUConformanceFailed, and on a fail the NoSchedule
           taint gpuconform/failed, which only a later pass of ours removes. The taint is held
           back when it would leave more than GPUCONFORM_TAINT_MAX_SHARE (default 0.5) of the
           GPU nodes tainted: the breaker, said in the reason
  render-job NODE VENDOR COUNT [-- ARGS]
                                 print the Job fanout would create with the settings in the
                                 environment (for offline validation)
  render-marks NODE STATE        print the Node as run leaves it after a verdict (likewise)

The breaker counts and taints while holding the Lease gpuconform-taint-breaker in the namespace
(gpuconform_lease.py), so markers finishing together on many nodes never taint past the share.

Settings come from the ConfigMap gpuconform-settings (ci/kubernetes/base/settings.env): the
fan-out reads them as its environment, and each node's Job as its own. The site's expectations come
from the ConfigMap gpuconform-profile. Every pod passes the Pod Security "restricted" level, except
that GPUCONFORM_TEXTFILE_DIR (node-exporter's folder on the node, a hostPath) needs "privileged".

The condition follows node-problem-detector's convention: True means the problem is there.
"""
import base64
import datetime
import hashlib
import json
import os
import re
import ssl
import subprocess
import sys
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fleet"))
from gpuconform_verdict import verdict_json, words  # noqa: E402
import gpuconform_lease  # noqa: E402

LABEL = "gpuconform/verdict"
REASON_ANNOTATION = "gpuconform/reason"
GPUS_ANNOTATION = "gpuconform/failed-gpus"
CONDITION = "GPUConformanceFailed"
# Ours alone: added on a fail, removed only by our own later pass, tolerated by our own Job so a
# tainted node is still checked each night (a cordon would stop the very Job that clears it).
TAINT = {"key": "gpuconform/failed", "value": "true", "effect": "NoSchedule"}
TAINT_MAX_SHARE = 0.5
NAMESPACE = os.environ.get("GPUCONFORM_NAMESPACE", "gpu-ops")
# resource name -> (vendor, image variable); the fanout covers every node that offers one.
GPU_RESOURCES = {"nvidia.com/gpu": ("nvidia", "GPUCONFORM_IMAGE_NVIDIA"),
                 "amd.com/gpu": ("amd", "GPUCONFORM_IMAGE_AMD")}
SA_DIR = "/var/run/secrets/kubernetes.io/serviceaccount"
SETTINGS = "gpuconform-settings"
PROFILE_CONFIGMAP = "gpuconform-profile"
SITE_PROFILE = "/etc/gpuconform/site/profile.yaml"
REPORTS_CLAIM = "gpuconform-reports"
REPORTS = "/reports"   # where the claim is mounted, in the fan-out and in every node's Job
# The night's roll-up, the script Slurm's afterany job runs: beside this one where installed (the
# image, the package), in ci/slurm in a checkout.
HERE = os.path.dirname(os.path.abspath(__file__))
ROLLUP = next((p for p in (os.path.join(HERE, "gpuconform-rollup"),
                           os.path.join(HERE, "..", "slurm", "gpuconform-rollup.sbatch")) if os.path.exists(p)),
              os.path.join(HERE, "gpuconform-rollup"))


# ---- pure functions: report -> node marks, node -> Job (unit-tested) ----

def gpus_text(failing_gpus):
    """'0 (0000:3b:00.0, GPU-1a2b...), 3 (...)': each failing GPU by index, PCI address and UUID."""
    parts = []
    for g in failing_gpus or []:
        if not isinstance(g, dict):
            continue
        ids = ", ".join(str(g[k]) for k in ("pci_bus_id", "uuid") if g.get(k))
        parts.append(f"{g.get('gpu') or g.get('index', '?')}" + (f" ({ids})" if ids else ""))
    return ", ".join(parts)


def verdict_marks(state, reason, previous_condition, now, failing_gpus=()):
    """The label/annotation merge patch and the status patch for one verdict.

    lastTransitionTime moves only when the condition's status changes, as the API conventions ask.
    The failing GPUs go into their own annotation and the condition's message.
    """
    status = {"pass": "False", "fail": "True"}.get(state, "Unknown")
    cond_reason = {"pass": "ChecksPassed", "fail": "CheckFailed"}.get(state, "RunInconclusive")
    transition = now
    if previous_condition and previous_condition.get("status") == status:
        transition = previous_condition.get("lastTransitionTime") or now
    gpus = gpus_text(failing_gpus) if state == "fail" else ""
    annotations = {REASON_ANNOTATION: reason}
    if state in ("pass", "fail"):  # an inconclusive run leaves the last named GPUs, as it leaves the taint
        annotations[GPUS_ANNOTATION] = gpus or None  # null removes it (merge patch)
    meta_patch = {"metadata": {"labels": {LABEL: state if state in ("pass", "fail") else "inconclusive"},
                               "annotations": annotations}}
    message = f"{reason}; failing GPUs: {gpus}" if gpus else reason
    status_patch = {"status": {"conditions": [{
        "type": CONDITION, "status": status, "reason": cond_reason, "message": message,
        "lastHeartbeatTime": now, "lastTransitionTime": transition}]}}
    return meta_patch, status_patch


def has_our_taint(node):
    return any(t.get("key") == TAINT["key"] for t in ((node.get("spec") or {}).get("taints") or []))


def is_gpu_node(node):
    return any(gpu_count(node, resource) > 0 for resource in GPU_RESOURCES)


def taint_decision(state, node_name, nodes, max_share):
    """("add" | "remove" | "keep" | "breaker", why) for this node's taint after a verdict.

    A fail adds the taint unless the GPU nodes tainted by us would then exceed max_share of all
    GPU nodes (a bad roll-out failing everywhere must not take the cluster out); a pass removes
    ours; an inconclusive run changes nothing.
    """
    this = next((n for n in nodes if (n.get("metadata") or {}).get("name") == node_name), {})
    tainted_here = has_our_taint(this)
    if state == "pass":
        return ("remove", "") if tainted_here else ("keep", "")
    if state != "fail" or tainted_here:
        return "keep", ""
    gpu_nodes = [n for n in nodes if is_gpu_node(n)] or [this]
    tainted = sum(1 for n in gpu_nodes if has_our_taint(n))
    if tainted + 1 > max_share * len(gpu_nodes):
        return "breaker", (f"not tainted: breaker ({tainted} of {len(gpu_nodes)} GPU nodes tainted already, "
                           f"at most {max_share:g} of them)")
    return "add", ""


def taints_patch(node, action):
    """The merge patch that adds or removes our taint and nothing else; the resourceVersion makes
    the API refuse it (409) when the node changed since it was read."""
    others = [t for t in ((node.get("spec") or {}).get("taints") or []) if t.get("key") != TAINT["key"]]
    taints = others + [dict(TAINT)] if action == "add" else others
    return {"metadata": {"resourceVersion": (node.get("metadata") or {}).get("resourceVersion")},
            "spec": {"taints": taints}}


def gpu_count(node, resource):
    """Allocatable count of `resource` on a node object; 0 when absent or not a whole number."""
    value = ((node.get("status") or {}).get("allocatable") or {}).get(resource, "0")
    return int(value) if re.fullmatch(r"[0-9]+", str(value)) else 0


def job_name(node_name, night):
    """A DNS-1123 name under 63 characters that is the same for one node and one night."""
    safe = re.sub(r"[^a-z0-9-]", "-", node_name.lower()).strip("-")[:30].strip("-") or "node"
    digest = hashlib.sha256(node_name.encode()).hexdigest()[:6]
    return f"gpuconform-{night}-{safe}-{digest}"


def night_folder(night):
    """'20261201' (a Job name's night) -> '2026-12-01' (the reports folder, as under Slurm)."""
    return f"{night[:4]}-{night[4:6]}-{night[6:8]}"


def textfile_mount(textfile_dir):
    """node-exporter's textfile folder on the node, if the settings name one: (the volume, its mount).

    Mounted as it is (a hostPath of type Directory: never created, never chowned); it must already
    let uid 65534 write. None when unset: the Prometheus text then goes only to the Pushgateway."""
    if not textfile_dir:
        return None
    textfile_dir = os.path.normpath(textfile_dir)
    if not os.path.isabs(textfile_dir):
        raise ValueError(f"GPUCONFORM_TEXTFILE_DIR: '{textfile_dir}' is not an absolute path")
    return ({"name": "textfile", "hostPath": {"path": textfile_dir, "type": "Directory"}},
            {"name": "textfile", "mountPath": "/textfile"})


def node_job(node_name, vendor, count, image, night, run_args=(), settings=None):
    """The Job for one node: all its GPUs, only for the run's duration, least privilege."""
    settings = settings or {}
    resource = "nvidia.com/gpu" if vendor == "nvidia" else "amd.com/gpu"
    textfile = textfile_mount(settings.get("GPUCONFORM_TEXTFILE_DIR"))
    claim = settings.get("GPUCONFORM_REPORTS_CLAIM") or REPORTS_CLAIM
    args = ["run", "--reports", f"{REPORTS}/{night_folder(night)}"]
    if textfile:
        args += ["--textfile", textfile[1]["mountPath"]]
    return {
        "apiVersion": "batch/v1", "kind": "Job",
        "metadata": {"name": job_name(node_name, night), "namespace": NAMESPACE,
                     "labels": {"app.kubernetes.io/name": "gpuconform", "gpuconform/night": night}},
        "spec": {
            "backoffLimit": 0,
            # Waiting for the node's GPUs to be free counts too: give up before the next night.
            "activeDeadlineSeconds": 20 * 3600,
            "ttlSecondsAfterFinished": 3 * 24 * 3600,
            "template": {
                "metadata": {"labels": {"app.kubernetes.io/name": "gpuconform"}},
                "spec": {
                    "restartPolicy": "Never",
                    "serviceAccountName": "gpuconform-marker",
                    # Pinned by the node's name (a field, as the DaemonSet controller pins), not by
                    # the hostname label, which need not equal it; still through the scheduler, so
                    # the pod waits until the node's GPUs are free.
                    "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
                        "nodeSelectorTerms": [{"matchFields": [{
                            "key": "metadata.name", "operator": "In", "values": [node_name]}]}]}}},
                    "tolerations": [{"key": resource, "operator": "Exists", "effect": "NoSchedule"},
                                    {"key": TAINT["key"], "operator": "Exists", "effect": "NoSchedule"}],
                    # fsGroup: the claim's files are the run's group where the volume supports it.
                    "securityContext": {"runAsNonRoot": True, "runAsUser": 65534, "runAsGroup": 65534,
                                        "fsGroup": 65534, "seccompProfile": {"type": "RuntimeDefault"}},
                    "containers": [{
                        "name": "gpuconform", "image": image,
                        "args": [*args, "--", *run_args],
                        # The settings (breaker share, Pushgateway) as the fan-out had them; the
                        # namespace holds the breaker's Lease: the one the Job runs in.
                        "envFrom": [{"configMapRef": {"name": SETTINGS, "optional": True}}],
                        "env": [{"name": "NODE_NAME", "valueFrom": {"fieldRef": {"fieldPath": "spec.nodeName"}}},
                                {"name": "GPUCONFORM_NAMESPACE",
                                 "valueFrom": {"fieldRef": {"fieldPath": "metadata.namespace"}}}],
                        "resources": {"limits": {resource: count},
                                      "requests": {"cpu": "1", "memory": "2Gi"}},
                        "securityContext": {"allowPrivilegeEscalation": False, "readOnlyRootFilesystem": True,
                                            "capabilities": {"drop": ["ALL"]}},
                        "volumeMounts": [{"name": "reports", "mountPath": REPORTS},
                                         {"name": "profile", "mountPath": os.path.dirname(SITE_PROFILE),
                                          "readOnly": True},
                                         {"name": "tmp", "mountPath": "/tmp"},
                                         *([textfile[1]] if textfile else [])]}],
                    "volumes": [
                        {"name": "reports", "persistentVolumeClaim": {"claimName": claim}},
                        {"name": "profile", "configMap": {"name": PROFILE_CONFIGMAP, "optional": True}},
                        {"name": "tmp", "emptyDir": {"sizeLimit": "1Gi"}},
                        *([textfile[0]] if textfile else [])],
                }},
        }}


def jobs_for_nodes(nodes, images, night, run_args=()):
    """One Job per node that offers GPUs of a vendor we have an image for; `images` is the
    settings (the fan-out's environment), which name the images and the rest."""
    jobs = []
    for node in nodes:
        name = (node.get("metadata") or {}).get("name")
        for resource, (vendor, image_var) in GPU_RESOURCES.items():
            count = gpu_count(node, resource)
            if name and count > 0 and images.get(image_var):
                jobs.append(node_job(name, vendor, count, images[image_var], night, run_args, images))
    return jobs


# ---- the API, through the pod's service account ----

class Api:
    def __init__(self):
        host = os.environ.get("KUBERNETES_SERVICE_HOST")
        port = os.environ.get("KUBERNETES_SERVICE_PORT", "443")
        if not host:
            raise RuntimeError("not in a pod: KUBERNETES_SERVICE_HOST is not set")
        self.base = f"https://{host}:{port}"
        with open(f"{SA_DIR}/token", encoding="utf-8") as f:
            self.token = f.read().strip()
        self.ctx = ssl.create_default_context(cafile=f"{SA_DIR}/ca.crt")

    def call(self, method, path, body=None, content_type="application/json"):
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.base + path, data=data, method=method, headers={
            "Authorization": f"Bearer {self.token}", "Content-Type": content_type, "Accept": "application/json"})
        with urllib.request.urlopen(req, context=self.ctx, timeout=30) as resp:
            return json.loads(resp.read() or b"{}")


def max_taint_share():
    raw = os.environ.get("GPUCONFORM_TAINT_MAX_SHARE", str(TAINT_MAX_SHARE))
    try:
        share = float(raw)
    except ValueError:
        share = -1.0
    if not 0.0 <= share <= 1.0:
        raise RuntimeError(f"GPUCONFORM_TAINT_MAX_SHARE={raw!r} is not a share between 0 and 1")
    return share


def set_taint(api, node_name, state, share, **lease_timing):
    """Adds or removes our taint as taint_decision says; retries when the node changed meanwhile.
    A taint is added only while holding the breaker's Lease, so markers that finish together count
    each other's taints. Returns the breaker's words when it held the taint back, else ""."""
    nodes = api.call("GET", "/api/v1/nodes").get("items", [])
    action, why = taint_decision(state, node_name, nodes, share)
    if action in ("keep", "breaker"):
        return why
    if action == "remove":
        return patch_taint(api, node_name, state, share)
    version = gpuconform_lease.take(api, NAMESPACE, node_name, **lease_timing)
    if version is None:
        return (f"not tainted: breaker (the lease {gpuconform_lease.LEASE} stayed with another node's "
                f"marker for {lease_timing.get('wait_s', gpuconform_lease.WAIT_SECONDS)} s)")
    try:
        return patch_taint(api, node_name, state, share)
    finally:
        gpuconform_lease.give_back(api, NAMESPACE, version)


def patch_taint(api, node_name, state, share):
    """Counts and patches; the node's resourceVersion makes a change meanwhile a 409, and a retry."""
    for _ in range(3):
        nodes = api.call("GET", "/api/v1/nodes").get("items", [])
        action, why = taint_decision(state, node_name, nodes, share)
        if action in ("keep", "breaker"):
            return why
        node = api.call("GET", f"/api/v1/nodes/{node_name}")
        try:
            api.call("PATCH", f"/api/v1/nodes/{node_name}", taints_patch(node, action), "application/merge-patch+json")
            return ""
        except urllib.error.HTTPError as e:
            if e.code != 409:
                raise
    raise RuntimeError(f"node {node_name} kept changing: its taint was not set")


def mark_node(api, node_name, state, reason, failing_gpus=()):
    share = max_taint_share()
    held = set_taint(api, node_name, state, share)
    if held:
        reason = f"{reason} ({held})"
        print(f"gpuconform_kube: {node_name}: {held}", file=sys.stderr)
    node = api.call("GET", f"/api/v1/nodes/{node_name}")
    previous = next((c for c in (node.get("status") or {}).get("conditions") or []
                     if c.get("type") == CONDITION), None)
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    meta_patch, status_patch = verdict_marks(state, reason, previous, now, failing_gpus)
    api.call("PATCH", f"/api/v1/nodes/{node_name}", meta_patch, "application/merge-patch+json")
    api.call("PATCH", f"/api/v1/nodes/{node_name}/status", status_patch, "application/strategic-merge-patch+json")


def write_atomically(path, text):
    tmp = f"{path}.tmp.{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


def push_metrics(url, node, text):
    """PUT the node's Prometheus text to a Pushgateway, as the group {job="gpuconform",
    instance=NODE}: each night replaces that node's group and no other. The name travels base64url
    encoded (the Pushgateway's `@base64` form), so no character of it can be read as a path."""
    encoded = base64.urlsafe_b64encode(node.encode()).decode()
    target = f"{url.rstrip('/')}/metrics/job/gpuconform/instance@base64/{encoded}"
    req = urllib.request.Request(target, data=text.encode(), method="PUT",
                                 headers={"Content-Type": "text/plain; version=0.0.4"})
    with urllib.request.urlopen(req, timeout=30):
        pass


def publish_metrics(report, node, textfile, gpuconform):
    """The report as Prometheus text, to the Pushgateway and/or node-exporter's folder, as the
    settings say. Returns what could not be published, as words ("" when all went)."""
    pushgateway = os.environ.get("GPUCONFORM_PUSHGATEWAY", "")
    if not (pushgateway or textfile) or not os.path.exists(report):
        return ""
    prom = subprocess.run([gpuconform, "render", report, "-f", "prometheus"],
                          capture_output=True, text=True, check=False)
    if prom.returncode != 0:
        return f"render -f prometheus exited {prom.returncode}"
    problems = []
    if textfile:
        write_atomically(os.path.join(textfile, "gpuconform.prom"), prom.stdout)
    if pushgateway:
        try:
            push_metrics(pushgateway, node, prom.stdout)
        except (OSError, ValueError, urllib.error.URLError) as e:
            problems.append(f"Pushgateway {pushgateway}: {e}")
    return "; ".join(problems)


def cmd_run(args, api_factory=None):
    reports, textfile, run_args = REPORTS, None, []
    while args:
        a = args.pop(0)
        if a == "--reports":
            reports = args.pop(0)
        elif a == "--textfile":
            textfile = args.pop(0)
        elif a == "--":
            run_args = args
            break
        else:
            print(f"gpuconform_kube run: unknown option {a}", file=sys.stderr)
            return 2
    node = os.environ.get("NODE_NAME")
    if not node:
        print("gpuconform_kube run: NODE_NAME is not set (downward API spec.nodeName)", file=sys.stderr)
        return 2
    gpuconform = os.environ.get("GPUCONFORM", "gpuconform")
    os.makedirs(reports, exist_ok=True)
    report = os.path.join(reports, f"{node}.json")
    profile = ["--profile", SITE_PROFILE] if os.path.isfile(SITE_PROFILE) else []
    rc = subprocess.call([gpuconform, "run", "--quick", "--quiet", "--json", report,
                          "--junit", report[:-5] + ".xml", *profile, *run_args])
    verdict, why = verdict_json(report, gpuconform)
    state, reason, _ = words(verdict) if verdict else ("inconclusive", why, [])
    failing_gpus = (verdict or {}).get("failing_gpus") or []
    if rc not in (0, 1):
        state, reason = "inconclusive", f"gpuconform: run exited {rc}"
    unpublished = publish_metrics(report, node, textfile, gpuconform)
    if unpublished:
        print(f"gpuconform_kube: {node}: metrics not published: {unpublished}", file=sys.stderr)
    print(f"gpuconform_kube: {node}: {state}: {reason}")
    try:
        mark_node((api_factory or Api)(), node, state, reason, failing_gpus)
    except (OSError, RuntimeError, urllib.error.URLError) as e:
        print(f"gpuconform_kube: could not mark node {node}: {e}", file=sys.stderr)
        return 3
    # A run that could not happen fails the pod (and the Job); a failing check does not: the
    # verdict is on the node, where policy acts on it.
    return 0 if rc in (0, 1) and os.path.exists(report) else 1


def nights_to_roll_up(reports, jobs):
    """The night folders under `reports` whose roll-up is due: reports in them, none of that night's
    Jobs still running, and no matrix.html newer than every report. Oldest first, so each diff has
    its previous night."""
    running = set()
    for job in jobs:
        status = job.get("status") or {}
        ended = any(c.get("type") in ("Complete", "Failed") and c.get("status") == "True"
                    for c in status.get("conditions") or [])
        if not ended:
            night = ((job.get("metadata") or {}).get("labels") or {}).get("gpuconform/night", "")
            running.add(night_folder(night) if re.fullmatch(r"[0-9]{8}", night) else night)
    due = []
    for name in sorted(os.listdir(reports)) if os.path.isdir(reports) else []:
        folder = os.path.join(reports, name)
        if not re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", name) or name in running:
            continue
        newest = max((os.path.getmtime(os.path.join(folder, f)) for f in os.listdir(folder)
                      if f.endswith(".json")), default=None)
        matrix = os.path.join(folder, "matrix.html")
        if newest is not None and (not os.path.exists(matrix) or os.path.getmtime(matrix) < newest):
            due.append(name)
    return due


def roll_up(api, reports):
    """Runs the roll-up (the same script as Slurm's afterany job) over each night that is due."""
    jobs = api.call("GET", f"/apis/batch/v1/namespaces/{NAMESPACE}/jobs"
                           "?labelSelector=app.kubernetes.io%2Fname%3Dgpuconform").get("items", [])
    failed = 0
    for night in nights_to_roll_up(reports, jobs):
        rc = subprocess.call(["sh", ROLLUP, reports, night])
        failed += rc != 0
        print(f"gpuconform_kube: roll-up of {night}: " + ("done" if rc == 0 else f"exited {rc}"))
    return failed


def cmd_fanout(args):
    night = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%d")
    api = Api()
    rollups_failed = roll_up(api, REPORTS)
    nodes = api.call("GET", "/api/v1/nodes").get("items", [])
    try:
        jobs = jobs_for_nodes(nodes, os.environ, night, args[1:] if args[:1] == ["--"] else args)
    except ValueError as e:
        print(f"gpuconform_kube: {e}", file=sys.stderr)
        return 2
    created = failed = 0
    for job in jobs:
        try:
            api.call("POST", f"/apis/batch/v1/namespaces/{NAMESPACE}/jobs", job)
            created += 1
        except urllib.error.HTTPError as e:
            if e.code != 409:       # 409: tonight's Job for that node exists already
                failed += 1
                print(f"gpuconform_kube: {job['metadata']['name']}: HTTP {e.code}", file=sys.stderr)
    print(f"gpuconform_kube: {created} Jobs created for {len(jobs)} GPU nodes, {failed} refused")
    if not jobs:
        print("gpuconform_kube: no node offers nvidia.com/gpu or amd.com/gpu with an image set", file=sys.stderr)
    return 0 if jobs and not failed and not rollups_failed else 1


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__)
        return 0 if len(argv) >= 2 else 2
    cmd, args = argv[1], argv[2:]
    if cmd == "run":
        return cmd_run(list(args))
    if cmd == "fanout":
        return cmd_fanout(list(args))
    if cmd == "render-job" and len(args) >= 3 and args[1] in ("nvidia", "amd"):
        # The settings from the environment, as the fan-out has them (settings.env's lines).
        image = os.environ.get(f"GPUCONFORM_IMAGE_{args[1].upper()}")
        if not image:
            print(f"gpuconform_kube render-job: GPUCONFORM_IMAGE_{args[1].upper()} is not set", file=sys.stderr)
            return 2
        run_args = args[4:] if args[3:4] == ["--"] else args[3:]
        print(json.dumps(node_job(args[0], args[1], int(args[2]), image, "20261201", run_args, os.environ),
                         indent=2))
        return 0
    if cmd == "render-marks" and len(args) == 2 and args[1] in ("pass", "fail", "inconclusive"):
        # The Node as the marker leaves it after a verdict (for offline validation).
        gpus = [{"gpu": "cuda:3", "index": 3, "pci_bus_id": "0000:bb:00.0",
                 "uuid": "GPU-f019a044-451a-99a1-45ac-33c45eb89f02"}]
        meta, status = verdict_marks(args[1], "gpuconform: health.ecc cuda:3: 2 uncorrectable errors", None,
                                     "2026-12-01T02:17:00Z", gpus)
        node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": args[0], "resourceVersion": "41"},
                "spec": {"taints": [{"key": "maintenance", "value": "bios", "effect": "NoExecute"}]}}
        marked = taints_patch(node, "add" if args[1] == "fail" else "remove")
        node["metadata"]["labels"] = meta["metadata"]["labels"]
        node["metadata"]["annotations"] = {k: v for k, v in meta["metadata"]["annotations"].items() if v}
        node["spec"] = marked["spec"]
        node["status"] = status["status"]
        print(json.dumps(node, indent=2))
        return 0
    print(f"gpuconform_kube: unknown command {cmd} (see --help)", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
