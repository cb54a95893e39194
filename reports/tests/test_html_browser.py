"""The roll-up's HTML page in a real headless browser: it loads from disk without console
errors, the matrix holds the right cells for a known input, a hostile host name stays text,
and the filters change what is shown. One report's page opens with its verdict, root failure
and causes, shows failures, errors and warnings with the rest folded, and its status filter
hides cards. Needs chromium, chromium-driver and python3-selenium
(Debian packages); skipped without them. GPUCONFORM_BIN names the gpuconform executable."""
import json
import os
import shutil
import subprocess
import tempfile

import pytest

CHROMIUM = shutil.which("chromium")
CHROMEDRIVER = shutil.which("chromedriver")
try:
    from selenium import webdriver
    from selenium.common.exceptions import NoAlertPresentException
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select
except ImportError:  # pragma: no cover - depends on the machine
    webdriver = None

if not (CHROMIUM and CHROMEDRIVER and webdriver):
    pytest.skip("needs chromium, chromium-driver and python3-selenium (apt-get install chromium chromium-driver "
                "python3-selenium)", allow_module_level=True)
if not os.environ.get("GPUCONFORM_BIN"):
    pytest.skip("GPUCONFORM_BIN is not set (run through ctest)", allow_module_level=True)

HOSTILE = "<script>alert(1)</script>"


def report(run_id, host, distro, gpu, results):
    """A minimal schema-valid report; results are (id, status, device or None)."""
    return {
        "schema": "gpuconform-report", "schema_version": "1.0",
        "tool": {"name": "gpuconform", "version": "0.1.0"},
        "run": {"id": run_id, "started": "2026-11-29T10:00:00Z", "finished": "2026-11-29T10:01:00Z",
                "duration_s": 60.0, "command_line": ["gpuconform", "run"], "interrupted": False, "exit_status": 0},
        "environment": {"hostname": host, "distro": {"id": "d", "version_id": "1", "pretty_name": distro},
                        "kernel": "6.1.0", "glibc": "2.36", "cpu": {"model": "cpu", "logical_cpus": 2, "numa_nodes": 1},
                        "memory_bytes": 1, "container": None, "limits": {"memlock_soft_bytes": None, "memlock_hard_bytes": None},
                        "user": {"uid": 1, "name": "u", "groups": []}, "env": {}, "kernel_drivers": {}, "pci_gpus": []},
        "backends": [{"name": "cuda", "loaded": True, "load_error": None, "driver_version": "13.0",
                      "runtime_version": "13.0", "device_count": 1}],
        "devices": [{"backend": "cuda", "index": 0, "vendor": "nvidia", "name": gpu, "arch": "sm_90",
                     "pci_bus_id": None, "memory_bytes": 1}],
        "results": [{"id": i, "layer": i.split(".")[0], "backend": "cuda" if d is not None else None, "device": d,
                     "status": s, "summary": f"{i} {s} on {host}", "remediation": None, "attribution": None,
                     "measurements": [{"name": f"h2d_pinned_bw_{n}", "value": 10.0 + k, "unit": "GB/s", "n": 1,
                                       "min": None, "max": None} for k, n in enumerate((4096, 1048576))],
                     "facts": {"timeline": [{"label": "copy", "start_ms": 0, "end_ms": 5},
                                            {"label": "kernel", "start_ms": 1, "end_ms": 6}]},
                     "expectation": {}, "duration_s": 0.1} for i, s, d in results],
        "summary": {"pass": 0, "fail": 0, "warn": 0, "skip": 0, "error": 0, "info": 0, "verdict": "pass"},
    }


def start_browser(folder, size="1400,1000"):
    """Headless Chromium with a fresh profile and nothing that reaches the network."""
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--window-size=" + size, "--user-data-dir=" + os.path.join(folder, "profile")):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)


@pytest.fixture(scope="module")
def page():
    folder = tempfile.mkdtemp(prefix="gpuconform-browser-")
    docs = [
        report("r1", "node-a", "Debian 12", "H200", [("host.memlock", "pass", None), ("async.copy", "pass", 0)]),
        report("r2", HOSTILE, "Debian 12", "H200", [("host.memlock", "pass", None), ("async.copy", "fail", 0)]),
        report("r3", "node-c", "Debian 13", "H200", [("host.memlock", "warn", None)]),
    ]
    for i, doc in enumerate(docs):
        with open(os.path.join(folder, f"{i}.json"), "w") as f:
            json.dump(doc, f)
    with open(os.path.join(folder, "broken.json"), "w") as f:
        f.write("{")
    html = os.path.join(folder, "matrix.html")
    proc = subprocess.run([os.environ["GPUCONFORM_BIN"], "matrix", folder, "--format", "html", "-o", html],
                          capture_output=True, text=True)
    assert proc.returncode == 1, proc.stderr  # a failing cell
    assert "broken.json" in proc.stderr

    driver = start_browser(folder)
    try:
        driver.get("file://" + html)
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(folder, ignore_errors=True)


