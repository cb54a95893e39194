"""The fleet page, the acceptance record and a single report's page in headless Chromium, on
1,000 generated reports with known failures (fleet_reports.py): the counts by verdict at the top
are right, every node that does not pass is folded behind its root cause, each cause says what its
nodes share, the matrix header and check column stay in place when scrolled, legend colours match
their series, and a single report shows every summary.
Needs chromium, chromium-driver and python3-selenium; skipped without them."""
import csv
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_html_browser import CHROMIUM, start_browser  # noqa: E402  (skips the module without a browser)
import fleet_reports  # noqa: E402

from selenium.common.exceptions import NoAlertPresentException  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402

assert CHROMIUM
BIN = os.environ.get("GPUCONFORM_BIN", "")
HOSTILE = '</script><script>alert(1)</script>"\'\u202e' + "x" * 5000
SHOWN_HOSTILE = '</script><script>alert(1)</script>"\'\\u202e'  # how every view shows its start


def gpuconform(*args):
    return subprocess.run([BIN, *args], capture_output=True, text=True)


@pytest.fixture(scope="module")
def fleet():
    folder = tempfile.mkdtemp(prefix="gpuconform-fleet-")
    reports = os.path.join(folder, "reports")
    expected = fleet_reports.write_fleet(reports, 1000)
    html = os.path.join(folder, "fleet.html")
    proc = gpuconform("matrix", reports, "--format", "html", "-o", html)
    assert proc.returncode == 1, proc.stderr
    driver = start_browser(folder)
    try:
        driver.get("file://" + html)
        yield driver, expected, folder
    finally:
        driver.quit()
        shutil.rmtree(folder, ignore_errors=True)


def count(driver, name):
    return int(driver.find_element(By.ID, "count-" + name).text)


# The verdict each kind of node gets (core/run_verdict.hpp): a disturbed timing check ends as
# error, so a busy node is inconclusive.
VERDICT = {"fail": "fail", "torch": "fail", "error": "inconclusive", "busy": "inconclusive"}


def verdict_of(kind):
    return VERDICT.get(kind, "pass")


def folded(driver, el):
    """Whether the element is inside a closed <details> (Selenium's is_displayed does not tell)."""
    return driver.execute_script("return arguments[0].closest('details:not([open])') !== null", el)


def tally(expected):
    verdicts = [verdict_of(k) for k in expected.values()]
    return {v: verdicts.count(v) for v in ("fail", "inconclusive", "pass")}


def test_counts_at_the_top_are_right(fleet):
    page, expected, _ = fleet
    kinds = list(expected.values())
    want = tally(expected)
    assert count(page, "nodes") == 1000
    assert count(page, "fail") == want["fail"] == 17 + 33
    assert count(page, "inconclusive") == want["inconclusive"] == kinds.count("error") + kinds.count("busy") == 20
    assert count(page, "pass") == want["pass"]
    assert count(page, "disturbed") == kinds.count("busy")
    box = page.find_element(By.ID, "fleet-counts").rect
    assert box["y"] < 150 and box["x"] > 700, box  # top right of a 1400-wide window
    assert [e for e in page.get_log("browser") if e["level"] == "SEVERE"] == []


