#!/usr/bin/env bash
# One distro's packages installed from a signed apt repository on localhost, as a fleet installs
# them, in a fresh root of that distro (test-packages.sh calls it after building them):
#   1. the previous release is published with packaging/repository/publish.sh and a throwaway
#      signing key: the same packages one Debian revision back, whose shipped
#      /etc/gpuconform/options differs, so the upgrade meets a changed conffile
#   2. the root adds the repository with signed-by and installs gpuconform (and gpuconform-cuda
#      where it was built); a repository whose index changed after signing is refused
#   3. the operator edits /etc/gpuconform/options and enables the nightly timer
#   4. the new release is published; `apt-get upgrade` as unattended fleets run it
#      (--force-confdef --force-confold) keeps the edit, puts the new file beside it
#      (.dpkg-dist), keeps the timer enabled, and the upgraded gpuconform runs
#   5. purge leaves nothing of gpuconform under /etc, /usr and /var/lib
# usage: test-repository.sh SUITE DEB_FOLDER   (root, debootstrap, reprepro, gnupg, systemctl)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
src="$(cd "$here/../.." && pwd)"
suite="${1:?usage: test-repository.sh SUITE DEB_FOLDER}"
debs="${2:?usage: test-repository.sh SUITE DEB_FOLDER}"
mirror="${GPUCONFORM_PKG_MIRROR:-http://deb.debian.org/debian}"
work="$(mktemp -d /var/tmp/gpuconform-repo.XXXXXX)"
server=""
# shellcheck source=../roots.sh
. "$src/ci/roots.sh"
remove_work_on_exit=yes
stop_server() { [ -z "$server" ] || kill "$server" 2>/dev/null || true; }
trap 'stop_server; cleanup' EXIT
trap 'exit 130' INT TERM HUP
t0=$(date +%s)
log="$debs/repository.log"
: >"$log"

# The packages this test publishes: the core, the CUDA module where built, the PyTorch layer.
new=("$debs"/gpuconform_*.deb "$debs"/gpuconform-torch_*.deb)
ls "$debs"/gpuconform-cuda_*.deb >/dev/null 2>&1 && new+=("$debs"/gpuconform-cuda_*.deb)
version="$(dpkg-deb -f "${new[0]}" Version)"
previous="${version%%-*}-0~previous"
dpkg --compare-versions "$previous" lt "$version" || fail "$previous does not sort before $version"

# The previous release: each package re-versioned, depending on its own previous core, and the
# core's options file as an older release would have shipped it.
mkdir -p "$work/previous"
old=()
for deb in "${new[@]}"; do
    tree="$work/unpacked"
    rm -rf "$tree"
    dpkg-deb -R "$deb" "$tree"
    sed -i "s/$version/$previous/g" "$tree/DEBIAN/control"
    if [ -f "$tree/etc/gpuconform/options" ]; then
        echo "# (as shipped by the previous release)" >>"$tree/etc/gpuconform/options"
        if [ -f "$tree/DEBIAN/md5sums" ] && grep -q ' etc/gpuconform/options$' "$tree/DEBIAN/md5sums"; then
            sum="$(cd "$tree" && md5sum etc/gpuconform/options)"
            sed -i "s|^.* etc/gpuconform/options\$|$sum|" "$tree/DEBIAN/md5sums"
        fi
    fi
    old+=("$work/previous/$(basename "$deb")")
    dpkg-deb --root-owner-group -b "$tree" "${old[-1]}" >>"$log"
done

say "a throwaway signing key"
export GNUPGHOME="$work/gnupg"
mkdir -m 700 "$GNUPGHOME"
gpg --batch --passphrase '' --quick-gen-key "gpuconform CI repository <ci@gpuconform.invalid>" ed25519 sign 1d \
    >>"$log" 2>&1
key="$(gpg --batch --with-colons --list-keys 2>/dev/null | awk -F: '/^fpr/ {print $10; exit}')"
repo="$work/repo"
say "publishing $previous into a signed $suite repository"
"$src/packaging/repository/publish.sh" --repo "$repo" --codename "$suite" --sign-with "$key" "${old[@]}" >>"$log"
[ -f "$repo/dists/$suite/InRelease" ] || fail "no signed InRelease"

# Served as static files on a free port of localhost (the roots share this host's network).
python3 - "$work" <<'PY' >>"$log" 2>&1 &
import functools, http.server, sys
work = sys.argv[1]
handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=work)
server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
with open(work + "/port.tmp", "w") as f:
    f.write(str(server.server_address[1]))
import os; os.rename(work + "/port.tmp", work + "/port")
server.serve_forever()
PY
server=$!
for _ in $(seq 50); do [ -f "$work/port" ] && break; sleep 0.1; done
[ -f "$work/port" ] || fail "the repository's web server did not start"
url="http://127.0.0.1:$(cat "$work/port")"