def cell(driver, check, col):
    return driver.find_element(By.CSS_SELECTOR, f'#matrix tr[data-check="{check}"] td[data-col="{col}"]')


def visible_rows(driver):
    return [tr.get_attribute("data-check") for tr in driver.find_elements(By.CSS_SELECTOR, "#matrix tbody tr")
            if tr.is_displayed()]


def test_loads_without_console_errors(page):
    severe = [e for e in page.get_log("browser") if e["level"] == "SEVERE"]
    assert severe == []


def test_matrix_has_the_right_cells(page):
    headers = [th.get_attribute("title") for th in page.find_elements(By.CSS_SELECTOR, "#matrix thead th[data-col]")]
    assert headers == ["Debian 12 · H200 (2 runs)", "Debian 13 · H200 (1 runs)"]
    assert cell(page, "async.copy", 0).get_attribute("data-status") == "fail"
    assert "1 fail" in cell(page, "async.copy", 0).text and "1 ok" in cell(page, "async.copy", 0).text
    assert cell(page, "async.copy", 1).get_attribute("data-status") == "none"
    assert cell(page, "host.memlock", 0).get_attribute("data-status") == "pass"
    assert cell(page, "host.memlock", 1).get_attribute("data-status") == "warn"
    assert "broken.json" in page.find_element(By.ID, "rejected").text


def test_hostile_host_name_is_text(page):
    with pytest.raises(NoAlertPresentException):
        page.switch_to.alert.text
    links = page.find_elements(By.CSS_SELECTOR, "#matrix td a")
    assert HOSTILE in [a.get_attribute("textContent") for a in links]


def test_status_filter_changes_what_is_shown(page):
    assert visible_rows(page) == ["host.memlock", "async.copy"]
    for status in ("pass", "warn"):
        page.find_element(By.CSS_SELECTOR, f'#status-filter input[value="{status}"]').click()
    assert visible_rows(page) == ["async.copy"]
    assert page.find_element(By.ID, "shown-count").text == "1"
    for status in ("pass", "warn"):
        page.find_element(By.CSS_SELECTOR, f'#status-filter input[value="{status}"]').click()
    assert visible_rows(page) == ["host.memlock", "async.copy"]


def test_group_filter_hides_other_columns(page):
    page.find_element(By.ID, "problems-only").click()  # on by default: this page has problems
    Select(page.find_element(By.ID, "group-filter")).select_by_value("1")
    assert not cell(page, "async.copy", 0).is_displayed()
    assert cell(page, "host.memlock", 1).is_displayed()
    assert visible_rows(page) == ["host.memlock", "async.copy"]  # "no result" is shown by default
    page.find_element(By.CSS_SELECTOR, '#status-filter input[value="none"]').click()
    assert visible_rows(page) == ["host.memlock"]
    page.find_element(By.CSS_SELECTOR, '#status-filter input[value="none"]').click()
    Select(page.find_element(By.ID, "group-filter")).select_by_value("all")
    page.find_element(By.ID, "problems-only").click()


def test_drill_down_and_charts(page):
    link = [a for a in page.find_elements(By.CSS_SELECTOR, "#matrix td a") if a.get_attribute("textContent") == HOSTILE][0]
    page.find_element(By.CSS_SELECTOR, f'#matrix tr[data-check="async.copy"] td[data-col="0"] summary').click()
    link.click()
    target = page.find_element(By.ID, link.get_attribute("href").split("#")[1])
    assert target.get_attribute("open") is not None
    assert "Debian 12" in target.text
    assert page.find_elements(By.CSS_SELECTOR, "svg.bandwidth polyline")
    assert page.find_elements(By.CSS_SELECTOR, "svg.timeline rect")


def test_small_page_counts(page):
    assert page.find_element(By.ID, "count-nodes").text == "3"
    assert page.find_element(By.ID, "count-fail").text == "1"
    assert page.find_element(By.ID, "count-inconclusive").text == "0"
    assert page.find_element(By.ID, "count-pass").text == "2"  # a warn is judged: that node passes


