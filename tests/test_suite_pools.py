"""The test suite's own grading processes end with it, however it ends.

A pytest that dies of a native crash (vl-convert's SIGTRAP under an address-space
limit did) must not leave its grading processes, their sandboxes, the fork
server or the resource tracker running: every one watches the process that
started it (gradekit.runners.local.exit_with; bubblewrap's --die-with-parent).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest
from conftest import REPO, SECRET, VENV_BIN
from processes import Tracker

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

DIES = textwrap.dedent('''
    import os, signal

    def test_grades_then_dies(course_factory):
        course = course_factory()
        course.generate("alice", "bob")
        for student in ("alice", "bob"):
            course.submit(student, course.answer_key(student))
        assert course.grade("alice").score > 0            # the course's spawned grading process, warm
        assert course.autograde("alice", "bob", jobs=2) == 0   # a fork server, two workers, their sandboxes
        open(os.environ["GK_READY"], "w").close()
        os.kill(os.getpid(), signal.SIGTRAP)            # as a native crash ends a pytest
''')


@pytest.mark.parametrize("signum", [signal.SIGTRAP, signal.SIGKILL])
def test_a_crashed_test_run_leaves_nothing_running(tmp_path, signum):
    (tmp_path / "test_dies.py").write_text(DIES.replace("signal.SIGTRAP", f"signal.{signal.Signals(signum).name}"))
    ready = tmp_path / "ready"
    tracker = Tracker(f"suite-{signum}", "gksuite")
    env = dict(os.environ, PYTHONPATH=str(REPO / "tests"), GK_READY=str(ready), GRADEKIT_SECRET=SECRET,
               PATH=f"{VENV_BIN}:{os.environ.get('PATH', '')}")
    try:
        proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "conftest", "-p", "no:cacheprovider",
                               "--rootdir", str(tmp_path), str(tmp_path / "test_dies.py")],
                              cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
                              preexec_fn=tracker.join)
        assert ready.exists(), proc.stdout[-2000:] + proc.stderr[-2000:]
        assert proc.returncode == -signum, (proc.returncode, proc.stderr[-1000:])
        deadline = time.monotonic() + 15
        while tracker.alive() and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not tracker.alive(), f"still running after the test run died: {tracker.alive()}"
    finally:
        tracker.close()
