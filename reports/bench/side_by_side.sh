#!/usr/bin/env bash
# On an NVIDIA GPU node: gpuconform's copy-bandwidth checks side by side with NVIDIA's nvbandwidth
# (reports/bench/README.md, "Side by side with nvbandwidth"), then the suite's wall times and one
# run's phase profile, early and late framework start. Leaves table.md and side-by-side.tar.gz
# (every raw file) in $OUT (default ./side-by-side).
#   NVBANDWIDTH_SRC=/path/to/nvbandwidth reports/bench/side_by_side.sh
# NVBANDWIDTH_SRC: a source copy of https://github.com/NVIDIA/nvbandwidth (never committed here);
# it is built out of tree in a scratch folder. Without it, or without Boost program_options, the
# script says so and measures gpuconform alone. ROUNDS (default 5) alternations; SUITE_ROUNDS
# (default 5) full and --quick runs each; LATE_ROUNDS (default 3) of each with --framework-start late.
# GPUCONFORM_BUILD (default build) is the build tree; GPUCONFORM_RUN_ARGS is added to every run
# (the script's own test uses `--backend sim`). BEFORE_BUILD: a build tree of the code before a
# change; every gpuconform run is then made with it too, alternating, and the table shows both.
# Each round also runs the native layers (`--layer host,runtime,async`) with the call profile
# (GPUCONFORM_CALL_PROFILE), for where each check's time goes.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
dest="${OUT:-side-by-side}"
mkdir -p "$dest"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
rounds="${ROUNDS:-5}"
suite_rounds="${SUITE_ROUNDS:-5}"
late_rounds="${LATE_ROUNDS:-3}"
build="${GPUCONFORM_BUILD:-build}"
g="$build/gpuconform"
read -r -a extra <<< "${GPUCONFORM_RUN_ARGS:-}"
note() { echo "$*" | tee -a "$work/notes.txt"; }
wall() {  # label round command...: appends "label<TAB>round<TAB>start<TAB>end<TAB>exit" to walls.tsv
    local label=$1 round=$2 t0 t1 rc
    shift 2
    t0=$EPOCHREALTIME; "$@"; rc=$?; t1=$EPOCHREALTIME
    printf '%s\t%s\t%s\t%s\t%s\n' "$label" "$round" "$t0" "$t1" "$rc" >> "$work/walls.tsv"
}

if [ ! -x "$g" ]; then
    note "building gpuconform in $build (RelWithDebInfo, no tests)"
    cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGPUCONFORM_TESTS=OFF > "$work/build-gpuconform.log" 2>&1 &&
        cmake --build "$build" -j "$(nproc)" >> "$work/build-gpuconform.log" 2>&1 || { note "gpuconform did not build"; exit 1; }
fi
[ -e "$build/backends/libgpuconform-cuda.so" ] || note "no CUDA module in $build/backends: the CUDA figures will be missing"

# git describes a folder inside another checkout by that checkout's revision: name one only for a
# source that is its own checkout.
own_git_revision() {
    local top
    top=$(git -C "$1" rev-parse --show-toplevel 2>/dev/null) && [ "$top" = "$(cd "$1" && pwd -P)" ] &&
        git -C "$1" describe --tags --always 2>/dev/null || echo "not a git checkout of its own"
}
nvb=""
if [ -z "${NVBANDWIDTH_SRC:-}" ]; then
    note "NVBANDWIDTH_SRC is not set: gpuconform alone"
elif [ ! -f "$NVBANDWIDTH_SRC/CMakeLists.txt" ]; then
    note "NVBANDWIDTH_SRC=$NVBANDWIDTH_SRC has no CMakeLists.txt: gpuconform alone"
else
    # nvbandwidth's CMakeLists asks for Boost program_options; its absence is the usual failure.
    if cmake -S "$NVBANDWIDTH_SRC" -B "$work/nvbandwidth-build" -DCMAKE_BUILD_TYPE=Release \
            -DCMAKE_CUDA_COMPILER="${CUDACXX:-/usr/local/cuda/bin/nvcc}" > "$work/build-nvbandwidth.log" 2>&1 &&
        cmake --build "$work/nvbandwidth-build" -j "$(nproc)" >> "$work/build-nvbandwidth.log" 2>&1; then
        nvb="$work/nvbandwidth-build/nvbandwidth"
        note "nvbandwidth built from $NVBANDWIDTH_SRC ($(own_git_revision "$NVBANDWIDTH_SRC"))"
    elif grep -qi "boost" "$work/build-nvbandwidth.log"; then
        note "nvbandwidth not built: Boost program_options not found (apt-get install libboost-program-options-dev); gpuconform alone"
    else
        note "nvbandwidth did not build (build-nvbandwidth.log); gpuconform alone"
    fi
