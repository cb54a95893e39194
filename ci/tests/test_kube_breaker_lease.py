"""The Kubernetes taint breaker under markers that finish together: counted and tainted one at a
time through a Lease. The API server is an in-memory stand-in with its two rules that matter here
(409 on creating what exists or on a stale resourceVersion); no Kubernetes API server is packaged
for Debian, so these show the protocol, not a cluster."""
import copy
import io
import os
import sys
import threading
import urllib.error

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "kubernetes"))
import gpuconform_kube as kube  # noqa: E402
import gpuconform_lease as lease  # noqa: E402

NODES = "/api/v1/nodes"
LEASES = lease.leases_path("gpu-ops")
THE_LEASE = lease.leases_path("gpu-ops", lease.LEASE)


def conflict(path, code=409):
    return urllib.error.HTTPError(path, code, "Conflict" if code == 409 else "Not Found", {}, io.BytesIO(b"{}"))


class Cluster:
    """Nodes with taints and leases, each with a resourceVersion; the first `race` node lists wait
    for each other, so every marker counts before any of them taints."""

    def __init__(self, names, race=0):
        self.lock = threading.Lock()
        self.version = 41
        self.nodes = {n: {"metadata": {"name": n, "resourceVersion": "41"},
                          "status": {"allocatable": {"nvidia.com/gpu": "8"}}, "spec": {"taints": []}}
                      for n in names}
        self.leases = {}
        self.barrier = threading.Barrier(race, timeout=5) if race else None
        self.lists = 0

    def bump(self, obj):
        self.version += 1
        obj["metadata"]["resourceVersion"] = str(self.version)

    def call(self, method, path, body=None, content_type="application/json"):
        if method == "GET" and path == NODES:
            with self.lock:
                self.lists += 1
                first = self.barrier is not None and self.lists <= self.barrier.parties
                items = copy.deepcopy(list(self.nodes.values()))
            if first:
                self.barrier.wait()
            return {"items": items}
        with self.lock:
            return self.locked_call(method, path, body)

    def locked_call(self, method, path, body):
        if path.startswith(NODES + "/"):
            node = self.nodes[path.rsplit("/", 1)[-1]]
            if method == "PATCH":
                if body["metadata"]["resourceVersion"] != node["metadata"]["resourceVersion"]:
                    raise conflict(path)
                node["spec"]["taints"] = body["spec"]["taints"]
                self.bump(node)
            return copy.deepcopy(node)
        if method == "POST" and path == LEASES:
            if lease.LEASE in self.leases:
                raise conflict(path)
            self.leases[lease.LEASE] = copy.deepcopy(body)
            self.bump(self.leases[lease.LEASE])
            return copy.deepcopy(self.leases[lease.LEASE])
        held = self.leases.get(lease.LEASE)
        if held is None:
            raise conflict(path, 404)
        if method == "GET":
            return copy.deepcopy(held)
        expected = (body.get("metadata") or {}).get("resourceVersion") or body["preconditions"]["resourceVersion"]
        if expected != held["metadata"]["resourceVersion"]:
            raise conflict(path)
        if method == "PUT":
            self.leases[lease.LEASE] = copy.deepcopy(body)
            self.bump(self.leases[lease.LEASE])
            return copy.deepcopy(self.leases[lease.LEASE])
        del self.leases[lease.LEASE]    # DELETE
        return {}

    def tainted(self):
        return sorted(n for n, node in self.nodes.items() if kube.has_our_taint(node))


def mark_all_failing(cluster, names, mark):
    words = {}
    threads = [threading.Thread(target=lambda n=n: words.__setitem__(n, mark(cluster, n, "fail", 0.5)))
               for n in names]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    return words


def test_without_the_lease_markers_that_count_together_pass_the_share():
    # The fault the Lease is for, shown on the stand-in: all three count 0 taints, all three taint.
    names = ["h200-0", "h200-1", "h200-2"]
    cluster = Cluster(names, race=3)
    mark_all_failing(cluster, names, kube.patch_taint)
    assert cluster.tainted() == names


def test_with_the_lease_three_failing_markers_at_once_taint_one_of_three():
    names = ["h200-0", "h200-1", "h200-2"]
    cluster = Cluster(names, race=3)
    words = mark_all_failing(cluster, names, kube.set_taint)
    assert len(cluster.tainted()) == 1    # share 0.5 of 3 nodes: one
    held = [w for w in words.values() if w]
    assert len(held) == 2 and all(w.startswith("not tainted: breaker (1 of 3 GPU nodes") for w in held)
    assert cluster.leases == {}           # given back


class Clock:
    def __init__(self):
        self.now = 1_800_000_000.0

    def __call__(self):
        return self.now

    def sleep(self, s):
        self.now += s


def test_a_lease_another_live_marker_holds_is_waited_for_then_the_taint_is_held_back():
    cluster = Cluster(["h200-0", "h200-1"])
    clock = Clock()
    cluster.call("POST", LEASES, lease.lease_body("gpu-ops", "h200-1", clock()))

    def renew(s):    # the other marker keeps renewing while we wait
        clock.sleep(s)
        cluster.leases[lease.LEASE]["spec"]["renewTime"] = lease.micro_time(clock())

    why = kube.set_taint(cluster, "h200-0", "fail", 1.0, clock=clock, sleep=renew, wait_s=10)
    assert why == "not tainted: breaker (the lease gpuconform-taint-breaker stayed with another node's marker for 10 s)"
    assert cluster.tainted() == []
    assert cluster.leases[lease.LEASE]["spec"]["holderIdentity"] == "h200-1"


def test_a_lease_whose_holder_died_is_taken_over_after_its_duration():
    cluster = Cluster(["h200-0", "h200-1"])
    clock = Clock()
    cluster.call("POST", LEASES, lease.lease_body("gpu-ops", "h200-1", clock() - lease.LEASE_SECONDS - 1))
    assert kube.set_taint(cluster, "h200-0", "fail", 1.0, clock=clock, sleep=clock.sleep) == ""
    assert cluster.tainted() == ["h200-0"]
    assert cluster.leases == {}


def test_a_lease_taken_over_while_we_were_slow_is_not_deleted_by_us():
    cluster = Cluster(["h200-0"])
    version = lease.take(cluster, "gpu-ops", "h200-0")
    cluster.leases[lease.LEASE]["metadata"]["resourceVersion"] = "999"    # another marker took it
    lease.give_back(cluster, "gpu-ops", version)
    assert lease.LEASE in cluster.leases


def test_a_lease_that_says_nothing_readable_counts_as_expired():
    assert lease.is_expired({"spec": {"renewTime": "yesterday", "leaseDurationSeconds": 30}}, 0)
    assert lease.is_expired({}, 0)
    fresh = lease.lease_body("gpu-ops", "h200-0", 100.0)
    assert not lease.is_expired(fresh, 110.0) and lease.is_expired(fresh, 131.0)
