#!/bin/sh
# Renders the example outputs in reports/examples/ from a folder of reports.
#   reports/tools/make_examples.sh GPUCONFORM INPUT_DIR OUT_DIR [BASE_FILTER NEW_FILTER]
# e.g. (from the repo root, so paths in the output stay relative)
#   reports/tools/make_examples.sh build/gpuconform reports/samples reports/examples/samples \
#       'distro=Debian*12*' 'distro=Debian*13*'
# Exit statuses 1 and 3 from matrix/diff are expected here (failing cells, broken inputs).
set -u
bin=$1
in=$2
out=$3
mkdir -p "$out"
for f in terminal markdown csv json junit prometheus html; do
    case $f in
        terminal) ext=txt ;; markdown) ext=md ;; junit) ext=junit.xml ;; prometheus) ext=prom ;; *) ext=$f ;;
    esac
    "$bin" matrix "$in" --format "$f" -o "$out/matrix.$ext" 2>/dev/null
    echo "matrix --format $f: exit $?"
done
if [ $# -ge 5 ]; then
    "$bin" diff --in "$in" "$4" "$5" --tolerances "$(dirname "$0")/../examples/tolerances.yaml" \
        --format markdown -o "$out/diff.md" 2>/dev/null
    echo "diff: exit $?"
fi
