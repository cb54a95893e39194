#!/usr/bin/env bash
# Builds gpuconform and runs every test: GoogleTest (host, runtime, sim-backed device checks, CLI
# end to end), pytest (framework layer logic), the roll-up and its browser test.
# Arguments go to ctest; e.g. ci/run-tests.sh -L faults
source "$(dirname "${BASH_SOURCE[0]}")/bootstrap.sh"
gpuconform_setup tests
cd "$GPUCONFORM_BUILD"
exec ctest --output-on-failure -j "$(nproc 2>/dev/null || echo 2)" "$@"