def test_every_node_that_does_not_pass_is_folded_behind_its_cause(fleet):
    page, expected, _ = fleet
    not_passing = {h for h, k in expected.items() if verdict_of(k) != "pass"}
    links = page.find_elements(By.CSS_SELECTOR, "#causes a.node")
    assert {a.get_attribute("textContent") for a in links} == not_passing
    assert all(folded(page, a) for a in links)  # the causes read as a list of causes, not of hosts
    causes = page.find_elements(By.CSS_SELECTOR, "#causes > li")
    for li in causes:
        n = len(li.find_elements(By.CSS_SELECTOR, "a.node"))
        assert li.find_element(By.CSS_SELECTOR, "details > summary").text == f"{n} host{'' if n == 1 else 's'}"
    text = page.find_element(By.ID, "causes").text
    assert "Another process was using the GPU" in text and "drain the node" in text
    assert "async.copy.bandwidth" in text and "runtime.check03" in text
    # The causes come before the matrix; one click opens a cause's hosts, one more lands on the
    # node's line with its verdict and reason.
    assert page.find_element(By.ID, "causes").rect["y"] < page.find_element(By.ID, "matrix").rect["y"]
    bandwidth = next(li for li in causes if "async.copy.bandwidth failed" in li.text)
    bandwidth.find_element(By.TAG_NAME, "summary").click()
    shown = bandwidth.find_elements(By.CSS_SELECTOR, "a.node")
    assert not any(folded(page, a) for a in shown) and all(a.is_displayed() for a in shown)
    for a in (shown[0], shown[-1]):
        host = a.text
        a.click()
        target = page.find_element(By.ID, a.get_attribute("href").split("#")[1])
        assert host in target.text and target.get_attribute("data-verdict") == "fail"
        assert "31% of device 0" in target.text  # the reason is the result's own summary
        top = page.execute_script("return arguments[0].getBoundingClientRect().top", target)
        assert -2 <= top < 1000
    bandwidth.find_element(By.TAG_NAME, "summary").click()
    page.execute_script("window.scrollTo(0, 0)")


def test_each_cause_says_what_its_nodes_share(fleet):
    page, expected, _ = fleet
    causes = page.find_elements(By.CSS_SELECTOR, "#causes > li")
    torch = causes[0]  # the most nodes
    n = list(expected.values()).count("torch")
    assert torch.find_element(By.TAG_NAME, "strong").text == "framework.check01 failed"
    assert fleet_reports.TORCH_FIX in torch.text
    traits = torch.find_element(By.CSS_SELECTOR, ".traits")
    assert traits.text.startswith(f"Where: every node with MI250X and Rocky 9 ({n} of {n})"), traits.text
    assert traits.text.endswith("; no other node has it"), traits.text
    assert traits.is_displayed() and not folded(page, traits)
    assert traits.rect["y"] < torch.find_element(By.TAG_NAME, "summary").rect["y"]  # above the folded hosts
    # Sibling bandwidth failures are random across the fleet: the line says nothing sets them apart.
    bandwidth = next(li for li in causes if "async.copy.bandwidth failed" in li.text)
    line = bandwidth.find_element(By.CSS_SELECTOR, ".traits").text
    assert "all 5 distros" in line and line.endswith("nothing in the fingerprint sets them apart"), line


def test_matrix_header_and_check_column_stay_when_scrolled(fleet):
    page, _, _ = fleet
    page.find_element(By.ID, "problems-only").click()  # show all 30 groups and every check
    wrap = page.find_element(By.ID, "matrix-wrap")
    page.execute_script("arguments[0].scrollIntoView(); arguments[0].scrollTop = 600; arguments[0].scrollLeft = 2000", wrap)
    geometry = page.execute_script("""
        var w = document.getElementById('matrix-wrap').getBoundingClientRect();
        var th = document.querySelector('#matrix thead th[data-col="20"]').getBoundingClientRect();
        var rows = document.querySelectorAll('#matrix tbody tr');
        var row = rows[rows.length - 1].querySelector('th.check').getBoundingClientRect();
        var wrapEl = document.getElementById('matrix-wrap');
        return [w.top, w.left, th.top, row.left, wrapEl.scrollTop, wrapEl.scrollLeft];""")
    wrap_top, wrap_left, header_top, check_left, scroll_top, scroll_left = geometry
    assert scroll_top > 0 and scroll_left > 0, geometry  # it did scroll
    assert abs(header_top - wrap_top) <= 2, geometry
    assert abs(check_left - wrap_left) <= 2, geometry
    headers = page.find_elements(By.CSS_SELECTOR, "#matrix thead th[data-col]")
    assert len(headers) == 30
    assert max(h.rect["height"] for h in headers) < 70  # compact: two short lines and the run count
    assert headers[0].get_attribute("title").endswith("runs)")
    page.execute_script("arguments[0].scrollTop = 0; arguments[0].scrollLeft = 0", wrap)
    page.find_element(By.ID, "problems-only").click()


