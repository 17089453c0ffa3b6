"""gradekit.web.serving: a service that cannot start, inside a hub, answers 503 with its one line (hold_broken).

A hub waits for a service it starts to come up, and exits when it does not: a ``gradekit grade`` or
``gradekit report --serve`` of a broken course would take the hub down with it. Started as a hub starts
it (``$JUPYTERHUB_SERVICE_URL`` and the other variables a hub sets), it answers every request 503 with
the course's one line for a while, stops within seconds of SIGTERM, and exits with the course error's
code; outside a hub it exits at once with that line.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
import urllib.error
import urllib.request

import pytest
import ports
from conftest import VENV_BIN, CourseDir

pytest.importorskip("tornado")

GRADEKIT = str(VENV_BIN / "gradekit")
LINE = "unknown assignment 'no_such_week'"


def _free_port() -> int:
    return ports.free_port()


def _get(url) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=5) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


@pytest.mark.parametrize("verb", [["grade", "no_such_week"], ["report", "--serve", "no_such_week"]],
                         ids=["grade", "report"])
def test_a_broken_service_in_a_hub_answers_503_with_its_line_and_stops_on_sigterm(tmp_path, verb):
    course = CourseDir.create(tmp_path / "course", ("alice",))
    port = _free_port()
    prefix = f"/services/gradekit-{verb[0]}/"
    env = dict(os.environ, PATH=f"{VENV_BIN}:/usr/bin:/bin", JUPYTERHUB_SERVICE_NAME=f"gradekit-{verb[0]}",
               JUPYTERHUB_SERVICE_URL=f"http://127.0.0.1:{port}{prefix}", JUPYTERHUB_SERVICE_PREFIX=prefix,
               JUPYTERHUB_PUBLIC_HUB_URL="https://hub.example.edu/hub/")
    proc = subprocess.Popen([GRADEKIT, *verb], cwd=course.root, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                status, body = _get(f"http://127.0.0.1:{port}{prefix}anything?x=1")
                break
            except (urllib.error.URLError, ConnectionError):
                assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
                time.sleep(0.2)
        assert status == 503 and body.startswith("gradekit: ") and LINE in body and body.count("\n") == 1, body
        posted = urllib.request.Request(f"http://127.0.0.1:{port}{prefix}api/x", data=b"{}", method="POST")
        assert _get(posted)[0] == 503
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=15)     # not after the 60 s it waits to start again
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 2, (proc.returncode, out, err)       # the course error's code: a usage error here
    *served, last = err.strip().splitlines()                      # the requests it answered, then its line
    assert all(line.startswith("503 ") for line in served) and len(served) == 2, err
    assert last.startswith("gradekit: ") and LINE in last, err
    assert out.strip().splitlines() == [f"{last} (answering 503 at https://hub.example.edu{prefix}; starting again "
                                        "in 60 s)"], out


def test_outside_a_hub_a_broken_service_exits_at_once_with_its_line(tmp_path):
    course = CourseDir.create(tmp_path / "course", ("alice",))
    env = {k: v for k, v in os.environ.items() if not k.startswith("JUPYTERHUB_")}
    started = time.monotonic()
    proc = subprocess.run([GRADEKIT, "grade", "no_such_week"], cwd=course.root, env=env, capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 2 and proc.stdout == "" and LINE in proc.stderr and proc.stderr.count("\n") == 1, proc
    assert time.monotonic() - started < 30
