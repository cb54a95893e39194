"""One marker at a time: a coordination.k8s.io Lease that the taint breaker's count-and-taint holds.

Every node's Job ends at about the same time each night. Without a lock, markers on several nodes
each count the taints before any of them adds its own, and all of them taint: the breaker's share
is passed. The API server is the one arbiter the markers share: it creates a Lease for one caller
and answers 409 to the others, and it refuses an update that carries a stale resourceVersion. A
holder that died (a killed pod) stops renewing; after leaseDurationSeconds the next marker takes
the Lease over by such an update, so a dead holder blocks no one for longer than that.
https://kubernetes.io/docs/concepts/architecture/leases/
https://kubernetes.io/docs/reference/using-api/api-concepts/#resource-versions
"""
import datetime
import time
import urllib.error

LEASE = "gpuconform-taint-breaker"
LEASE_SECONDS = 30
WAIT_SECONDS = 90


def leases_path(namespace, name=""):
    return f"/apis/coordination.k8s.io/v1/namespaces/{namespace}/leases" + (f"/{name}" if name else "")


def micro_time(t):
    """A Lease's MicroTime: RFC 3339 with microseconds, in UTC."""
    return datetime.datetime.fromtimestamp(t, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def parse_micro_time(text):
    try:
        return datetime.datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").replace(
            tzinfo=datetime.timezone.utc).timestamp()
    except (TypeError, ValueError):
        return None


def lease_body(namespace, holder, now, resource_version=None):
    meta = {"name": LEASE, "namespace": namespace}
    if resource_version is not None:
        meta["resourceVersion"] = resource_version
    return {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": meta,
            "spec": {"holderIdentity": holder, "leaseDurationSeconds": LEASE_SECONDS,
                     "acquireTime": micro_time(now), "renewTime": micro_time(now)}}


def is_expired(lease, now):
    """A Lease whose holder has not renewed it within its duration (or that says nothing readable)."""
    spec = lease.get("spec") or {}
    renewed = parse_micro_time(spec.get("renewTime"))
    duration = spec.get("leaseDurationSeconds")
    if renewed is None or not isinstance(duration, int):
        return True
    return now - renewed > duration


def _refused(e, *codes):
    return isinstance(e, urllib.error.HTTPError) and e.code in codes


def take(api, namespace, holder, clock=time.time, sleep=time.sleep, wait_s=WAIT_SECONDS):
    """Takes the Lease for holder. Returns its resourceVersion, or None when another holder kept it
    for wait_s (then the caller must not act as if it held it)."""
    deadline = clock() + wait_s
    while True:
        try:
            made = api.call("POST", leases_path(namespace), lease_body(namespace, holder, clock()))
            return (made.get("metadata") or {}).get("resourceVersion", "")
        except urllib.error.HTTPError as e:
            if e.code != 409:    # 409: it exists, someone holds it
                raise
        try:
            held = api.call("GET", leases_path(namespace, LEASE))
            if is_expired(held, clock()):
                version = (held.get("metadata") or {}).get("resourceVersion")
                taken = api.call("PUT", leases_path(namespace, LEASE),
                                 lease_body(namespace, holder, clock(), version))
                return (taken.get("metadata") or {}).get("resourceVersion", "")
        except urllib.error.HTTPError as e:
            if not _refused(e, 404, 409):    # gone or taken meanwhile: try again
                raise
        if clock() >= deadline:
            return None
        sleep(0.5)


def give_back(api, namespace, resource_version):
    """Deletes the Lease only if it is still the one we took (a precondition on its version)."""
    options = {"apiVersion": "v1", "kind": "DeleteOptions",
               "preconditions": {"resourceVersion": resource_version}}
    try:
        api.call("DELETE", leases_path(namespace, LEASE), options)
    except urllib.error.HTTPError as e:
        if not _refused(e, 404, 409):    # taken over after we were too slow: it is not ours to delete
            raise
