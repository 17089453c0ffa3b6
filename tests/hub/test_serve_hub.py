"""``gradekit serve`` through the hub exchange: each hand-in graded the moment the service accepts it.

The hub of tests/hub/test_hub_service.py (its fixture, a hub of this module's own); ``gradekit
serve`` runs on the course with ``c.Gradekit.exchange = "hub"``, the students hand in with
nbgrader's own submit through the hub exchange and read their feedback with fetch_feedback. The
same policies as on the filesystem exchange (the attempt that counts, hidden until the due date),
``kill -9`` and a restart grade each hand-in once, and a hand-in under a classmate's name leaves
the classmate's grade as it was.
"""

from __future__ import annotations

import datetime as dt
import os
import re
import signal
import subprocess
import time
from pathlib import Path

import nbformat
import pytest
from conftest import NOTEBOOK, SECRET, VENV_BIN, known_sources, with_solutions
from processes import Tracker
from test_hub_service import A, GRADEKIT, NBGRADER, Student, _exchange, _handin, hub  # noqa: F401 - hub: the fixture

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


class Serve:
    """``gradekit serve`` as a child process, its log read line by line."""

    def __init__(self, course, log: Path):
        self.log = log
        self.tracker = Tracker(f"serve-hub-{os.getpid()}-{log.stem}", "gkserve")
        env = dict(os.environ, PATH=f"{VENV_BIN}:{os.environ.get('PATH', '')}", GRADEKIT_SECRET=SECRET)
        self.proc = subprocess.Popen([GRADEKIT, "serve", A], cwd=course.root, env=env, stdout=open(log, "w"),
                                     stderr=subprocess.STDOUT, preexec_fn=self.tracker.join)
        self.wait_for("serving ")

    def lines(self) -> list[str]:
        return self.log.read_text().splitlines()

    def wait_for(self, pattern: str, count: int = 1, timeout: float = 90) -> list[str]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = [line for line in self.lines() if re.search(pattern, line)]
            if len(found) >= count:
                return found
            if self.proc.poll() is not None:
                break
            time.sleep(0.05)
        raise AssertionError(f"no {count} x {pattern!r} in the service's log:\n" + "\n".join(self.lines()[-30:]))

    def stop(self, signum=signal.SIGTERM) -> int:
        self.proc.send_signal(signum)
        try:
            return self.proc.wait(30)
        finally:
            self.tracker.close()


def _put(student: Student, notebook) -> None:
    (student.home / A / f"{NOTEBOOK}.ipynb").write_text(nbformat.writes(notebook))


def _feedback(student: Student, timeout: float = 30) -> tuple[float, list[Path]]:
    before = set((student.home / A / "feedback").glob("*/*.html"))
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        student.nbgrader("fetch_feedback", A, check=False)
        pages = set((student.home / A / "feedback").glob("*/*.html"))
        if pages - before:
            return time.monotonic() - started, sorted(pages - before)
        time.sleep(0.2)
    raise AssertionError(f"{student.name}: no new feedback within {timeout} s")


def test_serve_grades_through_the_hub_exchange(hub, tmp_path):
    course = hub.course
    due = dt.datetime.now(dt.timezone.utc) + dt.timedelta(days=7)
    course.run(NBGRADER, "db", "assignment", "add", A, f"--duedate={due:%Y-%m-%d %H:%M:%S} UTC")
    exchange = _exchange(hub)
    exchange.publish(A, force=True)
    ada, bob = Student(hub, "ada", tmp_path / "ada"), Student(hub, "bob", tmp_path / "bob")
    for s in (ada, bob):
        s.nbgrader("fetch_assignment", A)
    serve = Serve(course, tmp_path / "serve.log")
    try:
        assert "taking hand-ins from the hub exchange" in serve.lines()[0]
        key = course.answer_key("ada")
        _put(ada, with_solutions(key, known_sources("mistakes/softmax_wrong_axis")))
        ada.nbgrader("submit", A)
        took, (page,) = _feedback(ada)
        text = page.read_text()
        assert "normalised along axis 0 whatever" in text and "attempt 1" in text, text[:2000]
        line = serve.wait_for(r"graded ada self_attention attempt 1: 17/20 .* s after it arrived")[0]
        assert float(re.search(r"([\d.]+) s after it arrived", line).group(1)) < 5
        assert re.search(r"received ada self_attention \(hand-in 1, gk1~ada~", "\n".join(serve.lines()))
        _put(ada, key)
        time.sleep(1.1)
        ada.nbgrader("submit", A)
        _took, (page,) = _feedback(ada)
        assert "attempt 2" in page.read_text() and "your last attempt counts" in page.read_text()
        serve.wait_for(r"graded ada self_attention attempt 2: 20/20 \(it counts\)")
        assert course.results(["ada"])["ada"].score == 20
        # bob hands in; eve hands in under ada's name: refused, reported, and ada keeps her grade
        _put(bob, course.answer_key("bob"))
        bob.nbgrader("submit", A)
        serve.wait_for(r"graded bob self_attention attempt 1: 20/20")
        refused = _handin(hub, "eve", {f"{NOTEBOOK}.ipynb": b"{}"}, params={"user": "ada"})
        assert refused.status_code == 403
        report = serve.wait_for(r"another student's name")[0]
        assert "ada" in report and "eve" in report
    finally:
        assert serve.stop(signal.SIGKILL) != 0      # kill -9, as it stands
    # while no service runs: bob hands in again; the restart grades it, and nothing twice
    time.sleep(1.1)
    bob.nbgrader("submit", A)
    again = Serve(course, tmp_path / "again.log")
    try:
        again.wait_for(r"graded bob self_attention attempt 2")
        time.sleep(2)
    finally:
        assert again.stop() == 0
    graded = re.findall(r"graded (\w+) \S+ attempt (\d+)", (tmp_path / "serve.log").read_text()
                        + (tmp_path / "again.log").read_text())
    assert sorted(graded) == sorted(set(graded)), graded
    assert course.results(["ada"])["ada"].score == 20 and course.results(["ada"])["ada"].attempt == 2
    assert course.results(["bob"])["bob"].attempt == 2
