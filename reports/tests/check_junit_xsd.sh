#!/usr/bin/env bash
# gpuconform's JUnit XML against the Jenkins xUnit plugin's junit-10.xsd with a real XSD validator
# (xmllint --schema, Debian's libxml2-utils): `render -f junit` of every committed sample report,
# `matrix -f junit` of them all, and the `--junit` file of a short simulated `gpuconform run`
# together with `render -f junit` of that run's report.
# The schema: https://github.com/jenkinsci/xunit-plugin/blob/ae25da5089d4f94ac6c4669bf736e4d416cc4665/src/main/resources/org/jenkinsci/plugins/xunit/types/model/xsd/junit-10.xsd
# (MIT, its last change; time of suites at most 3 decimals). No Debian package ships it, so it is
# read from $GPUCONFORM_JUNIT_XSD or reports/tests/data/junit-10.xsd; without it the test is
# skipped and says so.
# usage: check_junit_xsd.sh GPUCONFORM SOURCE_DIR      Exit 0 valid, 1 invalid, 77 skipped.
set -euo pipefail
gpuconform=$1
src=$2
xsd=${GPUCONFORM_JUNIT_XSD:-$src/reports/tests/data/junit-10.xsd}
command -v xmllint >/dev/null || { echo "SKIPPED: no xmllint (apt-get install libxml2-utils)"; exit 77; }
[ -f "$xsd" ] || { echo "SKIPPED: no junit-10.xsd at $xsd (set GPUCONFORM_JUNIT_XSD; source in this script's header)"; exit 77; }
work=$(mktemp -d "${TMPDIR:-/tmp}/gpuconform-junit.XXXXXX")
trap 'rm -rf "$work"' EXIT

files=()
n=0
while IFS= read -r report; do
    n=$((n + 1))
    "$gpuconform" render "$report" --format junit --output "$work/sample-$n.xml"
    files+=("$work/sample-$n.xml")
done < <(find "$src/reports/samples" -name '*.json' -print | sort)
[ "$n" -gt 0 ] || { echo "no sample reports under $src/reports/samples"; exit 1; }
"$gpuconform" matrix "$src/reports/samples" --format junit --output "$work/matrix.xml" || true
[ -s "$work/matrix.xml" ] && files+=("$work/matrix.xml")

rc=0
"$gpuconform" run --backend sim --quick --layer host,runtime,async --only 'host.*,runtime.*,async.launch.returns_early' \
    --json "$work/run.json" --junit "$work/run.xml" >"$work/run.log" 2>&1 || rc=$?
[ "$rc" -le 1 ] && [ -s "$work/run.xml" ] || { echo "the simulated run wrote no JUnit (exit $rc)"; cat "$work/run.log"; exit 1; }
"$gpuconform" render "$work/run.json" --format junit --output "$work/run-render.xml"
files+=("$work/run.xml" "$work/run-render.xml")

invalid=0
for f in "${files[@]}"; do
    xmllint --noout --schema "$xsd" "$f" 2>"$work/xmllint.err" || { cat "$work/xmllint.err"; invalid=$((invalid + 1)); }
done
echo "junit-10.xsd: ${#files[@]} files ($n sample reports, the matrix, a simulated run's --junit and its render): $invalid invalid"
[ "$invalid" -eq 0 ]
