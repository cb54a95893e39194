#!/usr/bin/env bash
# The upgrade-readiness checks on a GPU node (e.g. the H200 with CUDA 13.0 at /usr/local/cuda):
# every nvcc compiles and runs the <cmath> probe, the next boot's kernel module, the driver against
# every CUDA runtime. Expects a built tree at build/; writes into $OUT (default ./toolchain-run)
# one tarball, toolchain-run.tar.gz, with the report, the terminal output and the timings.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
out="${OUT:-toolchain-run}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
g=build/gpuconform
export PATH="/usr/local/cuda/bin:$PATH"
{
    echo "date: $(date -u +%FT%TZ)"
    echo "nvcc: $(command -v nvcc)"; nvcc --version | tail -2
    echo "c++: $(command -v c++)"; c++ --version | head -1
    nvidia-smi --query-gpu=index,name,driver_version --format=csv
} > "$work/node.txt" 2>&1
{ time "$g" run --layer host --only 'host.toolchain.*,host.upgrade.*' --json "$work/toolchain.json"; } \
    > "$work/toolchain.log" 2>&1
echo "exit status: $?" >> "$work/toolchain.log"
# --quick must skip the compile probes and say so.
"$g" run --layer host --only 'host.toolchain.*' --quick --json "$work/toolchain-quick.json" > "$work/toolchain-quick.log" 2>&1
mkdir -p "$out"
tar czf "$out/toolchain-run.tar.gz" -C "$work" .
cat "$work/toolchain.log"
