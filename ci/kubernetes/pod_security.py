#!/usr/bin/env python3
"""Which Pod Security Standards level each pod template in Kubernetes manifests meets.

  pod_security.py LEVEL FILE...     LEVEL: baseline | restricted; FILE: JSON, one manifest or a list
                                    (validate/to-json.mjs turns YAML of many documents into that)
  exit 0 every pod template meets LEVEL, 1 some do not (each violation printed), 2 bad input

The controls are those of https://kubernetes.io/docs/concepts/security/pod-security-standards/
(Kubernetes v1.32), checked on every pod template: a Pod's spec, a Job's, a CronJob's. The API
server's PodSecurity admission enforces the same list where a namespace carries the
`pod-security.kubernetes.io/enforce` label; no API server is at hand here to ask it, so this is
the list as the page states it, not the admission plugin itself.
"""
import json
import sys

# Baseline: "Adding additional capabilities beyond those listed below must be disallowed."
BASELINE_CAPABILITIES = {"AUDIT_WRITE", "CHOWN", "DAC_OVERRIDE", "FOWNER", "FSETID", "KILL", "MKNOD",
                         "NET_BIND_SERVICE", "SETFCAP", "SETGID", "SETPCAP", "SETUID", "SYS_CHROOT"}
SAFE_SYSCTLS = {"kernel.shm_rmid_forced", "net.ipv4.ip_local_port_range", "net.ipv4.ip_unprivileged_port_start",
                "net.ipv4.tcp_syncookies", "net.ipv4.ping_group_range", "net.ipv4.ip_local_reserved_ports",
                "net.ipv4.tcp_keepalive_time", "net.ipv4.tcp_fin_timeout", "net.ipv4.tcp_keepalive_intvl",
                "net.ipv4.tcp_keepalive_probes"}
SELINUX_TYPES = {"", "container_t", "container_init_t", "container_kvm_t", "container_engine_t"}
# Restricted: "In addition to restricting HostPath volumes, the restricted policy limits usage of
# non-core volume types to those defined through PersistentVolumes."
RESTRICTED_VOLUMES = {"configMap", "csi", "downwardAPI", "emptyDir", "ephemeral", "persistentVolumeClaim",
                      "projected", "secret"}
VOLUME_META = {"name"}


def pod_specs(doc):
    """(where, pod spec) for each pod template a manifest holds."""
    kind, name = doc.get("kind"), (doc.get("metadata") or {}).get("name")
    spec = doc.get("spec") or {}
    if kind == "Pod":
        yield f"Pod/{name}", spec
    elif kind in ("Job", "Deployment", "DaemonSet", "StatefulSet", "ReplicaSet"):
        yield f"{kind}/{name}", (spec.get("template") or {}).get("spec") or {}
    elif kind == "CronJob":
        job = (spec.get("jobTemplate") or {}).get("spec") or {}
        yield f"CronJob/{name}", (job.get("template") or {}).get("spec") or {}


def containers(spec):
    for key in ("initContainers", "containers", "ephemeralContainers"):
        for c in spec.get(key) or []:
            yield f"{key}[{c.get('name')}]", c


