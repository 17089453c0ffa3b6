"""Every documented way back, run as real Unix students: nothing hidden reaches them before the due date.

What waits for the due date (``hidden_until_due``: the KV cache's cells) is wrong in every hand-in
(a catalogued mistake, "ignores the cache"). Each way back the docs give (the tutorial,
guides/live-grading.md, students.md, admin/jupyterhub.md, README) is run as written, in order, as
the instructor (root) and as the students (accounts of their own, the student deployment, nbgrader's
stock ``submit`` and ``fetch_feedback``):

    gradekit serve                                  live: each hand-in's page seconds after Submit
    gradekit autograde, while serve runs            a regrade through the service
    nbgrader collect, gradekit autograde,           the tutorial's batch way ("whole workflow")
      gradekit feedback, nbgrader release_feedback
    gradekit collect, gradekit autograde,           the batch way through the course's exchange
      gradekit release-feedback
    gradekit autograde (no service)                 a regrade: the pages that were out given again

Before the due date, no page any student fetched names the hidden mistake, and each says what waits
for it; ``gradekit feedback`` keeps the whole pages in feedback-instructor/ (the instructor's), and
feedback/ holds what the policy shows. After the due date (the gradebook's due date moved into the
past), the same ways give the whole pages: the mistake is named.
"""

from __future__ import annotations

import datetime as dt
import os
import shutil
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
STUDENTS = ("gkway1", "gkway2", "gkway3")
GRADEKIT, NBGRADER = str(VENV_BIN / "gradekit"), str(VENV_BIN / "nbgrader")
HIDDEN = '[serve]\nhidden_until_due = ["test_kv_cache", "test_kv_cache_decode"]\n'
MISTAKE = "ignores the cache"  # what the page says of the hidden cell's mistake, once it may
WAITS = "Checked after the due date"  # what it says of a hidden cell before


@pytest.fixture(scope="module")
def klass(tmp_path_factory):
    reason = unix_users.unavailable()
    if reason:
        pytest.skip(reason)
    accounts = {a.name: a for a in unix_users.create(list(STUDENTS))}
    root = Path("/tmp") / f"gk-ways-back-{os.getpid()}"
    shutil.rmtree(root, ignore_errors=True)
    course = CourseDir.create(tmp_path_factory.mktemp("ways") / "course", STUDENTS)
    with open(course.root / "nbgrader_config.py", "a") as fh:
        fh.write(f'\nc.Exchange.root = "{root}"\n')
    course.write_settings(A, HIDDEN)
    try:
        course.generate()
        course.run(GRADEKIT, "release", A)
        _due(course, days=7)
        config = course.run(GRADEKIT, "student-config").stdout
        for account in accounts.values():
            account.write_config(config)
            account.nbgrader("fetch_assignment", A)
            _wrong(course, account)
        yield SimpleNamespace(course=course, root=root, **accounts)
    finally:
        unix_users.remove(list(STUDENTS))
        shutil.rmtree(root, ignore_errors=True)


def _due(course: CourseDir, days: float) -> None:
    """The assignment's due date in the gradebook, ``days`` from now (negative: past)."""
    due = dt.datetime.now(dt.timezone.utc) + dt.timedelta(days=days)
    course.run(NBGRADER, "db", "assignment", "add", A, f"--duedate={due:%Y-%m-%d %H:%M:%S} UTC")


def _wrong(course: CourseDir, account) -> None:
    """The student's notebook: right everywhere but the hidden KV cache, which ignores the cache."""
    path = account.home / A / f"{NOTEBOOK}.ipynb"
    notebook = with_solutions(course.answer_key(account.name), known_sources("mistakes/kv_ignores_cache"))
    path.write_text(nbformat.writes(notebook))
    shutil.chown(path, account.name, account.name)


def Service(course: CourseDir, log: Path) -> processes.Serve:
    env = dict(os.environ, PATH=f"{VENV_BIN}:{os.environ.get('PATH', '')}", GRADEKIT_SECRET=SECRET)
    return processes.Serve(GRADEKIT, course.root, log, A, env=env)


def _held(account) -> dict[Path, str]:
    """Every feedback page the student holds (what their last fetch brought)."""
    return {p: p.read_text() for p in sorted((account.home / A / "feedback").glob("*/*.html"))}


def _pages(account) -> dict[Path, str]:
    """Every feedback page the student holds, after a fetch (as the student: their own account)."""
    fetched = account.nbgrader("fetch_feedback", A, check=False)
    assert fetched.returncode == 0, fetched.stderr
    return _held(account)


def _fetch_new(account, before: dict[Path, str], timeout: float = 60) -> dict[Path, str]:
    """Fetch until a page is new or changed since ``before``; every page held then."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        pages = _pages(account)
        if any(before.get(p) != text for p, text in pages.items()):
            return pages
        time.sleep(0.3)
    raise AssertionError(f"{account.name}: no new or changed feedback page within {timeout} s")


def _out(x, account) -> Path:
    """The page of ``account``'s collected submission in the exchange, where their fetch finds it."""
    from gradekit.exchange.filesystem.layout import feedback_name

    secret = (x.course.root / "submitted" / account.name / A / "submission_secret.txt").read_text()
    return x.root / x.course.course.course_id / "feedback" / feedback_name(secret, NOTEBOOK)


