#!/usr/bin/env python3
"""The end of ci/run-tests.sh: how many tests ran, each skipped test with its reason, and the one
line that installs what the skipped tests need.

Reads the JUnit XML that `ctest --output-junit` writes (ctest 3.21 and later). ctest's own last
line ("99% tests passed") counts skipped tests as passed; this one does not.
Usage: test-summary.py CTEST_JUNIT.xml   (GPUCONFORM_MISSING: the packages ci/bootstrap.sh found missing)
"""
import os
import sys
import xml.etree.ElementTree as ET

# Words a test's skip line uses (ci/lint.sh, ci/slurm/test-slurm.sh, pytest's "SKIPPED [1] ...").
SKIP_WORDS = ("skip", "not installed", "not found", "no pytest", "apt-get install", "is not the llvm")


def skip_reason(output):
    lines = [line.strip() for line in (output or "").splitlines() if line.strip()]
    # GoogleTest's GTEST_SKIP() << "why": "file:line: Skipped", then the message, then
    # "[  SKIPPED ] Name": the message is the reason, not the closing line.
    for i, line in enumerate(lines[:-1]):
        if line.endswith(": Skipped") and not lines[i + 1].startswith("["):
            return lines[i + 1]
    for line in reversed(lines):
        if any(word in line.lower() for word in SKIP_WORDS):
            return line
    return lines[-1] if lines else "(the test printed no reason)"


def main(argv):
    if len(argv) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    try:
        root = ET.parse(argv[1]).getroot()
    except (OSError, ET.ParseError) as e:
        print(f"test summary: cannot read {argv[1]}: {e}", file=sys.stderr)
        return 1
    passed, failed, skipped = [], [], []
    for case in root.iter("testcase"):
        name = case.get("name", "?")
        out = case.findtext("system-out") or ""
        if case.find("skipped") is not None or case.get("status") in ("notrun", "disabled"):
            skipped.append((name, skip_reason(out)))
        elif case.find("failure") is not None or case.find("error") is not None or case.get("status") == "fail":
            failed.append(name)
        else:
            passed.append(name)
    ran = len(passed) + len(failed)
    print(f"\ntests: {ran} ran ({len(passed)} passed, {len(failed)} failed), {len(skipped)} skipped")
    for name in failed:
        print(f"  FAILED   {name}")
    for name, reason in skipped:
        print(f"  SKIPPED  {name}: {reason}")
    missing = os.environ.get("GPUCONFORM_MISSING", "").split()
    if skipped and missing:
        print(f"  to run the skipped tests: sudo apt-get install -y {' '.join(missing)}")
    elif skipped:
        print("  every tool the tests use is installed; the reasons above are the machine's (e.g. not root)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