root="$work/root"
make_root "$root" "$suite"
mkdir -p "$root/etc/apt/keyrings"
cp "$repo/gpuconform-archive-keyring.gpg" "$root/etc/apt/keyrings/gpuconform.gpg"
sources="deb [signed-by=/etc/apt/keyrings/gpuconform.gpg] $url/repo $suite main"
echo "$sources" >"$root/etc/apt/sources.list.d/gpuconform.list"

# A copy of the repository whose package index was changed after signing: apt must refuse it.
cp -a "$repo" "$work/tampered"
sed -i '0,/^Package: gpuconform$/s//Package: gpuconform\nX-Tampered: yes/' \
    "$work/tampered/dists/$suite/main/binary-amd64/Packages"
sed -i "s|^Description: .*|Description: changed after signing|" "$work/tampered/dists/$suite/InRelease"
echo "deb [signed-by=/etc/apt/keyrings/gpuconform.gpg] $url/tampered $suite main" >"$work/tampered.list"
cp "$work/tampered.list" "$root/tmp/tampered.list"
say "apt refuses the repository changed after signing"
if in_root "$root" apt-get update -o Dir::Etc::sourcelist=/tmp/tampered.list -o Dir::Etc::sourceparts=- \
    >"$work/tampered.log" 2>&1; then
    cat "$work/tampered.log" >&2
    fail "apt accepted a repository whose InRelease was changed after signing"
fi
grep -Eq 'BADSIG|signature|not signed' "$work/tampered.log" || { cat "$work/tampered.log" >&2; fail "apt failed for another reason"; }
cat "$work/tampered.log" >>"$log"

wanted="gpuconform gpuconform-torch"
[ ${#new[@]} -eq 3 ] && wanted="$wanted gpuconform-cuda"
say "apt install $wanted from the repository ($suite root)"
# shellcheck disable=SC2086
in_root "$root" sh -c "apt-get update -qq && apt-get install -y -qq --no-install-recommends $wanted" >>"$log" 2>&1 \
    || { tail -30 "$log" >&2; fail "install from the repository"; }
installed() { dpkg-query --admindir="$root/var/lib/dpkg" -W -f='${Version}' "$1"; }
for p in $wanted; do
    [ "$(installed "$p")" = "$previous" ] || fail "$p is $(installed "$p"), not $previous"
done

say "the operator edits /etc/gpuconform/options and enables the timer"
sed -i 's|^GPUCONFORM_OPTIONS=.*|GPUCONFORM_OPTIONS="--quick --layer host,runtime --profile /etc/gpuconform/profile.yaml"|' \
    "$root/etc/gpuconform/options"
edited="$(md5sum <"$root/etc/gpuconform/options")"
systemctl --root="$root" enable gpuconform.timer >>"$log" 2>&1
[ -L "$root/etc/systemd/system/timers.target.wants/gpuconform.timer" ] || fail "the timer was not enabled"

say "publishing $version; apt-get upgrade"
"$src/packaging/repository/publish.sh" --repo "$repo" --codename "$suite" --sign-with "$key" "${new[@]}" >>"$log"
in_root "$root" sh -c "apt-get update -qq && apt-get upgrade -y -qq -o Dpkg::Options::=--force-confdef \
    -o Dpkg::Options::=--force-confold" >>"$log" 2>&1 || { tail -30 "$log" >&2; fail "apt-get upgrade"; }
for p in $wanted; do
    [ "$(installed "$p")" = "$version" ] || fail "$p is $(installed "$p") after the upgrade, not $version"
done
[ "$(md5sum <"$root/etc/gpuconform/options")" = "$edited" ] || fail "the upgrade replaced the edited options"
[ -f "$root/etc/gpuconform/options.dpkg-dist" ] || fail "the new release's options file is not beside the edit"
[ -L "$root/etc/systemd/system/timers.target.wants/gpuconform.timer" ] || fail "the upgrade disabled the timer"
in_root "$root" gpuconform version | grep -q "^package $version" || fail "gpuconform version is not $version"
set +e
in_root "$root" sh -c "set -a; . /etc/gpuconform/options; set +a; gpuconform run \$GPUCONFORM_OPTIONS --json /tmp/after.json" \
    >>"$log" 2>&1
rc=$?
set -e
[ "$rc" -le 1 ] || { tail -30 "$log" >&2; fail "the upgraded gpuconform with the edited options: exit status $rc"; }

say "apt purge"
# shellcheck disable=SC2086
in_root "$root" apt-get purge -y -qq $wanted >>"$log" 2>&1 || fail "apt purge"
left="$(cd "$root" && find etc usr var/lib -path '*gpuconform*' ! -path 'etc/apt/*' ! -path 'var/lib/apt/*' 2>/dev/null | head -20)"
[ -z "$left" ] || fail "purge left: $left"
say "$suite: signed repository, install, upgrade from $previous keeping the operator's edit and the timer, purge: $(($(date +%s) - t0)) s"
