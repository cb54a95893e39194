#!/usr/bin/env bash
# Comments and docs cite sources inside this tree (docs/, README, ARCHITECTURE) or a vendor URL,
# never a planning file that is not part of the repository.
set -euo pipefail
root="$1"
cd "$root"
# Tracked files only: a build folder or a scratch file is not the repository.
hits=$(git ls-files -z -- ':!native_tests/docs/sources_in_tree.sh' ':!reports/samples/**/*.json' |
       xargs -0 grep -nE '(^|[^A-Za-z_/-])(REFERENCE|DESIGN|STYLE)\.md|\.\./shared/' 2>/dev/null || true)
if [ -n "$hits" ]; then
    echo "cites a document that is not in the repository (move what it relies on into docs/):"
    echo "$hits"
    exit 1
fi
for doc in docs/vendor-behaviour.md docs/environment-variables.md; do
    [ -s "$doc" ] || { echo "missing $doc"; exit 1; }
done
echo "every cited source is in the tree"
