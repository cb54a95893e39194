# Sourced by ci/run-suite.sh and ci/run-tests.sh: makes sure the build dependencies are there
# (installing them with apt when run as root or with passwordless sudo), then configures and
# builds gpuconform into ./build. Prints the one apt line to run when it cannot install.
set -euo pipefail

GPUCONFORM_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
GPUCONFORM_BUILD="${GPUCONFORM_BUILD:-$GPUCONFORM_ROOT/build}"

# package: a file whose presence shows it is installed
gpuconform_needs() {
    local mode="$1" missing=() pkg probe
    local -a table=(
        "g++:/usr/bin/g++" "cmake:/usr/bin/cmake" "make:/usr/bin/make"
        "nlohmann-json3-dev:/usr/include/nlohmann/json.hpp" "libcli11-dev:/usr/include/CLI/CLI.hpp"
        "libfmt-dev:/usr/include/fmt/format.h" "libyaml-cpp-dev:/usr/include/yaml-cpp/yaml.h"
        "libsimdjson-dev:/usr/include/simdjson.h"
        "libsqlite3-dev:/usr/include/sqlite3.h" "libpq-dev:/usr/include/postgresql/libpq-fe.h"
    )
    [ "$mode" = tests ] && table+=("libgtest-dev:/usr/include/gtest/gtest.h")
    for entry in "${table[@]}"; do
        pkg="${entry%%:*}"; probe="${entry#*:}"
        { [ -e "$probe" ] || command -v "$(basename "$probe")" >/dev/null 2>&1; } || missing+=("$pkg")
    done
    printf '%s\n' "${missing[@]}"
}

