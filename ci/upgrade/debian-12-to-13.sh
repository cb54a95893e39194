#!/usr/bin/env bash
# A real in-place Debian 12 -> 13 upgrade in a debootstrap root, with gpuconform run before and after.
#
#   sudo ci/upgrade/debian-12-to-13.sh [STEP...]     steps: root before upgrade after (default: all four)
#
# root:    debootstrap bookworm, then Debian's nvidia-cuda-toolkit, python3-torch and the build tools
# before:  build gpuconform inside the root from this checkout, run host,runtime (toolchain checks are host.*) -> before.json
# upgrade: trixie sources, `apt-get full-upgrade` of the same root
# after:   rebuild (the libraries' sonames changed), run again -> after.json, `gpuconform diff` -> diff.txt
#
# Needs root, network to the Debian mirror, ~10 GB in $GC_UPGRADE_DIR. No GPU is needed or used:
# the toolchain findings are what the upgrade changes. Outputs land in $GC_UPGRADE_DIR/out/;
# reports/samples/debian-upgrade/ holds a committed run (see its NOTES.md).
set -euo pipefail
src="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
work="${GC_UPGRADE_DIR:-/var/tmp/gpuconform-upgrade}"
mirror="${GC_MIRROR:-http://deb.debian.org/debian}"
root="$work/root"
out="$work/out"
mkdir -p "$work" "$out"
export DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8

# shellcheck source=../roots.sh
. "$src/ci/roots.sh"
trap cleanup EXIT
trap 'exit 130' INT TERM
root_run() { in_root "$root" nice -n 10 "$@"; }

sources() {  # $1 = suite
    cat >"$root/etc/apt/sources.list" <<EOF
deb $mirror $1 main contrib non-free non-free-firmware
deb $mirror $1-updates main contrib non-free non-free-firmware
EOF
}

step_root() {
    [ -x "$root/usr/bin/apt-get" ] || bootstrap "$root" bookworm
    sources bookworm
    enter_root "$root"
    no_daemons "$root"
    root_run dpkg --configure -a  # a run stopped half-way through the install
    root_run apt-get update -qq
    # With recommends, as a user would install it: without them nvcc has no gcc at all.
    root_run apt-get install -y -qq nvidia-cuda-toolkit python3-torch >"$out/install-12.log" 2>&1
    root_run apt-get clean
}

# The same gpuconform binary runs in both releases, so what changes is the node, not the tool. It is
# the build tree's (built on Debian 12, $GC_BUILD, default build/) with the two libraries whose
# sonames Debian 13 changes (fmt, yaml-cpp, simdjson) beside it; glibc and libstdc++ are only newer there.
install_gpuconform() {
    local build="${GC_BUILD:-$src/build}" lib
    [ -x "$build/gpuconform" ] || { echo "no $build/gpuconform: build it first (README)" >&2; exit 2; }
    rm -rf "$root/opt/gpuconform"
    mkdir -p "$root/opt/gpuconform/lib"
    cp "$build/gpuconform" "$root/opt/gpuconform/"
    for lib in $(ldd "$build/gpuconform" | awk '/libfmt|libyaml-cpp|libsimdjson/ {print $3}'); do
        cp -L "$lib" "$root/opt/gpuconform/lib/"
    done
}

run_suite() {  # $1 = before|after
    enter_root "$root"
    install_gpuconform
    cp "$root/etc/os-release" "$out/os-release-$1"
    local t0=$SECONDS
    # A failing check must not stop the run: the report is the record.
    root_run env LD_LIBRARY_PATH=/opt/gpuconform/lib /opt/gpuconform/gpuconform run --layer host,runtime \
        --json "/opt/$1.json" >"$out/run-$1.txt" 2>&1 || true
    echo "run ($1): $((SECONDS - t0)) s" >>"$out/timings.txt"
    cp "$root/opt/$1.json" "$out/$1.json"
}

step_upgrade() {
    enter_root "$root"
    root_run dpkg --configure -a  # an earlier step that was stopped half-way
    sources trixie
    root_run apt-get update -qq
    local t0=$SECONDS
    root_run apt-get full-upgrade -y -qq -o Dpkg::Options::=--force-confdef \
        -o Dpkg::Options::=--force-confold >"$out/upgrade.log" 2>&1
    echo "full-upgrade: $((SECONDS - t0)) s" >>"$out/timings.txt"
    root_run apt-get clean
}

step_after() {
    run_suite after
    "${GC_BUILD:-$src/build}/gpuconform" diff "$out/before.json" "$out/after.json" >"$out/diff.txt" 2>&1 || true
    # The diff's own exit status: 1 when something got worse, as expected here.
    echo "diff written: $out/diff.txt"
}

steps=("$@")
[ ${#steps[@]} -gt 0 ] || steps=(root before upgrade after)
for s in "${steps[@]}"; do
    case "$s" in
        root) step_root ;;
        before) run_suite before ;;
        upgrade) step_upgrade ;;
        after) step_after ;;
        *) echo "unknown step: $s (root, before, upgrade, after)" >&2; exit 2 ;;
    esac
done
