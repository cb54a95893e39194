#!/usr/bin/env bash
# Offline validation of every Kubernetes manifest (the YAML here, the per-node Jobs that the
# nightly fan-out creates, for an NVIDIA node of 8 GPUs and an AMD node of 4, and a Node as the
# marker leaves it after a fail and after a pass: labels, annotations, taints, condition) against the API
# schemas shipped by the pinned kubernetes-models npm package, and proof that the validator
# rejects a broken manifest. Needs node and npm (the npm registry, once, for `npm ci`).
# Exit 0 pass, 1 fail, 77 skip (no node/npm).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 || {
    echo "test-kubernetes: SKIPPED: node and npm are not installed (apt-get install nodejs npm)"; exit 77; }
cd "$here/validate"
[ -d node_modules/kubernetes-models ] || npm ci --no-audit --no-fund --loglevel=error 2>&1 | grep -v EBADENGINE || true
[ -d node_modules/kubernetes-models ] || { echo "test-kubernetes: npm ci failed"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 "$here/gpuconform_kube.py" render-job gpu-node-17 nvidia 8 > "$tmp/job-nvidia.json"
python3 "$here/gpuconform_kube.py" render-job mi300-a amd 4 -- --layer host,runtime,async > "$tmp/job-amd.json"
fail=0
python3 "$here/gpuconform_kube.py" render-marks gpu-node-17 fail > "$tmp/node-fail.json"
python3 "$here/gpuconform_kube.py" render-marks gpu-node-17 pass > "$tmp/node-pass.json"
node validate.mjs "$here"/*.yaml "$tmp"/job-*.json "$tmp"/node-*.json || fail=1
if node validate.mjs testdata/broken.yaml >"$tmp/broken.log" 2>&1; then
    echo "FAILED: the validator accepted testdata/broken.yaml"; fail=1
else
    grep -q "INVALID" "$tmp/broken.log" && echo "ok: the validator rejects testdata/broken.yaml" || {
        cat "$tmp/broken.log"; fail=1; }
fi
echo "test-kubernetes: $((1 - fail)) passed, $fail failed"
exit "$fail"
