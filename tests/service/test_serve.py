"""``gradekit serve`` with real Unix students: feedback seconds after Submit, and nothing lost (issue 19).

The students (accounts of their own, the student deployment) hand in with
nbgrader's stock ``submit`` and fetch with ``fetch_feedback``; the instructor
(root) runs the service. A resubmission is graded and counts; the attempt limit
and the hidden-until-due policy hold; ``kill -9`` and a restart grade every
hand-in exactly once; a second service refuses; ``autograde`` hands its work to
the running one; a spoofed hand-in is refused as ``collect`` refuses it.
"""

from __future__ import annotations

import datetime as dt
import os
import re
import shutil
import signal
import time
from pathlib import Path
from types import SimpleNamespace

import nbformat
import processes
import pytest
import unix_users
from conftest import ASSIGNMENT, NOTEBOOK, SECRET, VENV_BIN, CourseDir, known_sources, with_solutions

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

A = ASSIGNMENT
STUDENTS = ("gkann", "gkben", "gkcat")
GRADEKIT, NBGRADER = str(VENV_BIN / "gradekit"), str(VENV_BIN / "nbgrader")
STAMP = "%Y-%m-%d %H:%M:%S.%f UTC"


def Service(course: CourseDir, log: Path) -> processes.Serve:
    """``gradekit serve`` as a child process, its log read line by line."""
    env = dict(os.environ, PATH=f"{VENV_BIN}:{os.environ.get('PATH', '')}", GRADEKIT_SECRET=SECRET)
    return processes.Serve(GRADEKIT, course.root, log, A, env=env)


def _put(account, notebook) -> None:
    path = account.home / A / f"{NOTEBOOK}.ipynb"
    path.write_text(nbformat.writes(notebook))
    shutil.chown(path, account.name, account.name)


def _fetched(account, timeout: float = 30) -> tuple[float, list[Path]]:
    """Fetch feedback until a new page arrives; (seconds it took, the pages)."""
    before = set((account.home / A / "feedback").glob("*/*.html"))
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        account.nbgrader("fetch_feedback", A, check=False)
        pages = set((account.home / A / "feedback").glob("*/*.html"))
        if pages - before:
            return time.monotonic() - started, sorted(pages)
        time.sleep(0.2)
    raise AssertionError(f"{account.name}: no new feedback within {timeout} s")


@pytest.fixture(scope="module")
def klass(tmp_path_factory):
    reason = unix_users.unavailable()
    if reason:
        pytest.skip(reason)
    accounts = {a.name: a for a in unix_users.create(list(STUDENTS))}
    root = Path("/tmp") / f"gk-serve-exchange-{os.getpid()}"
    shutil.rmtree(root, ignore_errors=True)
    course = CourseDir.create(tmp_path_factory.mktemp("serve") / "course", STUDENTS)
    with open(course.root / "nbgrader_config.py", "a") as fh:
        fh.write(f'\nc.Exchange.root = "{root}"\nc.Gradekit.attempts = 4\n')
    course.write_settings(A, '[serve]\nhidden_until_due = ["test_kv_cache", "test_kv_cache_decode"]\n')
    try:
        course.generate()
        course.run(GRADEKIT, "release", A)
        due = dt.datetime.now(dt.timezone.utc) + dt.timedelta(days=7)
        course.run(NBGRADER, "db", "assignment", "add", A, f"--duedate={due:%Y-%m-%d %H:%M:%S} UTC")
        config = course.run(GRADEKIT, "student-config").stdout
        for account in accounts.values():
            account.write_config(config)
            account.nbgrader("fetch_assignment", A)
        yield SimpleNamespace(course=course, root=root, inbound=root / "transformers101" / "inbound", **accounts)
    finally:
        unix_users.remove(list(STUDENTS))
        shutil.rmtree(root, ignore_errors=True)


