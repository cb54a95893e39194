#!/usr/bin/env bash
# Builds gpuconform if needed (installing what is missing when it can) and runs the suite.
# Arguments go to `gpuconform run`; e.g. ci/run-suite.sh --quick --json /var/lib/gpuconform/
source "$(dirname "${BASH_SOURCE[0]}")/bootstrap.sh"
gpuconform_setup suite
exec "$GPUCONFORM_BUILD/gpuconform" run "$@"