def test_problems_only_is_on_and_shows_only_problems(fleet):
    page, _, _ = fleet
    assert page.find_element(By.ID, "problems-only").is_selected()
    rows = [tr for tr in page.find_elements(By.CSS_SELECTOR, "#matrix tbody tr") if tr.is_displayed()]
    assert {tr.get_attribute("data-check") for tr in rows} == {
        "host.check04", "runtime.check03", "async.copy.bandwidth", "async.overlap.copy_compute", "framework.check01"}
    failing = page.find_element(By.CSS_SELECTOR, '#matrix tr[data-check="async.copy.bandwidth"] td.st-fail')
    summary = failing.find_element(By.TAG_NAME, "summary")
    page.execute_script("arguments[0].scrollIntoView({block: 'center', inline: 'center'})", summary)
    summary.click()
    assert failing.find_elements(By.CSS_SELECTOR, "li a")


def test_legend_colours_match_series(fleet):
    page, _, _ = fleet
    pairs = page.execute_script("""
        var out = [];
        document.querySelectorAll('svg.bandwidth, svg.trend').forEach(function (svg) {
          var lines = svg.querySelectorAll('polyline.series');
          var legend = svg.querySelectorAll('g.legend');
          lines.forEach(function (pl, i) {
            var text = legend[i].querySelector('text'), sample = legend[i].querySelector('line');
            out.push([getComputedStyle(pl).stroke, getComputedStyle(text).fill, getComputedStyle(sample).stroke,
                      getComputedStyle(pl).strokeDasharray, getComputedStyle(sample).strokeDasharray,
                      pl.getAttribute('data-series'), text.textContent]);
          });
        });
        return out;""")
    assert len(pairs) >= 6
    for stroke, fill, sample, dash, sample_dash, name, label in pairs:
        assert stroke == fill == sample and dash == sample_dash and name == label
    first_chart = pairs[:6]
    assert len({(p[0], p[3]) for p in first_chart}) == 6  # six series told apart
    assert len({p[0] for p in first_chart}) == 6
    ticks = [float(t.text) for t in page.find_elements(By.CSS_SELECTOR, "svg.bandwidth text.tick[text-anchor='end']")[:8]]
    step = ticks[1] - ticks[0]
    assert step in (1, 2, 5, 10, 20, 50) and all(t % step == 0 for t in ticks), ticks
    assert page.find_elements(By.CSS_SELECTOR, "svg.bandwidth line.ceiling")
    lanes = [t.text for t in page.find_elements(By.CSS_SELECTOR, "svg.overlap text")]
    assert {"copy alone", "kernel alone", "together: copy", "together: kernel"} <= set(lanes)
    assert page.find_elements(By.CSS_SELECTOR, "svg.siblings rect")


