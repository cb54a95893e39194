#!/usr/bin/env bash
# Bounded libFuzzer runs over the report reader and the profile reader, seeded with the real
# samples and the committed corpus (native_tests/fuzz/README.md). A crash fails the script and
# leaves its input under build-fuzz/crashes/; commit it to native_tests/fuzz/corpus/<harness>/
# so ctest replays it forever. Usage: ci/fuzz.sh [seconds per harness, default 30]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-${GPUCONFORM_FUZZ_SECONDS:-30}}
build=${GPUCONFORM_FUZZ_BUILD:-build-fuzz}
command -v clang++ >/dev/null || { echo "fuzz: clang++ not installed" >&2; exit 2; }
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S . -B "$build" -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo "${launcher[@]}" \
    -DGPUCONFORM_FUZZ=ON -DGPUCONFORM_CUDA=OFF -DGPUCONFORM_HIP=OFF >/dev/null
cmake --build "$build" -j "$(nproc)" --target fuzz_report fuzz_profile >/dev/null
mkdir -p "$build/crashes"
status=0
for harness in report profile; do
    seeds=(native_tests/fuzz/corpus/$harness)
    if [ $harness = report ]; then seeds+=(reports/samples native_tests/data/reports); else seeds+=(probes/profiles); fi
    work="$build/corpus-$harness"
    mkdir -p "$work"
    exe="$build/native_tests/fuzz/fuzz_$harness"
    [ -x "$exe" ] || { echo "fuzz: $exe was not built" >&2; exit 2; }
    echo "fuzz_$harness: ${seconds}s"
    if ! "$exe" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="$build/crashes/$harness-" "$work" "${seeds[@]}" >"$build/fuzz-$harness.log" 2>&1; then
        tail -40 "$build/fuzz-$harness.log" >&2
        echo "fuzz_$harness found a crash: $(ls "$build"/crashes/$harness-* 2>/dev/null)" >&2
        status=1
    fi
    grep -E "stat::number_of_executed_units|cov:" "$build/fuzz-$harness.log" | tail -2
done
exit $status