@pytest.fixture(scope="module")
def report_page():
    """One faulted report's page: info results come first in the file, the failure after them."""
    folder = tempfile.mkdtemp(prefix="gpuconform-report-page-")
    doc = report("r9", "node-f", "Debian 12", "H200",
                 [("host.distro", "info", None), ("host.kernel", "info", None), ("host.pcie.link", "skip", None),
                  ("async.copy.bandwidth", "pass", 0), ("async.overlap.copy_compute", "error", 0),
                  ("async.copy.pinned_returns_early", "fail", 0), ("async.copy.numa_locality", "warn", 0)])
    doc["causes"] = [{"id": "env:CUDA_LAUNCH_BLOCKING", "kind": "env_var", "title": "CUDA_LAUNCH_BLOCKING=1 is set",
                      "fix": "unset CUDA_LAUNCH_BLOCKING",
                      "results": ["async.copy.pinned_returns_early[cuda:0]", "async.overlap.copy_compute[cuda:0]"]},
                     {"id": "no_driver", "kind": "no_driver", "title": "no GPU on the PCI bus", "fix": "",
                      "results": ["host.pcie.link"]}]
    path = os.path.join(folder, "r.json")
    with open(path, "w") as f:
        json.dump(doc, f)
    html = os.path.join(folder, "report.html")
    proc = subprocess.run([os.environ["GPUCONFORM_BIN"], "render", path, "--format", "html", "-o", html],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    driver = start_browser(folder)
    try:
        driver.get("file://" + html)
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(folder, ignore_errors=True)


def shown_cards(driver):
    return [s.get_attribute("data-status") for s in driver.find_elements(By.CSS_SELECTOR, "section.result")
            if s.is_displayed()]


def filter_box(driver, status):
    return driver.find_element(By.CSS_SELECTOR, f'#result-filter input[value="{status}"]')


def test_report_page_opens_with_verdict_cause_then_problems(report_page):
    assert [e for e in report_page.get_log("browser") if e["level"] == "SEVERE"] == []
    assert report_page.find_element(By.ID, "verdict").text == "fail"
    assert report_page.find_element(By.ID, "reason").text == "1 check failed; 1 check could not run (error)"
    assert report_page.find_element(By.ID, "headline-text").text == "CUDA_LAUNCH_BLOCKING=1 is set"
    causes = report_page.find_elements(By.CSS_SELECTOR, "#causes > li")
    assert [c.find_element(By.CSS_SELECTOR, ".cause-title").text for c in causes] == [
        "CUDA_LAUNCH_BLOCKING=1 is set", "no GPU on the PCI bus"]
    # Failures, errors and warnings are shown; everything else waits in the fold.
    assert shown_cards(report_page) == ["fail", "error", "warn"]
    order = [s.get_attribute("data-status") for s in report_page.find_elements(By.CSS_SELECTOR, "section.result")]
    assert order == ["fail", "error", "warn", "info", "info", "skip", "pass"]
    fold = report_page.find_element(By.ID, "other-results")
    assert fold.find_element(By.TAG_NAME, "summary").text == "4 other results: 1 pass · 2 info · 1 skip"


def test_report_page_status_filter_hides_cards(report_page):
    assert report_page.find_element(By.ID, "results-shown").text == "7"
    filter_box(report_page, "fail").click()
    filter_box(report_page, "pass").click()
    # A change opens the fold: the person now says which statuses to see.
    assert shown_cards(report_page) == ["error", "warn", "info", "info", "skip"]
    assert report_page.find_element(By.ID, "results-shown").text == "5"
    for status in ("error", "warn", "info", "skip"):
        filter_box(report_page, status).click()
    assert shown_cards(report_page) == []
    for status in ("fail", "error", "warn", "info", "skip", "pass"):
        filter_box(report_page, status).click()
    assert shown_cards(report_page) == ["fail", "error", "warn", "info", "info", "skip", "pass"]
    assert report_page.find_element(By.ID, "results-shown").text == "7"


def test_report_page_cause_links_open_the_fold(report_page):
    report_page.find_element(By.ID, "other-results").find_element(By.TAG_NAME, "summary").click()  # close it again
    assert report_page.find_element(By.ID, "other-results").get_attribute("open") is None
    link = report_page.find_element(By.CSS_SELECTOR, "#causes > li:nth-child(2) .explains a")
    assert link.text == "host.pcie.link"
    link.click()
    assert report_page.find_element(By.ID, "other-results").get_attribute("open") is not None
    assert report_page.find_element(By.ID, link.get_attribute("href").split("#")[1]).is_displayed()