def test_acceptance_record(fleet):
    _, expected, folder = fleet
    html = os.path.join(folder, "acceptance.html")
    reports = os.path.join(folder, "reports")
    want = tally(expected)
    assert gpuconform("matrix", reports, "--by", "host", "--format", "html", "-o", html).returncode == 1
    rows = list(csv.reader(io.StringIO(gpuconform("matrix", reports, "--by", "host", "--format", "csv").stdout)))
    assert rows[0] == ["host", "group", "verdict", "worst", "disturbed", "causes", "reason"]
    assert {r[0]: r[2] for r in rows[1:]} == {h: verdict_of(k) for h, k in expected.items()}
    torch = [r for r in rows[1:] if expected[r[0]] == "torch"]
    # The root-cause column: the cause's title and what its nodes share, not the failure restated.
    assert all(r[5].startswith("framework.check01 failed — every node with MI250X and Rocky 9") for r in torch)
    assert all(r[6].startswith("framework.check01 [cuda:0] fail: torch 2.5.1+rocm6.2: ") for r in torch), torch[0]
    text = gpuconform("matrix", reports, "--by", "host").stdout
    assert text.startswith(f"Acceptance of 1000 nodes: {want['fail']} fail, {want['inconclusive']} inconclusive, "
                           f"{want['pass']} pass")
    assert text.splitlines()[3].startswith("fail")  # failing lines lead
    assert "      every node with MI250X and Rocky 9" in text  # under its root cause
    driver = start_browser(folder + "/acc")
    try:
        driver.get("file://" + html)
        # Every row as the browser rendered it, read in one call (a round trip per cell is 30 s).
        rows = driver.execute_script(
            "return Array.from(document.querySelectorAll('#nodes tbody tr'), r => [r.querySelector('td.host')."
            "innerText, r.dataset.verdict, r.querySelector('td.causes').innerText])")
        assert len(rows) == 1000
        assert {host: verdict for host, verdict, _ in rows} == {h: verdict_of(k) for h, k in expected.items()}
        assert rows[0][1] == "fail"  # as rendered: fail first
        torch = next(causes for host, _, causes in rows if expected[host] == "torch")
        assert "every node with MI250X and Rocky 9" in torch
        header = driver.find_element(By.CSS_SELECTOR, "#nodes thead th:nth-child(3)")
        header.click()  # sort by verdict, ascending: pass first
        assert driver.find_element(By.CSS_SELECTOR, "#nodes tbody tr").get_attribute("data-verdict") == "pass"
        header.click()  # descending: fail first
        assert driver.find_element(By.CSS_SELECTOR, "#nodes tbody tr").get_attribute("data-verdict") == "fail"
    finally:
        driver.quit()


def test_single_report_page_shows_every_summary(fleet):
    _, _, folder = fleet
    path = os.path.join(folder, "reports", "node-0007.json")  # a failing node
    doc = json.load(open(path))
    html = os.path.join(folder, "one.html")
    assert gpuconform("render", path, "--format", "html", "-o", html).returncode == 0
    driver = start_browser(folder + "/one")
    try:
        driver.get("file://" + html)
        assert driver.title == "gpuconform report: node-0007"
        sections = driver.find_elements(By.CSS_SELECTOR, "section.result")
        assert len(sections) == len(doc["results"])
        # Problems lead and the rest is folded (test_html_browser.py); every summary is on the page.
        shown = [s.find_element(By.CSS_SELECTOR, ".summary").get_attribute("textContent") for s in sections]
        assert sorted(shown) == sorted(r["summary"] for r in doc["results"])
        assert driver.find_element(By.ID, "verdict").text == "fail"
        assert "reseat the GPU" in driver.find_element(By.CSS_SELECTOR, 'section.result.st-fail').text
        assert driver.find_elements(By.CSS_SELECTOR, "section.result table.measurements td")
        facts = driver.find_element(By.CSS_SELECTOR, "table.fingerprint").text
        assert doc["environment"]["distro"]["pretty_name"] in facts and "580.95.05" in facts and "cuda:1" in facts
    finally:
        driver.quit()


def test_hostile_strings_stay_text(fleet):
    _, _, folder = fleet
    reports = os.path.join(folder, "hostile")
    os.makedirs(reports)
    doc = fleet_reports.node(1, HOSTILE, HOSTILE, HOSTILE, "busy")
    doc["causes"][0]["title"] = HOSTILE
    doc["causes"][0]["fix"] = HOSTILE
    for r in doc["results"]:
        r["summary"] = HOSTILE
    with open(os.path.join(reports, "h.json"), "w") as f:
        json.dump(doc, f)
    driver = start_browser(folder + "/hostile-profile")
    try:
        for args in (["matrix", reports], ["matrix", reports, "--by", "host"], ["render", os.path.join(reports, "h.json")]):
            html = os.path.join(folder, "hostile.html")
            gpuconform(*args, "--format", "html", "-o", html)
            driver.get("file://" + html)
            with pytest.raises(NoAlertPresentException):
                driver.switch_to.alert.text
            text = driver.execute_script("return document.body.textContent")
            # Shown as text, never obeyed: the bidi override as a visible escape, the string bounded.
            assert SHOWN_HOSTILE + "x" * 1000 in text and "\u202e" not in text, args
            assert len(driver.find_elements(By.TAG_NAME, "script")) == 1  # only the page's own
    finally:
        driver.quit()
