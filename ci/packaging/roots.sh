# Fresh Debian roots for the package tests (sourced by test-packages.sh and test-repository.sh).
# The caller sets `work` (a scratch folder it owns) and `mirror`, and calls `trap cleanup EXIT`.
mounted=()

say() { printf '== %(%T)T %s\n' -1 "$*" >&2; }
fail() { printf 'FAIL: %s\n' "$*" >&2; exit 1; }

cleanup() {
    local m
    for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
        m="${mounted[$i]}"
        umount -l "$m" 2>/dev/null || true
    done
    # Only remove the roots when nothing is still mounted inside them.
    if ! grep -q " $work/" /proc/mounts; then
        rm -rf "$work"
    else
        echo "$(basename "$0"): mounts left under $work; not removing it" >&2
    fi
}

# root suite: a minimal root (no compiler) with /proc, /sys and /dev from the host. With
# GPUCONFORM_PKG_BASES set (a folder the caller owns and removes), each suite is bootstrapped once
# into it and every later root of that suite is a copy: a minbase debootstrap takes minutes, a
# copy seconds, and every root still starts as the same untouched minbase.
make_root() {
    local root="$1" suite="$2" bases="${GPUCONFORM_PKG_BASES:-}"
    if [ -z "$bases" ]; then
        bootstrap "$root" "$suite"
    else
        [ -d "$bases/$suite" ] || bootstrap "$bases/$suite" "$suite"
        say "copying the $suite minbase into $root"
        cp -a "$bases/$suite" "$root"
    fi
    for d in proc sys dev; do
        mount --rbind "/$d" "$root/$d"
        mount --make-rslave "$root/$d"
        mounted+=("$root/$d")
    done
    cp /etc/resolv.conf "$root/etc/resolv.conf"
    printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"  # no daemons start in the root
    chmod +x "$root/usr/sbin/policy-rc.d"
}

bootstrap() {
    local root="$1" suite="$2"
    say "debootstrap $suite into $root"
    mkdir -p "$(dirname "$root")"
    debootstrap --variant=minbase "$suite" "$root" "$mirror" >"$root.debootstrap.log" 2>&1 \
        || { tail -20 "$root.debootstrap.log" >&2; fail "debootstrap $suite"; }
}

in_root() {
    local root="$1"
    shift
    chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
        DEBIAN_FRONTEND=noninteractive "$@"
}
