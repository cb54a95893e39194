#!/usr/bin/env bash
# Distro-upgrade validation (e.g. Debian 12 -> 13) on one node:
#   ci/upgrade/validate-upgrade.sh before   # on the old release: writes upgrade/before.json
#   ...upgrade the node, reboot...
#   ci/upgrade/validate-upgrade.sh after    # on the new release: writes upgrade/after.json and diffs
# Exit status of `after` is the diff's: 1 when a check got worse or a key figure regressed
# beyond noise, with the overrides in reports/examples/tolerances.yaml (or $GPUCONFORM_TOLERANCES).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
dir="${GPUCONFORM_UPGRADE_DIR:-$root/upgrade}"
mkdir -p "$dir"
case "${1:-}" in
    before|after)
        # Same checks, full mode, both times; a failing check must not stop the diff.
        "$root/ci/run-suite.sh" --json "$dir/$1.json" || true
        if [ "$1" = after ]; then
            exec "$root/build/gpuconform" diff --tolerances "${GPUCONFORM_TOLERANCES:-$root/reports/examples/tolerances.yaml}" \
                "$dir/before.json" "$dir/after.json"
        fi
        ;;
    *)
        echo "usage: $0 before|after" >&2
        exit 2
        ;;
esac
