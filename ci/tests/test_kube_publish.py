"""The per-node Job's metrics reach a real Prometheus Pushgateway (Debian's prometheus-pushgateway):
each node's push replaces its own group and no other, and a Pushgateway that cannot be reached
is reported, never fatal to the verdict."""
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "fleet"))
sys.path.insert(0, os.path.join(HERE, "..", "kubernetes"))

import gpuconform_kube as kube  # noqa: E402

GPUCONFORM = os.path.abspath(os.environ.get("GPUCONFORM") or os.path.join(HERE, "..", "..", "build", "gpuconform"))
PUSHGATEWAY = shutil.which("prometheus-pushgateway")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def pushgateway(tmp_path):
    if not PUSHGATEWAY:
        pytest.skip("no prometheus-pushgateway (apt-get install prometheus-pushgateway)")
    url = f"http://127.0.0.1:{free_port()}"
    proc = subprocess.Popen([PUSHGATEWAY, f"--web.listen-address={url[7:]}"], stdout=subprocess.DEVNULL,
                            stderr=open(tmp_path / "pushgateway.log", "w"))
    try:
        for _ in range(100):
            try:
                urllib.request.urlopen(url + "/-/ready", timeout=1).close()
                break
            except OSError:
                time.sleep(0.1)
        else:
            pytest.fail("the Pushgateway did not become ready: " + (tmp_path / "pushgateway.log").read_text())
        yield url
    finally:
        proc.terminate()
        proc.wait(10)


def report(tmp_path, name, fault=None):
    path = tmp_path / f"{name}.json"
    extra = ["--fault", fault] if fault else []
    subprocess.run([GPUCONFORM, "run", "--backend", "sim", "--sim-devices", "2", "--layer", "host,runtime",
                    "--quick", "--quiet", "--json", str(path), *extra], check=False, capture_output=True)
    assert path.exists()
    return str(path)


def scrape(url):
    with urllib.request.urlopen(url + "/metrics", timeout=10) as r:
        return r.read().decode()


def status_line(text, node, check="host.distro", status="info"):
    labels = f'check="{check}",instance="{node}",job="gpuconform",status="{status}"'
    return re.search(r"^gpuconform_check_status\{" + re.escape(labels) + r"\} (\S+)$", text, re.M)


def test_each_node_pushes_its_own_group(tmp_path, monkeypatch, pushgateway):
    monkeypatch.setenv("GPUCONFORM_PUSHGATEWAY", pushgateway + "/")
    assert kube.publish_metrics(report(tmp_path, "a"), "gpu-node-17", None, GPUCONFORM) == ""
    assert kube.publish_metrics(report(tmp_path, "b"), "gpu node/18", None, GPUCONFORM) == ""
    text = scrape(pushgateway)
    assert status_line(text, "gpu-node-17").group(1) == "1"
    assert status_line(text, "gpu node/18").group(1) == "1"   # the name is quoted into the path
    # A later night's push replaces that node's group only: its timestamp moves, the other's not.
    stamps = dict(re.findall(r'^push_time_seconds\{instance="([^"]+)",job="gpuconform"\} (\S+)$', text, re.M))
    time.sleep(1.1)
    assert kube.publish_metrics(report(tmp_path, "c"), "gpu-node-17", None, GPUCONFORM) == ""
    again = dict(re.findall(r'^push_time_seconds\{instance="([^"]+)",job="gpuconform"\} (\S+)$',
                            scrape(pushgateway), re.M))
    assert float(again["gpu-node-17"]) > float(stamps["gpu-node-17"])
    assert again["gpu node/18"] == stamps["gpu node/18"]


def test_textfile_and_pushgateway_both_get_the_text(tmp_path, monkeypatch, pushgateway):
    monkeypatch.setenv("GPUCONFORM_PUSHGATEWAY", pushgateway)
    (tmp_path / "textfile").mkdir()
    assert kube.publish_metrics(report(tmp_path, "a"), "n1", str(tmp_path / "textfile"), GPUCONFORM) == ""
    prom = (tmp_path / "textfile" / "gpuconform.prom").read_text()
    assert 'gpuconform_check_status{check="host.distro",status="info"} 1' in prom
    assert status_line(scrape(pushgateway), "n1")


def test_an_unreachable_pushgateway_is_reported_not_fatal(tmp_path, monkeypatch):
    monkeypatch.setenv("GPUCONFORM_PUSHGATEWAY", f"http://127.0.0.1:{free_port()}")
    got = kube.publish_metrics(report(tmp_path, "a"), "n1", None, GPUCONFORM)
    assert got.startswith("Pushgateway http://127.0.0.1:") and "refused" in got.lower()


def test_nothing_is_published_where_nothing_is_configured(tmp_path, monkeypatch):
    monkeypatch.delenv("GPUCONFORM_PUSHGATEWAY", raising=False)
    assert kube.publish_metrics(report(tmp_path, "a"), "n1", None, GPUCONFORM) == ""
