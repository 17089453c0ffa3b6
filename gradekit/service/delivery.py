"""Feedback back: how a graded submission's pages reach its student, through the course's exchange.

Whatever grades, the pages go back one way, the exchange's ``give_feedback``
(gradekit.exchange.base), on either exchange:

    gradekit serve                  each hand-in's page the moment it is graded, and again after a
                                    regrade it runs (``gradekit autograde`` while it serves)
    gradekit release-feedback A     every graded student's pages, written now as the assignment's policy
                                    shows them (before its due date, what ``gradekit serve`` shows), for
                                    the submission in submitted/ they were graded from
    gradekit autograde A            a regrade without a service: the students whose feedback was out
                                    already get the new pages (the others wait for release-feedback)
    nbgrader release_feedback A     (gradekit's class) the pages ``gradekit feedback`` wrote, as they are

A page goes back only for the submission it was graded from: one collected since its grading
gets nothing ("grade it again first"), as nbgrader's release_feedback of gradekit's class did.

    release_feedback(course, assignment, students, exchange, only_given) -> Given
    give_back(course, exchange, student, assignment, pages) -> a line (why not) or None
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:  # pragma: no cover
    from gradekit.course import Course
    from gradekit.exchange.base import CourseExchange
    from gradekit.pages.feedback import Disclosure


class Giver(Protocol):
    """What gives feedback back: the course's exchange (gradekit.exchange.base.CourseExchange), or
    nbgrader's release_feedback step's folder of it."""

    label: str

    def give_feedback(self, student: str, assignment: str, submission: Path, pages: dict[str, str]) -> bool: ...


@dataclass
class Given:
    """What a release did: the students whose pages went back, and a line for each who got none."""

    students: list[str] = field(default_factory=list)
    pages: int = 0
    skipped: list[str] = field(default_factory=list)


def stale(course: Course, student: str, assignment: str) -> str | None:
    """Why the grading in autograded/ is not that of the submission in submitted/ (one line), or None."""
    from gradekit.errors import SubmissionError
    from gradekit.results import RESULTS_FILE, load
    from gradekit.untrusted import parse_timestamp, read_bytes

    submitted = course.submitted_dir(student, assignment)
    try:
        raw = read_bytes(submitted / "timestamp.txt", 4096)
    except SubmissionError:
        return f"{student}: no timestamp.txt in {submitted} (not handed in through the exchange?): no feedback given"
    result = load(course.autograded_dir(student, assignment) / RESULTS_FILE)
    if result is None:
        return f"{student}: not graded yet (gradekit autograde {assignment}): no feedback given"
    collected = parse_timestamp(raw).text
    if result.timestamp != collected:
        return (
            f"{student}: the grading is of the submission of {result.timestamp}, but "
            f"{raw.decode(errors='replace').strip()} was collected since: run `gradekit autograde {assignment}` again"
        )
    return None


def give_back(course: Course, exchange: Giver, student: str, assignment: str, pages: dict[str, str]) -> str | None:
    """Give ``pages`` (notebook id -> the instructor's HTML) back to ``student`` for their submission in
    submitted/, when it is the one graded; why not (one line), or None."""
    problem = stale(course, student, assignment)
    if problem:
        return problem
    from gradekit.pages.feedback import student_copy

    submitted = course.submitted_dir(student, assignment)
    pages = {notebook: student_copy(html) for notebook, html in pages.items()}
    if not exchange.give_feedback(student, assignment, submitted, pages):
        return (
            f"{student}: {submitted} does not say which hand-in of the {exchange.label} it is (no "
            "submission_secret.txt or receipt.json): no feedback given"
        )
    return None


def disclosure_now(course: Course, assignment: str, student: str, due: dt.datetime | None) -> Disclosure:
    """What the page of ``student``'s submission of record shows now: the assignment's policy, with the
    attempt it is and the one that counts when ``gradekit serve`` graded it (the ledger says)."""
    from gradekit.exchange.ledger import LEDGER, Ledger
    from gradekit.service.policy import Policy
    from gradekit.untrusted import read_receipt

    policy = Policy.of(course, assignment)
    now = dt.datetime.now(dt.UTC).replace(tzinfo=None)
    _receipt, attempt = read_receipt(course.submitted_dir(student, assignment))
    graded: list[tuple[int, float]] = []
    if attempt is not None and (course.root / LEDGER).exists():
        with Ledger(course) as ledger:
            graded = [(e.attempt or 0, e.score or 0.0) for e in ledger.graded_attempts(assignment, student)]
    numbers = [a for a, _score in graded]
    if attempt in numbers:
        return policy.disclosure(due, now, numbers.index(attempt) + 1, attempt, graded)
    return policy.disclosure(due, now)


def release_feedback(
    course: Course,
    assignment: str,
    students: list[str] | None,
    exchange: CourseExchange,
    only_given: bool = False,
) -> Given:
    """Write and give back the pages of every graded student of ``assignment`` (or of ``students``),
    with the gradebook's final marks, shown as the assignment's policy shows them now;
    ``only_given``: only to those whose pages for this submission are out already (a regrade)."""
    from gradekit.gradebook import read
    from gradekit.results import iter_results

    course.source_of(assignment)
    students = read.require_students(course, students) if students else read.students(course)
    given = Given()
    graded = {r.student: r for r in iter_results(course, assignment, students)}
    if only_given:
        graded = {
            s: r
            for s, r in graded.items()
            if exchange.feedback_given(s, assignment, course.submitted_dir(s, assignment))
        }
    if not graded:
        return given  # nothing to write: neither the gradebook nor the pages' templates are opened
    from gradekit.gradebook.connect import open_gradebook
    from gradekit.gradebook.marks import final_marks, rubric_items
    from gradekit.pages.feedback import write_feedback
    from gradekit.service.policy import due_date

    due = due_date(course, assignment)
    items = rubric_items(course, assignment)  # a person's rubric items, as gradekit feedback shows them
    with open_gradebook(course) as gb:
        for student in students:
            result = graded.get(student)
            if result is None:
                continue
            problem = stale(course, student, assignment)
            if problem:
                given.skipped.append(problem)
                continue
            written = write_feedback(
                course,
                final_marks(gb, result, items.get(student, {})),
                disclosure=disclosure_now(course, assignment, student, due),
            )
            problem = give_back(course, exchange, student, assignment, {p.stem: p.read_text("utf-8") for p in written})
            if problem:
                given.skipped.append(problem)
            else:
                given.students.append(student)
                given.pages += len(written)
    return given


def after_regrade(course: Course, assignment: str, students: list[str], exchange: CourseExchange) -> list[str]:
    """A regrade without a service (``gradekit autograde``): give the new pages to those of ``students``
    whose feedback was out already, so that none keeps a page of a grading that no longer holds;
    what was done, a line each (the others' pages wait for ``gradekit release-feedback``)."""
    from gradekit.errors import GradekitError

    if not students:
        return []
    try:
        given = release_feedback(course, assignment, students, exchange, only_given=True)
    except GradekitError as exc:
        return [f"feedback not given again after the regrade: {exc}"]
    lines = [f"{assignment}: feedback given again to {len(given.students)} student(s) whose feedback was out"]
    return (lines if given.students else []) + given.skipped
