#!/usr/bin/env bash
# Builds gpuconform and runs every test: GoogleTest (host, runtime, sim-backed device checks, CLI
# end to end), pytest (framework layer logic), the roll-up and its browser test, Slurm, lint.
# Arguments go to ctest; e.g. ci/run-tests.sh -L faults
# Exit status: ctest's (non-zero when a test failed or when no test ran at all).
source "$(dirname "${BASH_SOURCE[0]}")/bootstrap.sh"
gpuconform_setup tests
cd "$GPUCONFORM_BUILD"
junit="$GPUCONFORM_BUILD/Testing/ctest-junit.xml"
rm -f "$junit"
rc=0
ctest --output-on-failure --no-tests=error --output-junit "$junit" -j "$(nproc 2>/dev/null || echo 2)" "$@" || rc=$?
# What ran, what was skipped and why, and the packages that would run the skipped ones.
# Only what apt here can install: Debian 12 offers no libpmix2t64 and needs none.
mapfile -t still_missing < <(gpuconform_optional tests | sed '/^$/d' |
    while read -r package; do gpuconform_has_candidate "$package" && echo "$package"; done)
if command -v python3 >/dev/null 2>&1 && [ -s "$junit" ]; then
    GPUCONFORM_MISSING="${still_missing[*]}" python3 "$GPUCONFORM_ROOT/ci/test-summary.py" "$junit" || true
fi
exit "$rc"
