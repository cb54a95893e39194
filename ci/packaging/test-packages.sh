#!/usr/bin/env bash
# Builds gpuconform's Debian packages per target distro and proves they install and run:
#   Debian 12: built here (this CI host is Debian 12), Debian 13: built in a debootstrap trixie root;
#   each set is installed with apt into a fresh minimal root of the same distro (no compiler), and
#   `gpuconform run --layer host,runtime`, `gpuconform run --backend sim` and the systemd service's
#   own command line run there from the installed files. Also: lintian (tags not explained in
#   lintian-expected.txt fail), `systemd-analyze verify` of the installed units, and
#   `promtool check metrics` on the service's .prom file; then the same packages from a signed apt
#   repository on localhost, upgraded from the previous release (test-repository.sh).
# Needs root, debootstrap and network to a Debian mirror. Environment:
#   GPUCONFORM_PKG_DISTROS   "bookworm trixie" (default); a subset runs only those
#   GPUCONFORM_PKG_OUT       folder that receives the .deb files and logs (default build/packages)
#   GPUCONFORM_PKG_MIRROR    Debian mirror (default http://deb.debian.org/debian)
#   GPUCONFORM_PKG_HIP       1: also build the HIP module in the build roots (hipcc pulls ~600 MB)
set -euo pipefail
src="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
here="$src/ci/packaging"
distros="${GPUCONFORM_PKG_DISTROS:-bookworm trixie}"
out="${GPUCONFORM_PKG_OUT:-$src/build/packages}"
mirror="${GPUCONFORM_PKG_MIRROR:-http://deb.debian.org/debian}"
jobs="$(nproc 2>/dev/null || echo 2)"
work="$(mktemp -d /var/tmp/gpuconform-pkg.XXXXXX)"
export GPUCONFORM_PKG_BASES="$work/bases"  # each suite bootstrapped once (roots.sh), here and in test-repository.sh
# shellcheck source=../roots.sh
. "$src/ci/roots.sh"
remove_work_on_exit=yes
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

# The packages ship stripped binaries (CPACK_STRIP_FILES), so a Release build: no debug
# information to record the build folder, and the same flags as the test build (ci/bootstrap.sh).
build_args() {
    local release="$1" unitdir="$2" hip="$3" launcher="${4:-}"
    echo "-DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=/usr -DGPUCONFORM_TESTS=OFF" \
         "-DGPUCONFORM_PACKAGE_RELEASE=$release -DGPUCONFORM_SYSTEMD_UNIT_DIR=$unitdir" \
         "-DGPUCONFORM_HIP=$hip -DGPUCONFORM_CUDA=AUTO" \
         ${launcher:+"-DCMAKE_CXX_COMPILER_LAUNCHER=$launcher -DCMAKE_CUDA_COMPILER_LAUNCHER=$launcher"}
}

