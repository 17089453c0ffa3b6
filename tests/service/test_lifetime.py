"""gradekit.web.lifetime: a service whose hub died stops, even one stuck starting."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

STUCK = textwrap.dedent("""
    import sys, time
    from gradekit.web.lifetime import Hub
    hub = Hub()
    hub.watch(lambda: print("gone", flush=True), interval=0.05, grace=float(sys.argv[1]))
    print("watching", flush=True)
    time.sleep(120)  # a service that never gets back to its loop (a long start, a page's warm-up)
""")

# the "hub": starts the service in a session of its own, as JupyterHub does, and dies once it watches
HUB = textwrap.dedent("""
    import pathlib, subprocess, sys, time
    out = open(sys.argv[2], "w")
    child = subprocess.Popen([sys.executable, "-c", sys.argv[1], sys.argv[3]], stdout=out, stderr=out,
                             stdin=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 60
    while "watching" not in pathlib.Path(sys.argv[2]).read_text() and time.monotonic() < deadline:
        time.sleep(0.05)
    print(child.pid, flush=True)
""")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat")
    return not (stat.exists() and stat.read_text().rsplit(")", 1)[1].split()[0] == "Z")


def _service(tmp_path: Path, grace: float, env: dict) -> tuple[int, Path]:
    out = tmp_path / "service.log"
    hub = subprocess.run([sys.executable, "-c", HUB, STUCK, str(out), str(grace)], env=env, capture_output=True,
                         text=True, check=True)
    return int(hub.stdout), out


def test_a_stuck_service_whose_hub_died_ends_after_its_grace(tmp_path):
    pid, out = _service(tmp_path, 1.0, dict(os.environ, JUPYTERHUB_SERVICE_NAME="gradekit-test"))
    deadline = time.monotonic() + 30
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(pid), "the service still runs 30 s after its hub died"
    assert out.read_text().split() == ["watching", "gone"]  # told first, ended after its grace


def test_a_process_no_hub_started_is_never_ended(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "JUPYTERHUB_SERVICE_NAME"}
    pid, out = _service(tmp_path, 0.1, env)
    try:
        time.sleep(2)
        assert _alive(pid)
        assert "gone" not in out.read_text()
    finally:
        os.kill(pid, 9)


def test_a_service_whose_hub_died_before_it_looked_stops_at_once(tmp_path):
    """The hub killed while its service was still starting: the service, a child of init when it looks,
    takes its hub for dead (init is not a hub here), and is told at once."""
    env = dict(os.environ, JUPYTERHUB_SERVICE_NAME="gradekit-test")
    late = STUCK.replace("hub = Hub()", "time.sleep(1.5)\nhub = Hub()")   # still importing when its hub dies
    out = tmp_path / "service.log"
    hub = textwrap.dedent("""
        import subprocess, sys
        child = subprocess.Popen([sys.executable, "-c", sys.argv[1], "1.0"], stdout=open(sys.argv[2], "w"),
                                 stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True)
        print(child.pid, flush=True)
    """)
    pid = int(subprocess.run([sys.executable, "-c", hub, late, str(out)], env=env, capture_output=True, text=True,
                             check=True).stdout)
    deadline = time.monotonic() + 30
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(pid), "a service whose hub died while it started still runs 30 s later"
    assert out.read_text().split() == ["watching", "gone"], out.read_text()