# Optional extras: installed when apt can, never required (the HIP module; for the tests, pytest,
# jsonschema and a CPU torch; tests that need a missing one are skipped and say so).
# The node's GPUs by PCI vendor (display controllers only): 10de NVIDIA, 1002 AMD.
gpuconform_has_gpu() {
    local vendor="$1" dev
    for dev in /sys/bus/pci/devices/*; do
        [ "$(cat "$dev/vendor" 2>/dev/null)" = "0x$vendor" ] && case "$(cat "$dev/class" 2>/dev/null)" in 0x03*) return 0 ;; esac
    done
    return 1
}

# What the tests use beyond the build, as "package:probe": a probe is a command on PATH, a file, or
# "py:module" (importable by python3 on PATH or by /usr/bin/python3, which Debian's packages serve).
# The one list: .ci/run and a root's ci/run-tests.sh install the same, and the end-of-run summary
# (ci/test-summary.py) names the package behind a skipped test from the same probes.
k_gpuconform_test_tools=(
    "python3-pytest:py:pytest" "python3-jsonschema:py:jsonschema" "python3-torch:py:torch"
    "python3-selenium:py:selenium" "chromium:chromium" "chromium-driver:chromedriver"
    "slurm-wlm:slurmctld" "munge:munged" "iproute2:ip" "valgrind:valgrind" "prometheus:promtool"
    "prometheus-node-exporter:prometheus-node-exporter" "prometheus-pushgateway:prometheus-pushgateway"
    "clang-format:clang-format" "clang-tidy:clang-tidy" "nodejs:node" "npm:npm"
    "postgresql:pg_ctlcluster"
    "libxml2-utils:xmllint"
    # Ubuntu's slurmctld 23.11 loads the PMIx MPI plugins at start and, without libpmix, that
    # failure's errno reaches assoc_mgr_init (controller.c passes errno): with accounting_storage/none
    # it then keeps no association list and every job pends InvalidAccount. Debian 12 has no
    # candidate of this name and needs none.
    "libpmix2t64:/usr/lib/$(uname -m)-linux-gnu/pmix2/lib/libpmix.so.2"
)

gpuconform_tool_present() {
    local probe="$1"
    case "$probe" in
        py:*)
            python3 -c "import ${probe#py:}" >/dev/null 2>&1 || /usr/bin/python3 -c "import ${probe#py:}" >/dev/null 2>&1 ;;
        /*) [ -e "$probe" ] ;;
        *) command -v "$probe" >/dev/null 2>&1 || [ -x "/usr/sbin/$probe" ] ;;
    esac
}

# Optional extras: a GPU toolchain only for the node's own GPUs when running the suite (the tests
# build every module); GPUCONFORM_WITH_HIP=1 / GPUCONFORM_WITH_CUDA=1 ask for one anyway.
gpuconform_optional() {
    local mode="$1" out=()
    if [ "$mode" = tests ] || [ "${GPUCONFORM_WITH_HIP:-0}" = 1 ] || gpuconform_has_gpu 1002; then
        [ -e /usr/include/hip/hip_runtime.h ] || [ -e /opt/rocm/include/hip/hip_runtime.h ] || out+=(hipcc libamdhip64-dev)
    fi
    if { [ "${GPUCONFORM_WITH_CUDA:-0}" = 1 ] || gpuconform_has_gpu 10de; } &&
        ! command -v nvcc >/dev/null 2>&1 && [ ! -x /usr/local/cuda/bin/nvcc ]; then
        out+=(nvidia-cuda-toolkit)  # Debian non-free / Ubuntu multiverse; skipped where apt has none
    fi
    if [ "$mode" = tests ]; then
        local entry
        for entry in "${k_gpuconform_test_tools[@]}"; do
            gpuconform_tool_present "${entry#*:}" || out+=("${entry%%:*}")
        done
    fi
    printf '%s\n' "${out[@]}"
}

# True when apt has a version of package $1 to install here (not only a name others mention).
gpuconform_has_candidate() {
    local candidate
    candidate=$(apt-cache policy "$1" 2>/dev/null | awk '/Candidate:/ { print $2; exit }')
    [ -n "$candidate" ] && [ "$candidate" != "(none)" ]
}

gpuconform_apt() {
    if [ "$(id -u)" -eq 0 ]; then
        DEBIAN_FRONTEND=noninteractive apt-get "$@"
    else
        sudo -n env DEBIAN_FRONTEND=noninteractive apt-get "$@"
    fi
}

gpuconform_setup() {
    local mode="$1"
    mapfile -t missing < <(gpuconform_needs "$mode" | sed '/^$/d')
    mapfile -t optional < <(gpuconform_optional "$mode" | sed '/^$/d')
    local can_install=no
    if command -v apt-get >/dev/null 2>&1 && { [ "$(id -u)" -eq 0 ] || sudo -n true 2>/dev/null; }; then
        can_install=yes
    fi
    if [ "${#missing[@]}" -gt 0 ]; then
        if [ "$can_install" = no ]; then
            echo "gpuconform: missing packages. Install them with:" >&2
            echo "  sudo apt-get install -y ${missing[*]} ${optional[*]}" >&2
            exit 1
        fi
        echo "gpuconform: installing ${missing[*]}" >&2
        if ! { gpuconform_apt update -qq && gpuconform_apt install -y -qq --no-install-recommends "${missing[@]}" >&2; }; then
            echo "gpuconform: could not install the packages; run: sudo apt-get install -y ${missing[*]}" >&2
            exit 1
        fi
    fi
    if [ "${#optional[@]}" -gt 0 ] && [ "$can_install" = yes ] && [ "${GPUCONFORM_NO_OPTIONAL:-0}" != 1 ]; then
        # Only what this distro can install: a name other packages merely mention has no
        # candidate (Ubuntu 24.04 lists python3-torch that way), and one such name in the list
        # would make apt refuse all the others.
        local available=()
        gpuconform_apt update -qq >/dev/null 2>&1 || true
        for p in "${optional[@]}"; do
            if gpuconform_has_candidate "$p"; then
                available+=("$p")
            else
                echo "gpuconform: $p is not offered by apt here; building without it" >&2
            fi
        done
        if [ "${#available[@]}" -gt 0 ]; then
            echo "gpuconform: installing optional ${available[*]}" >&2
            if ! gpuconform_apt install -y -qq --no-install-recommends "${available[@]}" >&2; then
                # One that cannot install (a conflict, a broken dependency) must not cost the rest.
                for p in "${available[@]}"; do
                    gpuconform_apt install -y -qq --no-install-recommends "$p" >&2 ||
                        echo "gpuconform: optional $p did not install; continuing without it" >&2
                done
            fi
        fi
    fi
    local jobs
    jobs="$(nproc 2>/dev/null || echo 2)"
    # The test command always configures the tests on: a build folder that the suite command
    # configured without GoogleTest has GPUCONFORM_TESTS=OFF in its cache, which would stay.
    local tests_arg="-DGPUCONFORM_TESTS=ON" target=() what="the executable, its modules and every test"
    if [ "$mode" = suite ]; then
        target=(--target gpuconform)  # the executable and its modules, not the test suite
        what="the executable and its GPU modules"
        tests_arg=""
        [ -e /usr/include/gtest/gtest.h ] || tests_arg="-DGPUCONFORM_TESTS=OFF"
    fi
    local first=no
    [ -x "$GPUCONFORM_BUILD/gpuconform" ] || first=yes
    if [ "$first" = yes ]; then
        # Measured on 2 cores: everything, the tests and both GPU modules included, 428 s from a
        # fresh clone; the executable alone in a fresh Debian 13 root 741 s beside other builds.
        # A rebuild after a pull takes seconds to a minute.
        echo "gpuconform: first build of $what into $GPUCONFORM_BUILD with $jobs job(s);" \
            "on 2 cores this takes about 7 minutes, 12 on a busy machine" \
            "(later runs rebuild only what changed)" >&2
    else
        echo "gpuconform: bringing $GPUCONFORM_BUILD up to date ($what)" >&2
    fi
    # A compiler cache when the machine has one: paths are taken relative to the checkout, so
    # another clone of the same tree (a CI checkout) reuses what this one compiled.
    local launcher=""
    if command -v ccache >/dev/null 2>&1 && [ "${GPUCONFORM_CCACHE:-1}" != 0 ]; then
        export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$GPUCONFORM_ROOT}"
        launcher="-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache"
    fi
    local started=$SECONDS log="$GPUCONFORM_BUILD/build.log"
    mkdir -p "$GPUCONFORM_BUILD"
    # The compiler's lines go to build.log; a line a minute says it is still going; a failure
    # prints the log's end.
    (while sleep 60; do echo "gpuconform: still building ($(( (SECONDS - started) / 60 )) min so far; $log)" >&2; done) &
    local ticker=$!
    local rc=0
    { cmake -S "$GPUCONFORM_ROOT" -B "$GPUCONFORM_BUILD" -DCMAKE_BUILD_TYPE=Release $tests_arg $launcher ${GPUCONFORM_CMAKE_ARGS:-} &&
        cmake --build "$GPUCONFORM_BUILD" -j "$jobs" "${target[@]}"; } >"$log" 2>&1 || rc=$?
    kill "$ticker" 2>/dev/null; wait "$ticker" 2>/dev/null || true
    if [ "$rc" -ne 0 ]; then
        tail -n 40 "$log" >&2
        echo "gpuconform: the build failed (exit $rc); the whole log is $log" >&2
        exit "$rc"
    fi
    grep -E '^-- (gpuconform|  )' "$log" | sed 's/^-- /gpuconform: configure: /' >&2 || true
    echo "gpuconform: built in $(( SECONDS - started )) s" >&2
}
