#!/usr/bin/env bash
# The house style and bug-pattern checks: clang-format over every tracked C++ file (.clang-format),
# clang-tidy over the parent process's core, runner and framework code (.clang-tidy) with the
# build's compile_commands.json. Usage: ci/lint.sh format|tidy SOURCE_DIR [BUILD_DIR]
# Exit 77 (ctest: skipped) when the tool is missing or of another LLVM major version than 14.
set -euo pipefail
# The tree is formatted and checked with Debian 12's LLVM 14. Another major version formats some
# lines differently and brings new checks, so it is skipped rather than failed.
k_llvm_major=14
major_of() { "$1" --version | grep -oE 'version [0-9]+' | grep -oE '[0-9]+' | head -1; }
need_tool() {
    command -v "$1" >/dev/null 2>&1 || { echo "no $1 (apt-get install $1)"; exit 77; }
    local major
    major="$(major_of "$1")"
    [ "$major" = "$k_llvm_major" ] || { echo "$1 $major is not the LLVM $k_llvm_major this tree is held to"; exit 77; }
}
what="$1"
src="$2"
build="${3:-$src/build}"
cd "$src"
case "$what" in
format)
    need_tool clang-format
    mapfile -t files < <(git ls-files 'probes/*.cpp' 'probes/*.hpp' 'probes/*.cu' 'reports/src/*.cpp' \
                                      'reports/src/*.hpp' 'native_tests/*.cpp' 'native_tests/*.hpp')
    [ "${#files[@]}" -gt 100 ] || { echo "found only ${#files[@]} C++ files: is $src a git checkout?"; exit 1; }
    clang-format --dry-run -Werror "${files[@]}"
    echo "${#files[@]} files follow .clang-format"
    ;;
tidy)
    need_tool clang-tidy
    [ -f "$build/compile_commands.json" ] || { echo "no $build/compile_commands.json"; exit 1; }
    mapfile -t files < <(git ls-files 'probes/core/*.cpp' 'probes/runner/*.cpp' 'probes/framework/*.cpp')
    jobs="$(nproc 2>/dev/null || echo 2)"
    printf '%s\n' "${files[@]}" | xargs -P "$jobs" -n 4 clang-tidy -p "$build" --quiet 2>/dev/null
    echo "${#files[@]} files pass .clang-tidy"
    ;;
*)
    echo "usage: ci/lint.sh format|tidy SOURCE_DIR [BUILD_DIR]" >&2
    exit 2
    ;;
esac