fi

nvb_tests=(-t host_to_device_memcpy_ce -t device_to_host_memcpy_ce
           -t host_to_device_bidirectional_memcpy_ce -t device_to_host_bidirectional_memcpy_ce)
# The trees each round runs: this one ("") and, with BEFORE_BUILD, the one before ("before-").
trees=("")
[ -n "${BEFORE_BUILD:-}" ] && trees+=("before-")
if [ -n "${BEFORE_BUILD:-}" ] && [ ! -x "$BEFORE_BUILD/gpuconform" ]; then
    note "BEFORE_BUILD=$BEFORE_BUILD has no gpuconform: no before figures"
    trees=("")
fi
exe_of() { if [ -z "$1" ]; then echo "$g"; else echo "$BEFORE_BUILD/gpuconform"; fi; }
for i in $(seq 1 "$rounds"); do
    if [ -n "$nvb" ]; then
        wall nvbandwidth "$i" sh -c '"$0" "$@" > "'"$work/nvbandwidth-$i.txt"'" 2>&1' "$nvb" "${nvb_tests[@]}"
    fi
    for t in "${trees[@]}"; do
        wall "${t}gpuconform-bw" "$i" "$(exe_of "$t")" run "${extra[@]}" --only async.copy.bandwidth,async.copy.bidirectional \
            --quick --quiet --json "$work/${t}bw-$i.json" > "$work/${t}bw-$i.log" 2>&1
    done
done
for i in $(seq 1 "$suite_rounds"); do
    for t in "${trees[@]}"; do
        x=$(exe_of "$t")
        wall "${t}full" "$i" "$x" run "${extra[@]}" --framework-start early --quiet --json "$work/${t}full-$i.json" \
            > "$work/${t}full-$i.log" 2>&1
        wall "${t}quick" "$i" "$x" run "${extra[@]}" --quick --framework-start early --quiet --json "$work/${t}quick-$i.json" \
            > "$work/${t}quick-$i.log" 2>&1
        GPUCONFORM_CALL_PROFILE="$work/${t}calls.jsonl" wall "${t}native" "$i" "$x" run "${extra[@]}" \
            --layer host,runtime,async --quiet --json "$work/${t}native-$i.json" > "$work/${t}native-$i.log" 2>&1
    done
done
for i in $(seq 1 "$late_rounds"); do
    wall full-late "$i" "$g" run "${extra[@]}" --framework-start late --quiet --json "$work/full-late-$i.json" > "$work/full-late-$i.log" 2>&1
    wall quick-late "$i" "$g" run "${extra[@]}" --quick --framework-start late --quiet --json "$work/quick-late-$i.json" \
        > "$work/quick-late-$i.log" 2>&1
done
# nvbandwidth names its own version on its first line.
[ -f "$work/nvbandwidth-1.txt" ] && note "nvbandwidth's own word: $(head -n 1 "$work/nvbandwidth-1.txt")"
"$g" render -f timings "$work/full-1.json" > "$work/profile-early.txt" 2>&1
[ -f "$work/full-late-1.json" ] && "$g" render -f timings "$work/full-late-1.json" > "$work/profile-late.txt" 2>&1
sample=reports/samples/ubuntu24.04-h200-2026-12-01/full.json
if [ -f "$sample" ]; then
    "$g" diff "$sample" "$work/full-1.json" > "$work/diff-sample-full.txt" 2>&1
    echo "exit $?" >> "$work/diff-sample-full.txt"
fi
if command -v nvidia-smi >/dev/null 2>&1; then
    nvidia-smi --query-gpu=index,name,driver_version,pcie.link.gen.current,pcie.link.width.current --format=csv \
        > "$work/nvidia-smi.txt" 2>&1
else
    echo "no nvidia-smi on this machine" > "$work/nvidia-smi.txt"
fi

python3 reports/bench/side_by_side_table.py "$work" > "$work/table.md"
cat "$work/table.md"
cp "$work/table.md" "$dest/"
tar -czf "$dest/side-by-side.tar.gz" -C "$work" --exclude nvbandwidth-build .