STALE = "the page of an earlier grading"


def _stale(x, account) -> None:
    """The exchange's page for ``account`` as an earlier grading's would be: a regrade gives the page
    again over it (a page the exchange holds word for word is left as it is, its time untouched)."""
    _out(x, account).write_text(STALE)


def _given_again(x, account, timeout: float = 60) -> None:
    """Wait until the exchange's page for ``account`` is no longer the stale one (:func:`_stale`)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if _out(x, account).read_text() != STALE:
            return
        time.sleep(0.2)
    raise AssertionError(f"{account.name}: no page given again within {timeout} s")


def _nothing_hidden(account, pages: dict[Path, str], way: str) -> None:
    assert pages, f"{way}: {account.name} fetched no page"
    for path, text in pages.items():
        assert MISTAKE not in text, f"{way}: {account.name}'s {path} names what waits for the due date"
        assert WAITS in text, f"{way}: {account.name}'s {path} does not say what waits for the due date"


def _whole(account, pages: dict[Path, str], way: str) -> None:
    newest = max(pages, key=lambda p: p.stat().st_mtime_ns)
    assert MISTAKE in pages[newest] and WAITS not in pages[newest], f"{way}: {account.name}'s page after the due date"


def test_every_documented_way_back_hides_what_waits_for_the_due_date_then_gives_it(klass, tmp_path):
    x = klass
    course = x.course
    one, two, three = x.gkway1, x.gkway2, x.gkway3

    # gradekit serve: the page seconds after Submit, then a regrade through it (gradekit autograde)
    service = Service(course, tmp_path / "serve.log")
    try:
        one.nbgrader("submit", A)
        _nothing_hidden(one, _fetch_new(one, {}), "gradekit serve")
        _stale(x, one)
        assert "graded by the running service" in course.run(GRADEKIT, "autograde", A, "--force",
                                                             "--student", one.name).stdout
        service.wait_for(rf"gave {one.name} {A}'s feedback again")
        _given_again(x, one)
        _nothing_hidden(one, _pages(one), "gradekit autograde while gradekit serve runs")
    finally:
        assert service.stop() == 0

    # the tutorial's batch way: nbgrader collect, gradekit autograde, gradekit feedback, nbgrader release_feedback
    two.nbgrader("submit", A)
    course.run(NBGRADER, "collect", A)
    course.run(GRADEKIT, "autograde", A, "--student", two.name)
    written = course.run(GRADEKIT, "feedback", A, "--student", two.name).stdout
    assert "feedback-instructor" in written, written
    page = course.root / "feedback" / two.name / A / f"{NOTEBOOK}.html"
    whole = course.root / "feedback-instructor" / two.name / A / f"{NOTEBOOK}.html"
    assert MISTAKE not in page.read_text() and WAITS in page.read_text()   # what any release step may hand out
    assert MISTAKE in whole.read_text()                                    # the instructor's, out of every exchange
    course.run(NBGRADER, "release_feedback", A)
    _nothing_hidden(two, _fetch_new(two, {}), "nbgrader collect / gradekit feedback / nbgrader release_feedback")

    # the batch way through the course's exchange: gradekit collect, autograde, release-feedback
    three.nbgrader("submit", A)
    course.run(GRADEKIT, "collect", A)
    course.run(GRADEKIT, "autograde", A, "--student", three.name)
    course.run(GRADEKIT, "release-feedback", A, "--student", three.name)
    _nothing_hidden(three, _fetch_new(three, {}), "gradekit collect / autograde / release-feedback")
    # a regrade without a service gives the pages that were out again
    for account in (one, two, three):
        _stale(x, account)
    regraded = course.run(GRADEKIT, "autograde", A, "--force").stdout
    assert "feedback given again to 3 student(s) whose feedback was out" in regraded, regraded
    for account in (one, two, three):
        _given_again(x, account)
        _nothing_hidden(account, _pages(account), "gradekit autograde (a regrade, no service)")

    # after the due date: the same ways give the whole pages
    _due(course, days=-1)
    held = {a.name: _held(a) for a in (one, two, three)}   # each fetched last: nothing was given back since
    course.run(GRADEKIT, "release-feedback", A)
    for account in (one, two, three):
        _whole(account, _fetch_new(account, held[account.name]), "gradekit release-feedback after the due date")
    course.run(GRADEKIT, "feedback", A)
    assert MISTAKE in page.read_text() and WAITS not in page.read_text()
    out = x.root / course.course.course_id / "feedback"
    for path in out.glob("*.html"):
        path.unlink()  # what nbgrader release_feedback gives must come from it, not be there already
    course.run(NBGRADER, "release_feedback", A)
    given = sorted(out.glob("*.html"))
    assert len(given) == 3 and all(MISTAKE in p.read_text() for p in given), given
    service = Service(course, tmp_path / "after.log")
    try:
        time.sleep(1.1)  # nbgrader names a hand-in by the second
        before = _pages(one)
        one.nbgrader("submit", A)
        _whole(one, _fetch_new(one, before), "gradekit serve after the due date")
    finally:
        assert service.stop() == 0
