#!/usr/bin/env bash
# The house style and bug-pattern checks: clang-format over every tracked C++ file (.clang-format),
# clang-tidy over every .cpp of the program (.clang-tidy) with the build's compile_commands.json
# (a file that passed with the same input is not re-checked). Usage: ci/lint.sh format|tidy SOURCE_DIR [BUILD_DIR]
# The tree is held to LLVM 14 (Debian 12's): `clang-format-14`/`clang-tidy-14` when on PATH, else
# the plain name when it is version 14.
#  - format with another major version is skipped (exit 77, ctest: skipped): clang-format's output
#    for the same .clang-format changes between major versions, so a pass or fail there says
#    nothing about the tree.
#  - tidy with another major version (e.g. Debian 13's LLVM 19) runs with exactly the checks that
#    LLVM 14 enables for .clang-tidy (the list below), so the checks newer releases brought under
#    bugprone-*/performance-* do not apply; a finding is still a failure.
# Exit 77 also when the tool is missing.
set -euo pipefail
k_llvm_major=14
# `clang-tidy-14 --list-checks` with .clang-tidy (Debian 12, LLVM 14.0.6).
k_llvm14_tidy_checks="bugprone-argument-comment bugprone-assert-side-effect bugprone-bad-signal-to-kill-thread
bugprone-bool-pointer-implicit-conversion bugprone-branch-clone bugprone-copy-constructor-init bugprone-dangling-handle
bugprone-dynamic-static-initializers bugprone-fold-init-type bugprone-forward-declaration-namespace
bugprone-forwarding-reference-overload bugprone-implicit-widening-of-multiplication-result bugprone-inaccurate-erase
bugprone-incorrect-roundings bugprone-infinite-loop bugprone-integer-division bugprone-lambda-function-name
bugprone-macro-parentheses bugprone-macro-repeated-side-effects bugprone-misplaced-operator-in-strlen-in-alloc
bugprone-misplaced-pointer-arithmetic-in-alloc bugprone-misplaced-widening-cast bugprone-move-forwarding-reference
bugprone-multiple-statement-macro bugprone-no-escape bugprone-not-null-terminated-result bugprone-parent-virtual-call
bugprone-posix-return bugprone-redundant-branch-condition bugprone-reserved-identifier bugprone-signal-handler
bugprone-signed-char-misuse bugprone-sizeof-container bugprone-sizeof-expression bugprone-spuriously-wake-up-functions
bugprone-string-constructor bugprone-string-integer-assignment bugprone-string-literal-with-embedded-nul
bugprone-stringview-nullptr bugprone-suspicious-enum-usage bugprone-suspicious-include
bugprone-suspicious-memory-comparison bugprone-suspicious-memset-usage bugprone-suspicious-missing-comma
bugprone-suspicious-semicolon bugprone-suspicious-string-compare bugprone-swapped-arguments
bugprone-terminating-continue bugprone-throw-keyword-missing bugprone-too-small-loop-variable
bugprone-undefined-memory-manipulation bugprone-undelegated-constructor bugprone-unhandled-exception-at-new
bugprone-unhandled-self-assignment bugprone-unused-raii bugprone-unused-return-value bugprone-use-after-move
bugprone-virtual-near-miss misc-redundant-expression misc-unused-using-decls performance-faster-string-find
performance-for-range-copy performance-implicit-conversion-in-loop performance-inefficient-algorithm
performance-move-const-arg performance-move-constructor-init performance-no-automatic-move performance-no-int-to-ptr
performance-noexcept-move-constructor performance-trivially-destructible performance-type-promotion-in-math-fn
performance-unnecessary-copy-initialization performance-unnecessary-value-param readability-misleading-indentation"
major_of() { "$1" --version | grep -oE 'version [0-9]+' | grep -oE '[0-9]+' | head -1; }
# find_tool NAME: sets tool (the command) and major (its LLVM major version); exit 77 when missing.
find_tool() {
    if command -v "$1-$k_llvm_major" >/dev/null 2>&1; then
        tool="$1-$k_llvm_major"
    elif command -v "$1" >/dev/null 2>&1; then
        tool="$1"
    else
        echo "SKIPPED: no $1 (apt-get install $1; the tree is held to LLVM $k_llvm_major)"; exit 77
    fi
    major="$(major_of "$tool")"
}
what="$1"
src="$2"
build="${3:-$src/build}"
cd "$src"
case "$what" in
format)
    find_tool clang-format
    [ "$major" = "$k_llvm_major" ] || {
        echo "SKIPPED: $tool is LLVM $major; the tree is formatted with LLVM $k_llvm_major's clang-format, whose" \
             "output differs from other major versions (install clang-format-$k_llvm_major where offered, e.g. Debian 12)"
        exit 77; }
    mapfile -t files < <(git ls-files 'probes/*.cpp' 'probes/*.hpp' 'probes/*.cu' 'native_tests/*.cpp' \
                                      'native_tests/*.hpp')
    [ "${#files[@]}" -gt 100 ] || { echo "found only ${#files[@]} C++ files: is $src a git checkout?"; exit 1; }
    "$tool" --dry-run -Werror "${files[@]}"
    echo "${#files[@]} files follow .clang-format ($tool, LLVM $major)"
    ;;
tidy)
    find_tool clang-tidy
    [ -f "$build/compile_commands.json" ] || { echo "no $build/compile_commands.json"; exit 1; }
    checks=()
    if [ "$major" != "$k_llvm_major" ]; then
        [ "$major" -gt "$k_llvm_major" ] 2>/dev/null || {
            echo "SKIPPED: $tool is LLVM $major, older than the LLVM $k_llvm_major this tree is held to"; exit 77; }
        # Another major version: LLVM 14's checks only (newer ones are not part of the tree's rules).
        checks=("--checks=-*,$(echo $k_llvm14_tidy_checks | tr ' ' ',')")
        echo "$tool is LLVM $major: running the $(echo $k_llvm14_tidy_checks | wc -w) checks LLVM $k_llvm_major enables"
    fi
    # Every .cpp of the program; the HIP module's source is hipcc's alone (no compile_commands entry).
    mapfile -t files < <(git ls-files 'probes/*.cpp' ':!probes/*.hip.cpp')
    # A file whose exact input (preprocessed text, flags, configuration, tool) passed before is not
    # checked again (ci/tidy_cached.py); a finding is reported on every run.
    python3 "$src/ci/tidy_cached.py" "$tool" "$build" "$src" "${checks[@]}" -- "${files[@]}"
    echo "${#files[@]} files pass .clang-tidy ($tool, LLVM $major)"
    ;;
*)
    echo "usage: ci/lint.sh format|tidy SOURCE_DIR [BUILD_DIR]" >&2
    exit 2
    ;;
esac