# Debian 12 on this host: the host's own toolchain and libraries are Debian 12's. The build folder
# is new and sits beside the test build's (build/), at the same depth: ccache takes paths relative
# to the source (CCACHE_BASEDIR, as ci/bootstrap.sh sets it), so every object the test build of this
# checkout compiled with the same flags comes from the cache, and the packages still come from a
# build of their own. -Werror follows the same default as the test build (on under CI): this host's
# compiler is the one that build ran.
build_bookworm() {
    local dest="$1" hip=OFF
    grep -q '^VERSION_ID="12"' /etc/os-release || fail "the Debian 12 packages are built on a Debian 12 host"
    command -v hipcc >/dev/null 2>&1 && hip=ON
    local build="$src/build-package-bookworm" launcher=""
    command -v ccache >/dev/null 2>&1 && launcher=ccache
    say "building the Debian 12 packages here (HIP module: $hip${launcher:+, through ccache})"
    rm -rf "$build"
    # shellcheck disable=SC2046
    CCACHE_BASEDIR="$src" cmake -S "$src" -B "$build" \
        $(build_args "1~deb12" /lib/systemd/system "$hip" "$launcher") >"$dest/build.log" 2>&1
    CCACHE_BASEDIR="$src" cmake --build "$build" -j "$jobs" >>"$dest/build.log" 2>&1 \
        || { tail -30 "$dest/build.log"; fail "build"; }
    (cd "$build" && cpack -G DEB >>"$dest/build.log" 2>&1) || { tail -30 "$dest/build.log"; fail "cpack"; }
    cp "$build"/*.deb "$dest/"
    rm -rf "$build"
}

# Debian 13 in its own root, from a copy of the tracked source files.
build_trixie() {
    local dest="$1" root="$work/build-trixie" hip=OFF extra=""
    make_root "$root" trixie
    if [ "${GPUCONFORM_PKG_HIP:-0}" = 1 ]; then
        hip=ON
        extra="hipcc libamdhip64-dev"
    fi
    say "installing the build dependencies into the trixie root (HIP module: $hip)"
    # shellcheck disable=SC2086
    in_root "$root" sh -c "apt-get update -qq && apt-get install -y -qq --no-install-recommends \
        g++ cmake make ccache file dpkg-dev nlohmann-json3-dev libcli11-dev libfmt-dev libyaml-cpp-dev libsimdjson-dev libsqlite3-dev libpq-dev $extra" \
        >"$dest/build.log" 2>&1 || { tail -30 "$dest/build.log"; fail "build dependencies"; }
    # The root's own compiler cache, kept across runs: its source is always /src, so it serves
    # every checkout.
    local cache="${XDG_CACHE_HOME:-$HOME/.cache}/gpuconform/ccache-packages-trixie"
    mkdir -p "$root/src" "$root/ccache" "$cache"
    mnt --bind "$cache" "$root/ccache"
    git -C "$src" ls-files -z | (cd "$src" && xargs -0 cp --no-dereference --parents -t "$root/src")  # test data holds symlinks, as sysfs does
    say "building the Debian 13 packages in the trixie root"
    # The copy has no .git, so the commit for `gpuconform version` comes from here.
    # shellcheck disable=SC2046
    in_root "$root" sh -c "export CCACHE_DIR=/ccache CCACHE_BASEDIR=/src CCACHE_MAXSIZE=2G; \
        cmake -S /src -B /src/build $(build_args "1~deb13" /usr/lib/systemd/system "$hip" ccache) -DGPUCONFORM_WERROR=OFF \
        -DGPUCONFORM_GIT_DESCRIBE=$(git -C "$src" describe --always --dirty --abbrev=12) \
        && cmake --build /src/build -j $jobs && cd /src/build && cpack -G DEB" >>"$dest/build.log" 2>&1 \
        || { tail -30 "$dest/build.log"; fail "build in the trixie root"; }
    cp "$root"/src/build/*.deb "$dest/"
}

lint() {
    local dest="$1" expected="$here/lintian-expected.txt" unexplained
    say "lintian ($(lintian --version))"
    lintian --no-tag-display-limit --info "$dest"/*.deb >"$dest/lintian.txt" 2>&1 || true
    # Every E:/W: tag must be explained in lintian-expected.txt ("tag: reason").
    unexplained="$(grep -E '^[EW]: ' "$dest/lintian.txt" | awk '{print $3}' | tr -d ':' | sort -u |
        while read -r tag; do grep -q "^$tag:" "$expected" || echo "$tag"; done)"
    grep -E '^[EW]: ' "$dest/lintian.txt" >&2 || true
    [ -z "$unexplained" ] || fail "lintian tags not explained in ci/packaging/lintian-expected.txt: $unexplained"
}

# Install the packages into a fresh root with no compiler and run from the installed files.
install_and_run() {
    local suite="$1" dest="$2" root="$work/install-$1"
    make_root "$root" "$suite"
    mkdir -p "$root/debs"
    cp "$dest"/gpuconform_*.deb "$dest"/gpuconform-torch_*.deb "$root/debs/"
    ls "$dest"/gpuconform-cuda_*.deb >/dev/null 2>&1 && cp "$dest"/gpuconform-cuda_*.deb "$root/debs/"
    say "apt install ./gpuconform_*.deb in a fresh $suite root"
    in_root "$root" sh -c "apt-get update -qq && apt-get install -y -qq --no-install-recommends /debs/*.deb" \
        >"$dest/install.log" 2>&1 || { tail -30 "$dest/install.log"; fail "apt install in $suite"; }
    for c in cc gcc g++ c++ clang nvcc hipcc cmake; do
        ! in_root "$root" sh -c "command -v $c" >/dev/null || fail "$c is present in the $suite install root"
    done
    in_root "$root" gpuconform version | tee "$dest/version.txt"
    grep -q "^package 0" "$dest/version.txt" || fail "gpuconform version does not tell the package version"
    [ -f "$root/usr/share/man/man1/gpuconform.1.gz" ] || fail "no man page"
    [ -f "$root/usr/share/bash-completion/completions/gpuconform" ] || fail "no bash completion"
    [ -f "$root/usr/lib/tmpfiles.d/gpuconform.conf" ] || fail "no tmpfiles retention rule"
    dpkg-query --admindir="$root/var/lib/dpkg" -W -f='${Conffiles}\n' gpuconform | grep -q /etc/gpuconform/options \
        || fail "/etc/gpuconform/options is not a conffile"
    # The conffile an operator edits reads as the nightly run reads it: the built-in layer, then it.
    in_root "$root" gpuconform profile --profile /etc/gpuconform/profile.yaml >"$dest/profile.json" \
        || fail "gpuconform profile refuses the shipped /etc/gpuconform/profile.yaml"
    grep -q '"source": "/etc/gpuconform/profile.yaml"' "$dest/profile.json" || fail "profile.yaml is not a layer"

    local rc
    say "gpuconform run --layer host,runtime ($suite root)"
    set +e
    in_root "$root" gpuconform run --layer host,runtime --json /tmp/host-runtime.json >"$dest/host-runtime.log" 2>&1
    rc=$?
    set -e
    # No GPU in CI: the runtime layer may fail or err (exit 1), but the run must complete.
    [ "$rc" -le 1 ] || { cat "$dest/host-runtime.log"; fail "host,runtime exit status $rc"; }
    cp "$root/tmp/host-runtime.json" "$dest/"
    say "gpuconform run --backend sim ($suite root)"
    set +e
    in_root "$root" gpuconform run --backend sim --json /tmp/sim.json >"$dest/sim.log" 2>&1
    rc=$?
    set -e
    [ "$rc" -le 1 ] || { tail -40 "$dest/sim.log"; fail "the sim run exit status $rc in $suite"; }
    cp "$root/tmp/sim.json" "$dest/"
    check_report "$dest/sim.json" sim

    service_run "$suite" "$dest" "$root"
}

# Runs the service's ExecStart with its EnvironmentFile, as systemd would (no systemd in the root).
service_run() {
    local suite="$1" dest="$2" root="$3" unit exec_start rc
    unit="$(ls "$root"/lib/systemd/system/gpuconform.service "$root"/usr/lib/systemd/system/gpuconform.service 2>/dev/null | head -1)"
    [ -n "$unit" ] || fail "gpuconform.service is not installed"
    say "systemd-analyze verify ($suite units)"
    # The minimal root has no systemd of its own (no sysinit.target), so the installed units are
    # verified against this host's systemd, with ExecStart pointing at the installed script.
    mkdir -p "$work/units-$suite"
    cp "$unit" "$(dirname "$unit")/gpuconform.timer" "$work/units-$suite/"
    sed -i "s|^ExecStart=|ExecStart=$root|" "$work/units-$suite/gpuconform.service"
    systemd-analyze verify --man=no "$work/units-$suite/gpuconform.service" "$work/units-$suite/gpuconform.timer" \
        >"$dest/systemd-verify.log" 2>&1 || { cat "$dest/systemd-verify.log"; fail "systemd-analyze verify"; }
    exec_start="$(sed -n 's/^ExecStart=//p' "$unit")"
    mkdir -p "$root/var/lib/prometheus/node-exporter"
    say "the service's command line in the $suite root: $exec_start"
    set +e
    in_root "$root" sh -c "set -a; . /etc/gpuconform/options; set +a; STATE_DIRECTORY=/var/lib/gpuconform $exec_start" \
        >"$dest/service.log" 2>&1
    rc=$?
    set -e
    [ "$rc" -le 1 ] || { cat "$dest/service.log"; fail "the service's command exit status $rc"; }
    local reports
    reports=("$root"/var/lib/gpuconform/gpuconform-*.json)
    [ -f "${reports[0]}" ] || fail "the service wrote no report into /var/lib/gpuconform"
    check_report "${reports[0]}" service
    local prom="$root/var/lib/prometheus/node-exporter/gpuconform.prom"
    [ -s "$prom" ] || fail "the service wrote no $prom"
    ! ls "$root"/var/lib/prometheus/node-exporter/.gpuconform.prom.* >/dev/null 2>&1 || fail "temporary .prom left behind"
    cp "$prom" "$dest/gpuconform.prom"
    say "promtool check metrics ($suite service output)"
    promtool check metrics <"$prom" || fail "promtool check metrics"
    grep -q '^gpuconform_last_run_timestamp_seconds ' "$prom" || fail "no gpuconform_last_run_timestamp_seconds"
}

check_report() {
    python3 - "$1" "$2" <<'PY'
import json, sys
path, what = sys.argv[1], sys.argv[2]
r = json.load(open(path))
assert r["tool"]["name"] == "gpuconform", "not a gpuconform report"
assert r["results"], "no results"
if what == "sim":
    # The installed module, from the installed layout, ran the device checks. Their verdicts are
    # timing checks of a CPU simulation (ctest judges those); a loaded CI host can move them.
    sim = [b for b in r["backends"] if b["name"] == "sim"]
    assert sim and sim[0]["loaded"], f"sim module did not load: {sim}"
    assert sim[0]["module_path"].startswith("/usr/lib/") and "/gpuconform/" in sim[0]["module_path"], sim[0]
    ran = [x for x in r["results"] if x["layer"] == "async" and x["status"] != "skip"]
    assert ran, "no async check ran on the sim backend"
print(f"{path}: {len(r['results'])} results, exit status {r['run']['exit_status']}")
PY
}

mkdir -p "$out"
start=$(date +%s)
for suite in $distros; do
    dest="$out/$suite"
    rm -rf "$dest"
    mkdir -p "$dest"
    t0=$(date +%s)
    case "$suite" in
        bookworm) build_bookworm "$dest" ;;
        trixie) build_trixie "$dest" ;;
        *) fail "unknown distro $suite (bookworm, trixie)" ;;
    esac
    ls -l "$dest"/*.deb >&2
    for deb in "$dest"/*.deb; do
        dpkg-deb -f "$deb" Package Version Depends
    done >"$dest/control.txt"
    cat "$dest/control.txt" >&2
    lint "$dest"
    install_and_run "$suite" "$dest"
    "$here/test-repository.sh" "$suite" "$dest"
    say "$suite: packages built, installed and run in $(($(date +%s) - t0)) s"
done
say "all done in $(($(date +%s) - start)) s; packages and logs in $out"
