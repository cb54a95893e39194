#!/usr/bin/env bash
# A new user's first run in a fresh Debian or Ubuntu root: debootstrap a minimal root of DIST, clone the
# repository into it (the committed HEAD of REPO), and run the README's two commands in order, as
# root inside chroot, each with its log and wall time.
# Usage (as root): ci/fresh/fresh-root.sh bookworm|trixie|noble REPO [WORKDIR]
#   REPO: a local path to clone from; WORKDIR: where the root goes (default /var/tmp/fresh/DIST)
#   GPUCONFORM_FRESH_UPDATE=1: keep the root's clone and its build folder, moved to REPO's HEAD
#   (a second run after a fix; the first run of a root always clones afresh)
#   GPUCONFORM_FRESH_MIRROR: the mirror (default http://deb.debian.org/debian; for noble, Ubuntu
#   24.04, http://archive.ubuntu.com/ubuntu with main and universe, as an Ubuntu server has them)
# Writes WORKDIR/suite.log, WORKDIR/tests.log and WORKDIR/times.txt; prints each log's last 60
# lines and the times. Exit status: run-tests.sh's (or 1 when a step before it failed).
set -euo pipefail
dist="${1:?usage: fresh-root.sh bookworm|trixie|noble REPO [WORKDIR]}"
repo="$(cd "${2:?usage: fresh-root.sh bookworm|trixie|noble REPO [WORKDIR]}" && pwd)"
work="${3:-/var/tmp/fresh/$dist}"
components=main script=""
case "$dist" in
    bookworm|trixie) mirror="${GPUCONFORM_FRESH_MIRROR:-http://deb.debian.org/debian}" ;;
    noble) mirror="${GPUCONFORM_FRESH_MIRROR:-http://archive.ubuntu.com/ubuntu}" components=main,universe
           # Debian 12's debootstrap predates noble; every Ubuntu release since uses gutsy's script.
           [ -e /usr/share/debootstrap/scripts/noble ] || script=/usr/share/debootstrap/scripts/gutsy ;;
    *) echo "DIST must be bookworm, trixie or noble" >&2; exit 2 ;;
esac
[ "$(id -u)" -eq 0 ] || { echo "run as root (debootstrap, mount, chroot)" >&2; exit 2; }
command -v debootstrap >/dev/null || { echo "no debootstrap: apt-get install debootstrap" >&2; exit 2; }

root="$work/root"
mkdir -p "$work"
# shellcheck source=../roots.sh
. "$(dirname "${BASH_SOURCE[0]}")/../roots.sh"
trap cleanup EXIT

t0=$SECONDS
if [ ! -x "$root/usr/bin/apt-get" ]; then
    if grep -q " $root/" /proc/mounts; then echo "something is still mounted under $root" >&2; exit 1; fi
    rm -rf "$root"
    # What a fresh server has: a minimal base, TLS certificates, git to clone, sudo.
    bootstrap "$root" "$dist" --components="$components" --include=ca-certificates,git,sudo ${script:+-- "$script"}
fi
t_boot=$(( SECONDS - t0 ))
# What the Debian installer writes and a minbase root of bookworm lacks: without it `localhost`
# does not resolve (selenium reaches chromedriver by that name).
[ -s "$root/etc/hosts" ] || printf '127.0.0.1\tlocalhost\n::1\t\tlocalhost ip6-localhost ip6-loopback\n' > "$root/etc/hosts"
# The host's /proc, /sys (with the cgroup hierarchy, as systemd mounts it on a server: Slurm
# 24.11's slurmd will not start without one) and /dev; a /tmp and /run of the root's own.
enter_root "$root"
mnt -t tmpfs tmpfs "$root/tmp"
mkdir -p "$root/run" && mnt -t tmpfs tmpfs "$root/run"

# CA certificates this host trusts beyond Debian's (a site's TLS-inspecting proxy): a server of the
# same site has them too; without them npm (the Kubernetes manifests test) cannot reach its registry.
if compgen -G "/usr/local/share/ca-certificates/*.crt" >/dev/null; then
    cp /usr/local/share/ca-certificates/*.crt "$root/usr/local/share/ca-certificates/"
    chroot "$root" update-ca-certificates >/dev/null 2>&1 || true
fi

if [ "${GPUCONFORM_FRESH_UPDATE:-0}" = 1 ] && [ -d "$root/src/gpuconform/.git" ]; then
    # A second run after a fix: the root's clone moves to REPO's HEAD and keeps its build folder.
    git -C "$root/src/gpuconform" fetch -q "$repo" HEAD
    git -C "$root/src/gpuconform" reset -q --hard FETCH_HEAD
else
    rm -rf "$root/src"
    git clone -q "$repo" "$root/src/gpuconform"
fi
head="$(git -C "$root/src/gpuconform" rev-parse --short HEAD)"

# In the root: a root shell, the clone as the current folder, the commands as typed.
run_step() {  # name command: log, wall time, exit status
    local name="$1" cmd="$2" start=$SECONDS rc=0
    echo "== $dist: $cmd" >&2
    in_root "$root" /bin/bash -c "cd /src/gpuconform && nice -n 10 $cmd" >"$work/$name.log" 2>&1 || rc=$?
    echo "$name	$cmd	$(( SECONDS - start )) s	exit $rc" >> "$work/times.txt"
    return "$rc"
}
: > "$work/times.txt"
echo "debootstrap	$dist minbase	${t_boot} s	commit $head" >> "$work/times.txt"
rc_suite=0 rc_tests=0
run_step suite "ci/run-suite.sh --json /tmp/suite.json" || rc_suite=$?
cp "$root/tmp/suite.json" "$work/suite.json" 2>/dev/null || true
run_step tests "ci/run-tests.sh" || rc_tests=$?
cp "$root/src/gpuconform/build/Testing/ctest-junit.xml" "$work/ctest-junit.xml" 2>/dev/null || true
cp "$root/src/gpuconform/build/Testing/Temporary/LastTest.log" "$work/LastTest.log" 2>/dev/null || true

for name in suite tests; do
    echo "==== $dist: last 60 lines of $name.log"
    tail -n 60 "$work/$name.log"
done
echo "==== $dist: times"
cat "$work/times.txt"
exit "$rc_tests"
