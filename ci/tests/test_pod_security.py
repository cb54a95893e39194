"""pod_security.py says which Pod Security Standards control a pod breaks, for each control, and
passes the pod our Jobs are made of."""
import copy
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "fleet"))
sys.path.insert(0, os.path.join(HERE, "..", "kubernetes"))

import gpuconform_kube as kube  # noqa: E402
import pod_security  # noqa: E402

OURS = kube.node_job("n", "nvidia", 8, "img", "20261201")["spec"]["template"]["spec"]


def test_our_job_meets_restricted():
    assert pod_security.restricted(OURS) == []


def changed(path, value):
    spec = copy.deepcopy(OURS)
    node = spec
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return spec


@pytest.mark.parametrize("path, value, control", [
    (("hostNetwork",), True, "host namespaces"),
    (("hostPID",), True, "host namespaces"),
    (("containers", 0, "securityContext", "privileged"), True, "privileged"),
    (("containers", 0, "securityContext", "capabilities"), {"add": ["SYS_ADMIN"]}, "capabilities"),
    (("volumes",), [{"name": "h", "hostPath": {"path": "/"}}], "HostPath volumes"),
    (("containers", 0, "ports"), [{"containerPort": 80, "hostPort": 80}], "host ports"),
    (("securityContext", "seccompProfile"), {"type": "Unconfined"}, "seccomp"),
    (("securityContext", "sysctls"), [{"name": "kernel.msgmax", "value": "1"}], "sysctls"),
    (("containers", 0, "securityContext", "procMount"), "Unmasked", "/proc mount type"),
    (("securityContext", "seLinuxOptions"), {"type": "spc_t"}, "SELinux"),
    (("containers", 0, "securityContext", "appArmorProfile"), {"type": "Unconfined"}, "AppArmor"),
    (("securityContext", "windowsOptions"), {"hostProcess": True}, "HostProcess"),
])
def test_each_baseline_control_is_caught(path, value, control):
    got = pod_security.baseline(changed(path, value))
    assert got and all(p.startswith(control + ":") for p in got), got


@pytest.mark.parametrize("path, value, control", [
    (("containers", 0, "securityContext", "allowPrivilegeEscalation"), True, "privilege escalation"),
    (("securityContext", "runAsNonRoot"), False, "running as non-root"),
    (("securityContext", "seccompProfile"), None, "seccomp"),
    (("containers", 0, "securityContext", "capabilities"), {"drop": ["NET_RAW"]}, "capabilities"),
    (("volumes",), [{"name": "n", "nfs": {"server": "s", "path": "/"}}], "volume types"),
])
def test_each_restricted_control_is_caught(path, value, control):
    spec = changed(path, value)
    assert pod_security.baseline(spec) == []
    got = pod_security.restricted(spec)
    assert got and all(p.startswith(control + ":") for p in got), got