def test_feedback_seconds_after_submit_and_a_resubmission_counts(klass, tmp_path):
    x = klass
    service = Service(x.course, tmp_path / "serve.log")
    try:
        key = x.course.answer_key("gkann")
        _put(x.gkann, with_solutions(key, known_sources("mistakes/softmax_wrong_axis")))
        x.gkann.nbgrader("submit", A)
        took, pages = _fetched(x.gkann)
        page = pages[-1].read_text()
        assert "normalised along axis 0 whatever" in page and "attempt 1 of 4" in page
        (line,) = service.wait_for(r"graded gkann .* attempt 1: 17/20 .* s after it arrived")   # bench/ times it
        # the hidden cells: graded, but neither right nor wrong on the page before the due date
        assert "Checked after the due date" in page and "Score so far" in page
        # one score: the log's is the gradebook's, and it says what the page shows and what waits, as the page does
        shown = re.search(r"; the page shows (\S+)/20 until the due date, (.+) hidden$", line)
        assert shown and "test_kv_cache (" in shown.group(2) and "test_kv_cache_decode (" in shown.group(2), line
        assert f"The whole hand-in so far: {shown.group(1)} / 20." in page, page[:3000]
        with x.course.gradebook() as gb:
            assert gb.find_submission(A, "gkann").score == 17
        time.sleep(1.1)   # nbgrader names a hand-in by the second
        _put(x.gkann, key)
        x.gkann.nbgrader("submit", A)
        took, pages = _fetched(x.gkann)
        assert "attempt 2 of 4" in pages[-1].read_text() and "your last attempt counts" in pages[-1].read_text()
        service.wait_for(r"graded gkann .* attempt 2: 20/20 \(it counts\)")
        assert x.course.results(["gkann"])["gkann"].score == 20      # the gradebook's record: the last
        with x.course.gradebook() as gb:
            assert gb.find_submission(A, "gkann").score == 20
        # autograde hands its work to the running service
        out = x.course.run(GRADEKIT, "autograde", A, "--force").stdout
        assert "graded by the running service" in out, out
        service.wait_for(r"regraded gkann")
        second = x.course.run(GRADEKIT, "serve", A, check=False)
        assert second.returncode == 2 and "another `gradekit serve` is running" in second.stderr
        # attempts 3 and 4 are graded, the fifth is not
        for _ in range(3):
            time.sleep(1.1)
            x.gkann.nbgrader("submit", A)
        service.wait_for(r"graded gkann .* attempt 4")
        service.wait_for(r"not graded: gkann .*all 4 attempts used")
        # every attempt's page fetched again and again, as the student's own account (each fetch copies
        # the earlier attempts' pages too: a mode of the exchange's kept on them would stop it)
        for _ in range(2):
            fetch = x.gkann.nbgrader("fetch_feedback", A, check=False)
            assert fetch.returncode == 0 and "Error" not in fetch.stderr, fetch.stderr
        pages = sorted((x.gkann.home / A / "feedback").glob("*/*.html"))
        assert len({p.parent for p in pages}) == 4, pages
        assert all(x.gkann.may("cat", f"'{p}'") for p in pages)
    finally:
        assert service.stop() == 0
    assert not service.left, service.left


def test_kill_9_loses_nothing_and_counts_nothing_twice(klass, tmp_path):
    x = klass
    service = Service(x.course, tmp_path / "first.log")
    for who in (x.gkben, x.gkcat):
        _put(who, x.course.answer_key(who.name))
    x.gkben.nbgrader("submit", A)
    service.wait_for(r"received gkben")
    service.stop(signal.SIGKILL)        # as it grades gkben, or just after
    assert not service.left, f"left running after kill -9: {service.left}"
    x.gkcat.nbgrader("submit", A)       # while no service runs
    time.sleep(1.1)
    x.gkben.nbgrader("submit", A)
    again = Service(x.course, tmp_path / "second.log")
    try:
        again.wait_for(r"graded gkben .* attempt 2", timeout=60)
        again.wait_for(r"graded gkcat .* attempt 1", timeout=60)
    finally:
        again.stop()
    first, second = (tmp_path / "first.log").read_text(), (tmp_path / "second.log").read_text()
    by_first, by_second = (re.findall(r"graded (\w+) \S+ attempt (\d+)", log) for log in (first, second))
    graded = by_first + by_second
    assert sorted(set(graded)) == sorted(graded), f"graded twice: {graded}"
    assert {("gkben", "2"), ("gkcat", "1")} <= set(by_second)
    # gkben's first hand-in: graded by the first service (its line may die with it: kill -9 can fall between
    # the result kept and the line written) or taken again by the second ("resumed"), never both; the ledger
    # says graded
    taken_again = re.search(r"(?:received|resumed) gkben \S+ \(?hand-in 1\b", second)
    assert not (taken_again and ("gkben", "1") in by_first), first + second
    assert taken_again or ("gkben", "1") not in by_second
    results = x.course.results(["gkben", "gkcat"])
    assert results["gkben"].handin == 2 and results["gkcat"].score == 20
    from gradekit.course import Course
    from gradekit.exchange.ledger import Ledger

    with Ledger(Course.load(x.course.root)) as ledger:   # every hand-in settled, once
        entries = [e for e in ledger.entries(A) if e.student in ("gkben", "gkcat")]
    assert [(e.student, e.number, e.fate) for e in entries] == \
        [("gkben", 1, "graded"), ("gkcat", 1, "graded"), ("gkben", 2, "graded")]


