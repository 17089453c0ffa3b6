"""Every documented way back on the hub exchange, as hub students: nothing hidden before the due date.

The hub of tests/hub/test_hub_service.py (its fixture, a hub of this module's own); the students hand
in with nbgrader's own submit through the hub exchange and read their feedback with fetch_feedback,
as their servers run them. What waits for the due date (the KV cache's cells) is wrong in every
hand-in ("ignores the cache"). The ways back the docs give for a hub course (guides/live-grading.md,
admin/kubernetes-docker.md, the tutorial) are run as written:

    gradekit serve                                  live, and a regrade through it (gradekit autograde)
    gradekit collect, autograde, release-feedback   the batch way through the exchange
    gradekit autograde (no service)                 a regrade: the pages that were out given again
    gradekit feedback, nbgrader release_feedback    gradekit's release_feedback class on a hub course

Before the due date no page a student fetches names the hidden mistake; after it, the same ways
give the whole pages.
"""

from __future__ import annotations

import datetime as dt
import time

import nbformat
import pytest
from conftest import NOTEBOOK, known_sources, with_solutions
from test_hub_service import A, GRADEKIT, NBGRADER, Serve, Student, _exchange, hub  # noqa: F401 - hub: the fixture

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

HIDDEN = '[serve]\nhidden_until_due = ["test_kv_cache", "test_kv_cache_decode"]\n'
MISTAKE = "ignores the cache"
WAITS = "Checked after the due date"


def _due(course, days: float) -> None:
    due = dt.datetime.now(dt.timezone.utc) + dt.timedelta(days=days)
    course.run(NBGRADER, "db", "assignment", "add", A, f"--duedate={due:%Y-%m-%d %H:%M:%S} UTC")


def _held(student: Student) -> dict:
    """Every feedback page the student holds (what their last fetch brought)."""
    return {p: p.read_text() for p in sorted((student.home / A / "feedback").glob("*/*.html"))}


def _pages(student: Student) -> dict:
    student.nbgrader("fetch_feedback", A, check=False)
    return _held(student)


def _fetch_changed(student: Student, before: dict, timeout: float = 60) -> dict:
    """Fetch until a page is new or changed since ``before``; every page held then."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        pages = _pages(student)
        if any(before.get(p) != text for p, text in pages.items()):
            return pages
        time.sleep(0.3)
    raise AssertionError(f"{student.name}: no new or changed feedback within {timeout} s")


def _given(hub, student: str) -> list[str]:
    """When each page of ``student``'s hand-ins was given back, from the exchange's records."""
    import sqlite3

    with sqlite3.connect(hub.store / "exchange.sqlite") as db:
        return sorted(r[0] for r in db.execute(
            "SELECT f.released FROM gk_feedback f JOIN gk_handins h ON h.id = f.handin WHERE h.user = ?", (student,)))


def _given_again(hub, student: str, before: list[str], timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if _given(hub, student) != before:
            return
        time.sleep(0.2)
    raise AssertionError(f"{student}: no page given again within {timeout} s")


def _nothing_hidden(student: Student, pages: dict, way: str) -> None:
    assert pages, f"{way}: {student.name} fetched no page"
    for path, text in pages.items():
        assert MISTAKE not in text, f"{way}: {student.name}'s {path} names what waits for the due date"
        assert WAITS in text, f"{way}: {student.name}'s {path} does not say what waits for the due date"


def _whole(student: Student, pages: dict, way: str) -> None:
    newest = max(pages, key=lambda p: p.stat().st_mtime_ns)
    assert MISTAKE in pages[newest] and WAITS not in pages[newest], f"{way}: {student.name}'s page after the due date"


def test_every_documented_way_back_on_the_hub_hides_what_waits_then_gives_it(hub, tmp_path):
    course = hub.course
    course.write_settings(A, HIDDEN)
    _due(course, days=7)
    _exchange(hub).publish(A, force=True)
    ada, bob, cy = (Student(hub, name, tmp_path / name) for name in ("ada", "bob", "cy"))
    for student in (ada, bob, cy):
        student.nbgrader("fetch_assignment", A)
        wrong = with_solutions(course.answer_key(student.name), known_sources("mistakes/kv_ignores_cache"))
        (student.home / A / f"{NOTEBOOK}.ipynb").write_text(nbformat.writes(wrong))
    try:
        # gradekit serve, and a regrade through it
        serve = Serve(course, tmp_path / "serve.log")
        try:
            ada.nbgrader("submit", A)
            _nothing_hidden(ada, _fetch_changed(ada, {}), "gradekit serve")
            before = _given(hub, "ada")
            out = course.run(GRADEKIT, "autograde", A, "--force", "--student", "ada").stdout
            assert "graded by the running service" in out, out
            serve.wait_for(r"gave ada self_attention's feedback again")
            _given_again(hub, "ada", before)
            _nothing_hidden(ada, _pages(ada), "gradekit autograde while gradekit serve runs")
        finally:
            assert serve.stop() == 0

        # the batch way through the exchange, and a regrade without a service
        bob.nbgrader("submit", A)
        course.run(GRADEKIT, "collect", A)
        course.run(GRADEKIT, "autograde", A, "--student", "bob")
        course.run(GRADEKIT, "release-feedback", A, "--student", "bob")
        _nothing_hidden(bob, _fetch_changed(bob, {}), "gradekit collect / autograde / release-feedback")
        before = {s: _given(hub, s) for s in ("ada", "bob")}
        regraded = course.run(GRADEKIT, "autograde", A, "--force", "--student", "ada", "--student", "bob").stdout
        assert "feedback given again to 2 student(s) whose feedback was out" in regraded, regraded
        for student in (ada, bob):
            _given_again(hub, student.name, before[student.name])
            _nothing_hidden(student, _pages(student), "gradekit autograde (a regrade, no service)")

        # gradekit feedback, then nbgrader release_feedback (gradekit's class gives back through the hub exchange)
        cy.nbgrader("submit", A)
        course.run(GRADEKIT, "collect", A)
        course.run(GRADEKIT, "autograde", A, "--student", "cy")
        course.run(GRADEKIT, "feedback", A, "--student", "cy")
        assert MISTAKE in (course.root / "feedback-instructor" / "cy" / A / f"{NOTEBOOK}.html").read_text()
        course.run(NBGRADER, "release_feedback", A, "--student", "cy")
        _nothing_hidden(cy, _fetch_changed(cy, {}), "gradekit feedback / nbgrader release_feedback")

        # after the due date: the whole pages
        _due(course, days=-1)
        held = {s.name: _held(s) for s in (ada, bob, cy)}   # each fetched last: nothing was given back since
        course.run(GRADEKIT, "release-feedback", A, "--student", "ada", "--student", "bob")
        for student in (ada, bob):
            _whole(student, _fetch_changed(student, held[student.name]), "gradekit release-feedback after the due date")
        course.run(NBGRADER, "release_feedback", A, "--student", "cy")
        _whole(cy, _fetch_changed(cy, held["cy"]), "nbgrader release_feedback after the due date")
        serve = Serve(course, tmp_path / "after.log")
        try:
            time.sleep(1.1)
            before_pages = _pages(ada)
            ada.nbgrader("submit", A)
            _whole(ada, _fetch_changed(ada, before_pages), "gradekit serve after the due date")
        finally:
            assert serve.stop() == 0
    finally:
        course.write_settings(A, "")
        _due(course, days=7)
