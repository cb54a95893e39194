#!/usr/bin/env bash
# The layering arrow: probes/core/ is the vocabulary every other folder builds on, so it includes
# only itself and the backend interface. (The arrow also ran back up through a declaration:
# core/environment.hpp declared host/'s reader; that moved to host/environment_reader.hpp.)
set -euo pipefail
cd "$1/probes/core"
bad=$(grep -Hn '#include "' ./*.hpp ./*.cpp | grep -vE '#include "(core/[a-z0-9_]+\.hpp|backend/backend\.hpp)"' || true)
if [ -n "$bad" ]; then
    echo "probes/core/ includes from a folder above it:"
    echo "$bad"
    exit 1
fi
echo "probes/core/ includes only core/ and backend/backend.hpp"
