#!/usr/bin/env python3
"""Renders real sample reports as Prometheus text and JUnit XML and checks that monitoring takes
them as they are:
  prometheus  `promtool check metrics` (Debian package prometheus) on every sample's .prom
  junit       every sample's JUnit XML against the structure of the Jenkins xUnit plugin's
              junit-10.xsd, encoded below (the XSD itself is not fetched: CI has no route to
              GitHub), plus what GitLab's parser reads: testsuites/testsuite/testcase with
              classname and name, one of failure/error/skipped, case keys unique across files.
Usage: check_monitoring_outputs.py prometheus|junit GPUCONFORM SAMPLES_DIR
Prints SKIPPED [1] <reason> and exits 0 when a tool it needs is missing (ctest shows the skip).
"""
import pathlib
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

# https://github.com/jenkinsci/xunit-plugin/blob/master/src/main/resources/org/jenkinsci/plugins/xunit/types/model/xsd/junit-10.xsd
# element: (allowed attributes, required attributes, allowed children, text allowed)
_RESULT = ({"type", "message"}, set(), set(), True)
JUNIT_10 = {
    "testsuites": ({"name", "time", "tests", "failures", "disabled", "errors"}, set(), {"testsuite"}, False),
    "testsuite": ({"name", "tests", "failures", "errors", "time", "disabled", "skipped", "skips", "timestamp",
                   "hostname", "id", "package", "assertions", "file", "skip", "log", "url"}, {"tests"},
                  {"testsuite", "properties", "testcase", "system-out", "system-err"}, False),
    "properties": (set(), set(), {"property"}, False),
    "property": ({"name", "value"}, {"name", "value"}, set(), False),
    "testcase": ({"name", "assertions", "time", "timestamp", "classname", "status", "class", "file", "line", "log",
                  "group", "url"}, {"name"},
                 {"skipped", "error", "failure", "rerunFailure", "rerunError", "system-out", "system-err"}, False),
    "failure": _RESULT, "error": _RESULT, "skipped": _RESULT,
    "system-out": (set(), set(), set(), True), "system-err": (set(), set(), set(), True),
}


def check_junit_element(el, where, problems):
    rule = JUNIT_10.get(el.tag)
    if rule is None:
        problems.append(f"{where}: element <{el.tag}> is not in junit-10.xsd")
        return
    allowed, required, children, text_ok = rule
    for a in el.attrib:
        if a not in allowed:
            problems.append(f"{where}: <{el.tag}> has attribute {a} that junit-10.xsd does not allow")
    for a in required - set(el.attrib):
        problems.append(f"{where}: <{el.tag}> lacks required attribute {a}")
    if not text_ok and (el.text or "").strip():
        problems.append(f"{where}: <{el.tag}> holds text")
    for child in el:
        if child.tag not in children:
            problems.append(f"{where}: <{child.tag}> may not be inside <{el.tag}>")
        check_junit_element(child, where, problems)


def render(gpuconform, report, fmt):
    return subprocess.run([gpuconform, "render", str(report), "--format", fmt], check=True,
                          capture_output=True).stdout


def check_junit(gpuconform, samples):
    problems, keys, cases = [], {}, 0
    for report in samples:
        xml = render(gpuconform, report, "junit")
        root = ET.fromstring(xml)  # raises on anything not well-formed XML
        if root.tag != "testsuites":
            problems.append(f"{report}: root is <{root.tag}>")
        check_junit_element(root, report.name, problems)
        for suite in root.iter("testsuite"):
            n = {k: 0 for k in ("failure", "error", "skipped")}
            for case in suite.iter("testcase"):
                cases += 1
                results = [c.tag for c in case if c.tag in n]
                if len(results) > 1:
                    problems.append(f"{report.name}: {case.get('name')} has {results}")
                for r in results:
                    n[r] += 1
                # Runs of one node repeat its cases; two nodes never share one.
                key = (case.get("classname"), case.get("name"))
                host = suite.get("hostname")
                if key in keys and keys[key][0] != host:
                    problems.append(f"{report.name} ({host}) and {keys[key][1].name} ({keys[key][0]}) share case {key}")
                keys.setdefault(key, (host, report))
            for attr, tag in (("failures", "failure"), ("errors", "error"), ("skipped", "skipped")):
                if int(suite.get(attr, "0")) != n[tag]:
                    problems.append(f"{report.name}: suite {suite.get('name')} {attr}={suite.get(attr)}, cases say {n[tag]}")
    return problems, f"{len(samples)} reports, {cases} cases"


def check_prometheus(gpuconform, samples):
    promtool = shutil.which("promtool")
    if promtool is None:
        print("SKIPPED [1] promtool not found (Debian package prometheus)")
        sys.exit(0)
    problems = []
    for report in samples:
        text = render(gpuconform, report, "prometheus")
        p = subprocess.run([promtool, "check", "metrics"], input=text, capture_output=True)
        if p.returncode != 0 or p.stdout.strip() or p.stderr.strip():
            problems.append(f"{report}: promtool: {(p.stdout + p.stderr).decode().strip()}")
        for needed in (b"gpuconform_info{", b"gpuconform_last_run_timestamp_seconds ", b"gpuconform_check_status{"):
            if needed not in text:
                problems.append(f"{report}: no {needed.decode()}")
    return problems, f"{len(samples)} reports"


def main():
    what, gpuconform, samples_dir = sys.argv[1], sys.argv[2], pathlib.Path(sys.argv[3])
    samples = sorted(samples_dir.rglob("*.json"))
    if not samples:
        print(f"no sample reports under {samples_dir}")
        return 1
    problems, seen = {"junit": check_junit, "prometheus": check_prometheus}[what](gpuconform, samples)
    for p in problems:
        print(p)
    print(f"{what}: {seen}: {'OK' if not problems else f'{len(problems)} problems'}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