def baseline(spec):
    out = []
    pod_sc = spec.get("securityContext") or {}
    for field in ("hostNetwork", "hostPID", "hostIPC"):
        if spec.get(field):
            out.append(f"host namespaces: spec.{field}")
    scs = [("spec.securityContext", pod_sc)] + [(f"{w}.securityContext", c.get("securityContext") or {})
                                                 for w, c in containers(spec)]
    for where, sc in scs:
        if (sc.get("windowsOptions") or {}).get("hostProcess"):
            out.append(f"HostProcess: {where}.windowsOptions.hostProcess")
        if sc.get("privileged"):
            out.append(f"privileged: {where}.privileged")
        added = set(((sc.get("capabilities") or {}).get("add")) or []) - BASELINE_CAPABILITIES
        if added:
            out.append(f"capabilities: {where}.capabilities.add {sorted(added)}")
        apparmor = (sc.get("appArmorProfile") or {}).get("type")
        if apparmor not in (None, "RuntimeDefault", "Localhost"):
            out.append(f"AppArmor: {where}.appArmorProfile.type {apparmor}")
        se = sc.get("seLinuxOptions") or {}
        if se.get("type", "") not in SELINUX_TYPES or se.get("user") or se.get("role"):
            out.append(f"SELinux: {where}.seLinuxOptions {se}")
        if sc.get("procMount") not in (None, "Default"):
            out.append(f"/proc mount type: {where}.procMount {sc.get('procMount')}")
        seccomp = (sc.get("seccompProfile") or {}).get("type")
        if seccomp not in (None, "RuntimeDefault", "Localhost"):
            out.append(f"seccomp: {where}.seccompProfile.type {seccomp}")
    for v in spec.get("volumes") or []:
        if "hostPath" in v:
            out.append(f"HostPath volumes: spec.volumes[{v.get('name')}]")
    for w, c in containers(spec):
        for p in c.get("ports") or []:
            if p.get("hostPort"):
                out.append(f"host ports: {w}.ports hostPort {p['hostPort']}")
    for s in pod_sc.get("sysctls") or []:
        if s.get("name") not in SAFE_SYSCTLS:
            out.append(f"sysctls: spec.securityContext.sysctls {s.get('name')}")
    return out


def restricted(spec):
    out = baseline(spec)
    pod_sc = spec.get("securityContext") or {}
    for v in spec.get("volumes") or []:
        kinds = set(v) - VOLUME_META
        if not kinds <= RESTRICTED_VOLUMES:
            out.append(f"volume types: spec.volumes[{v.get('name')}] {sorted(kinds - RESTRICTED_VOLUMES)}")
    if pod_sc.get("runAsUser") == 0:
        out.append("running as non-root user: spec.securityContext.runAsUser 0")
    for w, c in containers(spec):
        sc = c.get("securityContext") or {}
        if sc.get("allowPrivilegeEscalation") is not False:
            out.append(f"privilege escalation: {w}.securityContext.allowPrivilegeEscalation is not false")
        if not (sc.get("runAsNonRoot", pod_sc.get("runAsNonRoot")) is True):
            out.append(f"running as non-root: {w} (neither it nor the pod sets runAsNonRoot: true)")
        if sc.get("runAsUser") == 0:
            out.append(f"running as non-root user: {w}.securityContext.runAsUser 0")
        seccomp = (sc.get("seccompProfile") or pod_sc.get("seccompProfile") or {}).get("type")
        if seccomp not in ("RuntimeDefault", "Localhost"):
            out.append(f"seccomp: {w} (neither it nor the pod sets RuntimeDefault or Localhost)")
        caps = sc.get("capabilities") or {}
        if "ALL" not in (caps.get("drop") or []):
            out.append(f"capabilities: {w}.securityContext.capabilities.drop lacks ALL")
        if set(caps.get("add") or []) - {"NET_BIND_SERVICE"}:
            out.append(f"capabilities: {w}.securityContext.capabilities.add beyond NET_BIND_SERVICE")
    return out


LEVELS = {"baseline": baseline, "restricted": restricted}


def load(path):
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    return [d for d in doc if d] if isinstance(doc, list) else [doc]


def main(argv):
    if len(argv) < 3 or argv[1] not in LEVELS:
        print(__doc__, file=sys.stderr)
        return 2
    check, failed, pods = LEVELS[argv[1]], 0, 0
    for path in argv[2:]:
        try:
            docs = load(path)
        except (OSError, ValueError) as e:
            print(f"{path}: cannot read: {e}", file=sys.stderr)
            return 2
        for doc in docs:
            for where, spec in pod_specs(doc):
                pods += 1
                problems = check(spec)
                failed += bool(problems)
                for p in problems:
                    print(f"VIOLATES {argv[1]}: {path}: {where}: {p}")
                if not problems:
                    print(f"{argv[1]:10} {path}: {where}")
    print(f"{pods} pod templates, {failed} not {argv[1]}")
    return 1 if failed else (0 if pods else 2)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
