#!/usr/bin/env bash
# On a GPU node without apt (the lent H200: Ubuntu 24.04, cmake, g++ 13, dpkg-deb): builds the
# packages from this tree with CPack (or takes carried ones from $GPUCONFORM_DEBS), unpacks the
# core, CUDA and PyTorch packages with dpkg-deb -x, and runs the suite from the unpacked files
# only. Everything goes into ${OUT:-package-run}/package-run.tar.gz (report, logs, control fields).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
out="${OUT:-package-run}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
res="$work/package-run"
mkdir -p "$res" "$out"
step() { echo "== $*" | tee -a "$res/steps.log"; }

if [ -n "${GPUCONFORM_DEBS:-}" ]; then
    step "using carried packages from $GPUCONFORM_DEBS"
    cp "$GPUCONFORM_DEBS"/*.deb "$work/"
else
    step "building the packages (CUDA module on)"
    { time { cmake -S . -B "$work/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_INSTALL_PREFIX=/usr \
                -DGPUCONFORM_TESTS=OFF -DGPUCONFORM_CUDA=ON -DGPUCONFORM_HIP=OFF -DGPUCONFORM_PACKAGE_RELEASE=1~ubuntu24.04 \
                -DGPUCONFORM_SYSTEMD_UNIT_DIR=/usr/lib/systemd/system &&
             cmake --build "$work/build" -j "$(nproc)" && (cd "$work/build" && cpack -G DEB); }; } >"$res/build.log" 2>&1
    echo "build rc $?" | tee -a "$res/steps.log"
    cp "$work"/build/*.deb "$work/" 2>/dev/null
fi
root="$work/root"
for deb in "$work"/gpuconform_*.deb "$work"/gpuconform-cuda_*.deb "$work"/gpuconform-torch_*.deb; do
    [ -f "$deb" ] || { step "missing package $deb"; continue; }
    dpkg-deb -f "$deb" Package Version Architecture Depends >>"$res/control.txt"
    echo >>"$res/control.txt"
    dpkg-deb -x "$deb" "$root"
done
find "$root" -type f | sed "s|^$root||" | sort >"$res/files.txt"
g="$root/usr/bin/gpuconform"
step "gpuconform version (unpacked)"
"$g" version >"$res/version.txt" 2>&1
cat "$res/version.txt" | tee -a "$res/steps.log"
# The unpacked tree alone: no build folder on the module path, modules found beside the executable's prefix.
unset GPUCONFORM_MODULE_DIR
step "suite from the unpacked packages"
{ time "$g" run --quick --json "$res/package-run.json"; } >"$res/package-run.log" 2>&1
echo "run rc $?" | tee -a "$res/steps.log"
grep '"module_path"' "$res/package-run.json" >>"$res/steps.log" 2>/dev/null
"$g" render "$res/package-run.json" --format prometheus --output "$res/package-run.prom" 2>>"$res/steps.log"
"$g" render "$res/package-run.json" --format junit --output "$res/package-run.junit.xml" 2>>"$res/steps.log"
tail -n 15 "$res/package-run.log" >>"$res/steps.log"
tar -C "$work" -czf "$out/package-run.tar.gz" package-run
step "done: $out/package-run.tar.gz"
