"""Renders the screenshots in reports/examples/ (fleet.png, acceptance.png, report.png) from the
same 1,000 generated reports the browser tests use. Usage:
    python3 reports/tests/screenshots.py build/gpuconform reports/examples"""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
os.environ.setdefault("GPUCONFORM_BIN", sys.argv[1] if len(sys.argv) > 1 else "")
import fleet_reports  # noqa: E402
from test_html_browser import start_browser  # noqa: E402


def main(binary, out):
    folder = tempfile.mkdtemp(prefix="gpuconform-shots-")
    reports = os.path.join(folder, "reports")
    fleet_reports.write_fleet(reports, 1000)
    fleet_reports.write_nights(reports + "/nightly")
    pages = {"fleet": ["matrix", reports], "acceptance": ["matrix", reports, "--by", "host"],
             "report": ["render", os.path.join(reports, "node-0007.json")]}
    driver = start_browser(folder, "1400,1000")
    try:
        for name, args in pages.items():
            html = os.path.join(folder, name + ".html")
            subprocess.run([binary, *args, "--format", "html", "-o", html], check=False)
            driver.get("file://" + html)
            driver.save_screenshot(os.path.join(out, name + ".png"))
    finally:
        driver.quit()


if __name__ == "__main__":
    main(os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]))