def test_a_spoofed_hand_in_is_refused_by_the_service(klass, tmp_path):
    x = klass
    service = Service(x.course, tmp_path / "serve.log")
    try:
        later = (dt.datetime.now(dt.timezone.utc).replace(tzinfo=None) + dt.timedelta(minutes=5)).strftime(STAMP)
        spoof = x.inbound / f"gkcat+{A}+{later}+spoofed"
        x.gkben.run("sh", "-c", f"mkdir '{spoof}' && cp ~/{A}/{NOTEBOOK}.ipynb '{spoof}/' && chmod 770 '{spoof}'")
        line = service.wait_for(r"another student's name")[0]
        assert "gkcat" in line and "gkben" in line
        time.sleep(1)
    finally:
        service.stop()
    assert x.course.results(["gkcat"])["gkcat"].score == 20           # the victim keeps their grade


def test_the_assignments_settings_drive_serve_and_are_read_again_when_they_change(klass, tmp_path):
    """attempts and counts from source/<assignment>/assignment.toml, over the course's c.Gradekit.attempts
    = 4: the best attempt counts, on the page, in the log and in the gradebook; the file changed while the
    service runs is read again at the next hand-in (one line says what changed); a file that no longer
    reads leaves the settings in force, with one line naming what is wrong."""
    x = klass
    hidden = 'hidden_until_due = ["test_kv_cache", "test_kv_cache_decode"]\n'
    settings = x.course.root / "source" / A / "assignment.toml"
    before = settings.read_text()
    mine = [e for e in _ledger(x) if e.student == "gkcat"]
    graded_before = len([e for e in mine if e.fate == "graded"])
    settings.write_text(f'[serve]\n{hidden}attempts = {graded_before + 2}\ncounts = "best"\n')
    service = Service(x.course, tmp_path / "serve.log")
    try:
        first = max(e.number for e in mine) + 1
        _put(x.gkcat, with_solutions(x.course.answer_key("gkcat"), known_sources("mistakes/softmax_wrong_axis")))
        time.sleep(1.1)
        x.gkcat.nbgrader("submit", A)
        _, pages = _fetched(x.gkcat)
        page = pages[-1].read_text()
        assert f"attempt {first} of {graded_before + 2}" in page, page[:2000]
        assert "your best attempt counts: which one is said after the due date" in page, page[:2000]
        service.wait_for(rf"graded gkcat {A} attempt {first}: 17/20 \(attempt 1 counts: 20/20\)")
        assert x.course.results(["gkcat"])["gkcat"].score == 20          # the best, not the last
        # one attempt fewer, while the service runs: the next hand-in is received and not graded
        settings.write_text(f'[serve]\n{hidden}attempts = {graded_before + 1}\ncounts = "best"\n')
        time.sleep(NEXT_SECOND)
        x.gkcat.nbgrader("submit", A)
        service.wait_for(rf"{A}/assignment.toml read again: attempts {graded_before + 2} -> {graded_before + 1}$")
        service.wait_for(rf"not graded: gkcat .*all {graded_before + 1} attempts used")
        # a file that no longer reads: named, and the settings in force stay
        settings.write_text(f'[serve]\n{hidden}attempts = "many"\n')
        time.sleep(NEXT_SECOND)
        x.gkcat.nbgrader("submit", A)
        service.wait_for(r"assignment.toml: \[serve\] attempts must be a whole number of 0 or more, not 'many' -- "
                         r"the settings read before stay in force until it is fixed")
        service.wait_for(rf"not graded: gkcat .*all {graded_before + 1} attempts used", count=2)
        assert x.course.results(["gkcat"])["gkcat"].score == 20
    finally:
        settings.write_text(before)
        assert service.stop() == 0
    assert not service.left, service.left


NEXT_SECOND = 1.1  # seconds: nbgrader names a hand-in by the second (and the service, started by
# processes.Serve, looks at a changed settings file every processes.LOOKS s, well within it)


def _ledger(x):
    from gradekit.course import Course
    from gradekit.exchange.ledger import Ledger

    with Ledger(Course.load(x.course.root)) as ledger:
        return [e for e in ledger.entries(A)]
