# shellcheck shell=bash
# Debootstrap roots, sourced by every script that runs something inside one: the package tests
# (ci/packaging), the Debian 12 -> 13 upgrade (ci/upgrade) and a new user's first run
# (ci/fresh). The caller sets `mirror` (and `work` when the roots are scratch), calls
# `trap cleanup EXIT`, and sets remove_work_on_exit=yes when `work` is its own to remove.
mounted=()
roots=()
remove_work_on_exit=no

say() { printf '== %(%T)T %s\n' -1 "$*" >&2; }
fail() { printf 'FAIL: %s\n' "$*" >&2; exit 1; }

# mnt ARG... TARGET: mount, and unmount TARGET at exit (last mounted, first unmounted).
mnt() { mount "$@" && mounted+=("${!#}"); }

cleanup() {
    local i p r
    # Daemons a test left running inside a root (slurmctld, munged) would keep it busy.
    for r in "${roots[@]}"; do
        for p in /proc/[0-9]*; do
            [ "$(readlink "$p/root" 2>/dev/null)" = "$r" ] && kill "${p#/proc/}" 2>/dev/null || true
        done
    done
    for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
        umount -l "${mounted[$i]}" 2>/dev/null || true
    done
    [ "$remove_work_on_exit" = yes ] && [ -n "${work:-}" ] || return 0
    # Only remove the roots when nothing is still mounted inside them.
    if ! grep -q " $work/" /proc/mounts; then
        rm -rf "$work"
    else
        echo "$(basename "$0"): mounts left under $work; not removing it" >&2
    fi
}

# bootstrap ROOT SUITE [DEBOOTSTRAP_OPTION...] [-- SCRIPT]: a minbase root of SUITE from $mirror,
# its log beside it (ROOT.debootstrap.log). SCRIPT: debootstrap's script for a suite it predates.
bootstrap() {
    local root="$1" suite="$2" opts=() script=()
    shift 2
    while [ $# -gt 0 ]; do
        if [ "$1" = -- ]; then script=("$2"); break; fi
        opts+=("$1"); shift
    done
    say "debootstrap $suite into $root"
    mkdir -p "$(dirname "$root")"
    nice -n 10 debootstrap --variant=minbase "${opts[@]}" "$suite" "$root" "${mirror:?set mirror}" "${script[@]}" \
        >"$root.debootstrap.log" 2>&1 || { tail -30 "$root.debootstrap.log" >&2; fail "debootstrap $suite"; }
}

# enter_root ROOT: /proc, /sys (with the cgroup hierarchy: Slurm 24.11's slurmd needs it) and /dev
# (with /dev/pts) of the host, and the host's resolver. Safe to call again on the same root.
enter_root() {
    local root="$1" d
    roots+=("$root")
    for d in proc sys dev; do
        mountpoint -q "$root/$d" && continue
        mkdir -p "$root/$d"
        mnt --rbind "/$d" "$root/$d"
        mount --make-rslave "$root/$d"
    done
    cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
}

# no_daemons ROOT: no service starts inside the root when a package is installed there.
no_daemons() {
    printf '#!/bin/sh\nexit 101\n' >"$1/usr/sbin/policy-rc.d"
    chmod +x "$1/usr/sbin/policy-rc.d"
}

# make_root ROOT SUITE: a fresh minbase root, entered, where no daemon starts. With GPUCONFORM_PKG_BASES set (a folder the
# caller owns and removes), each suite is bootstrapped once into it and every later root of that
# suite is a copy: a minbase debootstrap takes minutes, a copy seconds.
make_root() {
    local root="$1" suite="$2" bases="${GPUCONFORM_PKG_BASES:-}"
    if [ -z "$bases" ]; then
        bootstrap "$root" "$suite"
    else
        [ -d "$bases/$suite" ] || bootstrap "$bases/$suite" "$suite"
        say "copying the $suite minbase into $root"
        cp -a "$bases/$suite" "$root"
    fi
    enter_root "$root"
    no_daemons "$root"
}

# in_root ROOT COMMAND...: as root in ROOT, with a clean environment.
in_root() {
    local root="$1"
    shift
    chroot "$root" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        HOME=/root LANG=C.UTF-8 TERM="${TERM:-dumb}" DEBIAN_FRONTEND=noninteractive "$@"
}
