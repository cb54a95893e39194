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
        "libgtest-dev:/usr/include/gtest/gtest.h"
    )
    for entry in "${table[@]}"; do
        pkg="${entry%%:*}"; probe="${entry#*:}"
        { [ -e "$probe" ] || command -v "$(basename "$probe")" >/dev/null 2>&1; } || missing+=("$pkg")
    done
    printf '%s\n' "${missing[@]}"
}

# Optional extras: installed when apt can, never required (the HIP module; for the tests, pytest,
# jsonschema and a CPU torch; tests that need a missing one are skipped and say so).
gpuconform_optional() {
    local mode="$1" out=()
    [ -e /usr/include/hip/hip_runtime.h ] || [ -e /opt/rocm/include/hip/hip_runtime.h ] || out+=(hipcc libamdhip64-dev)
    if [ "$mode" = tests ]; then
        python3 -c 'import pytest' >/dev/null 2>&1 || /usr/bin/python3 -c 'import pytest' >/dev/null 2>&1 || out+=(python3-pytest)
        python3 -c 'import jsonschema' >/dev/null 2>&1 || /usr/bin/python3 -c 'import jsonschema' >/dev/null 2>&1 || out+=(python3-jsonschema)
        python3 -c 'import torch' >/dev/null 2>&1 || /usr/bin/python3 -c 'import torch' >/dev/null 2>&1 || out+=(python3-torch)
        [ "${GPUCONFORM_BROWSER_TESTS:-0}" = 1 ] && ! command -v chromium >/dev/null 2>&1 && out+=(chromium)
    fi
    printf '%s\n' "${out[@]}"
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
        # Only what this distro packages (e.g. python3-torch is not in every release).
        local available=()
        gpuconform_apt update -qq >/dev/null 2>&1 || true
        for p in "${optional[@]}"; do
            apt-cache show "$p" >/dev/null 2>&1 && available+=("$p")
        done
        if [ "${#available[@]}" -gt 0 ]; then
            echo "gpuconform: installing optional ${available[*]}" >&2
            gpuconform_apt install -y -qq --no-install-recommends "${available[@]}" >&2 || \
                echo "gpuconform: optional packages did not install; continuing without them" >&2
        fi
    fi
    local jobs
    jobs="$(nproc 2>/dev/null || echo 2)"
    cmake -S "$GPUCONFORM_ROOT" -B "$GPUCONFORM_BUILD" -DCMAKE_BUILD_TYPE=Release ${GPUCONFORM_CMAKE_ARGS:-} >&2
    cmake --build "$GPUCONFORM_BUILD" -j "$jobs" >&2
}
