"""``gradekit serve`` started before its exchange is there waits for it, saying why once, and never exits on it.

A hub starts its services with itself, in any order: serve's exchange may be a folder nobody has
released into yet, or a hub exchange the hub's proxy has no route to yet (404), that is starting again
(502, 503), or that nothing listens for (a refused connection). serve exited 2 on each, and the hub
started it again: grading began 34 s after the hub. Here: serve waits, one line; the exchange comes;
serve takes hand-ins in; SIGTERM ends a serve still waiting at once.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import hubs
import pytest
from conftest import ASSIGNMENT, SECRET, VENV_BIN, CourseDir

pytestmark = [pytest.mark.e2e]

A = ASSIGNMENT
GRADEKIT = str(VENV_BIN / "gradekit")


class Waiting:
    """``gradekit serve A`` in ``course``, its log read as it grows."""

    def __init__(self, course: CourseDir, log: Path):
        env = dict(os.environ, PATH=f"{VENV_BIN}:{os.environ.get('PATH', '')}", GRADEKIT_SECRET=SECRET)
        self.log = log
        self.proc = subprocess.Popen([GRADEKIT, "serve", A], cwd=course.root, env=env, stdout=open(log, "w"),
                                     stderr=subprocess.STDOUT)

    def lines(self) -> list[str]:
        return self.log.read_text().splitlines()

    def wait_for(self, text: str, timeout: float = 60) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = [line for line in self.lines() if text in line]
            if found:
                return found[0]
            assert self.proc.poll() is None, f"serve exited ({self.proc.returncode}):\n" + "\n".join(self.lines())
            time.sleep(0.05)
        raise AssertionError(f"no {text!r} in serve's log:\n" + "\n".join(self.lines()))

    def stop(self) -> tuple[int, float]:
        started = time.monotonic()
        self.proc.send_signal(signal.SIGTERM)
        try:
            code = self.proc.wait(30)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
        return code, time.monotonic() - started


def test_serve_waits_for_a_release_then_takes_hand_ins_in(tmp_path):
    course = CourseDir.create(tmp_path / "course", ("gkwaitann",))
    exchange = tmp_path / "exchange"
    with open(course.root / "nbgrader_config.py", "a") as fh:
        fh.write(f'\nc.Exchange.root = "{exchange}"\n')
    course.generate()
    serve = Waiting(course, tmp_path / "serve.log")
    try:
        line = serve.wait_for("waiting: no exchange for transformers101")
        assert "release an assignment first" in line
        time.sleep(1.5)                                     # it keeps waiting, and says it once
        assert serve.proc.poll() is None and sum("waiting:" in x for x in serve.lines()) == 1, serve.lines()
        course.run(GRADEKIT, "release", A)
        serve.wait_for("the exchange is ready, after")
        serve.wait_for(f"serving {A} of transformers101: watching {exchange}/transformers101/inbound")
        # no due date: the admin is told that every page shows at once whether each answer is right (a course
        # set up from docs/admin/one-account.md, which had no due-date step, was an oracle for its quiz)
        said = serve.wait_for(f"{A} has no due date: nothing is hidden")
        assert f"nbgrader db assignment add {A} --duedate=" in said, said
    finally:
        code, _took = serve.stop()
    assert code == 0, serve.lines()


def test_serve_waits_for_a_hub_exchange_nothing_answers_and_stops_at_once_on_sigterm(tmp_path):
    (port,) = hubs.free_ports(1)                            # nothing listens there: a refused connection
    course = CourseDir.create(tmp_path / "course", ("gkwaitann",))
    (course.root / ".gradekit").mkdir(exist_ok=True)
    (course.root / ".gradekit" / "hub-token").write_text("x" * 64)
    with open(course.root / "nbgrader_config.py", "a") as fh:
        fh.write(f'\nc.Gradekit.exchange = "hub"\nc.GradekitHubExchange.url = '
                 f'"http://127.0.0.1:{port}/services/gradekit-exchange/"\n'
                 'c.GradekitHubExchange.token_file = ".gradekit/hub-token"\n')
    serve = Waiting(course, tmp_path / "serve.log")
    line = serve.wait_for("waiting: the hub exchange:")
    assert "cannot be reached" in line and "Connection refused" in line, line
    time.sleep(3)                                           # past its backoff's longest pause: still waiting
    assert serve.proc.poll() is None and sum("waiting:" in x for x in serve.lines()) == 1, serve.lines()
    code, took = serve.stop()
    assert code == 0 and took < 5, (code, took, serve.lines())
    assert serve.lines()[-1].endswith("stopped before the exchange was ready: 0 hand-in(s) graded"), serve.lines()
