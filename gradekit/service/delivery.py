"""Feedback back: the one way a graded submission's pages reach its student, whatever gives them back.

Every way back calls :func:`deliver`, and nothing else hands a page to an exchange:

    gradekit serve                  each hand-in's page the moment it is graded, and again after a
                                    regrade it runs (``gradekit autograde`` while it serves)
    gradekit release-feedback A     every graded student's pages (:func:`release_feedback`)
    gradekit autograde A            a regrade without a service: the students whose pages were out
                                    already get new ones (:func:`after_regrade`)
    nbgrader release_feedback A     gradekit's class (gradekit.service.nbgrader_feedback):
                                    :func:`release_feedback` into the folder nbgrader's step names

In :func:`deliver`, for one student's graded submission, in this order:

    1. the grading is of the submission the pages go back for (its timestamp.txt): else nothing;
    2. the assignment's disclosure policy (gradekit.service.policy) says what shows now: before the
       due date, the hidden parts held back and the level ``before_due`` gives; the attempt the page
       is of and the one that counts; after it, everything;
    3. the pages are rendered from the result as that shows it (gradekit.pages.feedback), and made the
       student's copies;
    4. the exchange gives them to that student, for that hand-in alone.

``gradekit feedback`` gives nothing back, but writes the pages into feedback/, which any
exchange's release step may hand out: :func:`write_class_pages` writes there what the policy shows
now, and, while something is held back, the whole pages in feedback-instructor/ (the
instructor's, where no exchange looks).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, cast

if TYPE_CHECKING:  # pragma: no cover
    from gradekit.course import Course
    from gradekit.exchange.base import CourseExchange
    from gradekit.pages.feedback import Disclosure, ShownNow
    from gradekit.results import SubmissionResult
    from gradekit.service.policy import Policy

INSTRUCTOR_FEEDBACK = "feedback-instructor"  # <course>/feedback-instructor/<student>/<assignment>/: whole pages


class Giver(Protocol):
    """What gives feedback back: the course's exchange (gradekit.exchange.base.CourseExchange), or
    nbgrader's release_feedback step's folder of it."""

    label: str

    def give_feedback(self, student: str, assignment: str, submission: Path, pages: dict[str, str]) -> bool: ...


@dataclass(frozen=True)
class Attempts:
    """Which graded attempt a page is of and which hand-in counts: ``graded`` holds (hand-in number,
    score) of the student's graded hand-ins, oldest first (the ledger's, or gradekit serve's)."""

    attempt: int | None = None  # the page's: the k-th graded hand-in (None: not graded by serve)
    counting: int | None = None  # the number of the hand-in that counts
    graded: tuple[tuple[int, float], ...] = ()

    @property
    def counting_attempt(self) -> int | None:
        """The graded attempt that counts (its k), as a student counts them."""
        numbers = [number for number, _score in self.graded]
        return numbers.index(self.counting) + 1 if self.counting in numbers else None


@dataclass(frozen=True)
class Delivered:
    """What :func:`deliver` did for one student: the pages given back, or why none (one line)."""

    student: str
    pages: int = 0
    problem: str | None = None
    shown: ShownNow | None = None  # the numbers as the pages write them


@dataclass
class Given:
    """What a release did: the students whose pages went back, and a line for each who got none."""

    students: list[str] = field(default_factory=list)
    pages: int = 0
    skipped: list[str] = field(default_factory=list)


_READ = object()  # a due date not given: read it


def _now() -> dt.datetime:
    return dt.datetime.now(dt.UTC).replace(tzinfo=None)


def deliver(
    course: Course,
    giver: Giver,
    result: SubmissionResult,
    submission: Path,
    *,
    attempts: Attempts | None = None,
    policy: Policy | None = None,
    due: dt.datetime | None | object = _READ,
    keep: Path | None = None,
) -> Delivered:
    """Give ``result``'s pages back to its student for the hand-in collected in ``submission``, as the
    assignment's policy shows them now (see the module's docstring). ``attempts``: which graded attempt
    it is (gradekit serve knows; else the ledger says, from the submission's receipt); ``policy`` and
    ``due``: the caller's, when it holds them (else read); ``keep``: a folder the pages are written to
    as well (a graded attempt's feedback/)."""
    from gradekit.atomic import atomic_write
    from gradekit.grading.told import TOLD
    from gradekit.pages.feedback import ShownNow, render_feedback, student_copy

    student = result.student
    problem = stale(result, submission)
    if problem:
        return Delivered(student, problem=problem)
    disclosure = disclosure_of(course, result, submission, attempts, policy, due)
    pages = render_feedback(course, result, disclosure, told=TOLD)
    if keep is not None:
        for notebook, html in pages.items():
            atomic_write(keep / f"{notebook}.html", html)
    copies = {notebook: student_copy(html) for notebook, html in pages.items()}
    if not giver.give_feedback(student, result.assignment, submission, copies):
        return Delivered(
            student,
            problem=f"{student}: {submission} does not say which hand-in of the {giver.label} it is (no "
            "submission_secret.txt or receipt.json): no feedback given",
        )
    return Delivered(student, len(pages), None, ShownNow.of(result, disclosure))


def stale(result: SubmissionResult, submission: Path) -> str | None:
    """Why ``result`` is not the grading of the submission in ``submission`` (one line), or None."""
    from gradekit.errors import SubmissionError
    from gradekit.untrusted import parse_timestamp, read_bytes

    student, assignment = result.student, result.assignment
    try:
        raw = read_bytes(submission / "timestamp.txt", 4096)
    except SubmissionError:
        return f"{student}: no timestamp.txt in {submission} (not handed in through the exchange?): no feedback given"
    if result.timestamp != parse_timestamp(raw).text:
        return (
            f"{student}: the grading is of the submission of {result.timestamp}, but "
            f"{raw.decode(errors='replace').strip()} was collected since: run `gradekit autograde {assignment}` again"
        )
    return None


def disclosure_of(
    course: Course,
    result: SubmissionResult,
    submission: Path,
    attempts: Attempts | None = None,
    policy: Policy | None = None,
    due: dt.datetime | None | object = _READ,
) -> Disclosure:
    """What the page of ``result`` shows now: the assignment's policy, with the graded attempt it is and the
    one that counts (``attempts``; else the ledger's, for the hand-in ``submission``'s receipt names)."""
    from gradekit.service.policy import Policy, due_date

    policy = policy or Policy.of(course, result.assignment)
    when = due_date(course, result.assignment) if due is _READ else due
    assert when is None or isinstance(when, dt.datetime)
    attempts = attempts if attempts is not None else attempts_of(course, result.assignment, result.student, submission)
    return policy.disclosure(when, _now(), attempts.attempt, attempts.counting, list(attempts.graded))


def attempts_of(course: Course, assignment: str, student: str, submission: Path) -> Attempts:
    """The graded attempt the hand-in collected in ``submission`` is, and the one that counts, as the
    ledger holds them (nothing, for a hand-in ``gradekit serve`` did not grade)."""
    from gradekit.exchange.ledger import LEDGER, Ledger, ref_of

    ref = ref_of(submission)
    if ref is None or not (course.root / LEDGER).exists():
        return Attempts()
    with Ledger(course) as ledger:
        graded = ledger.graded_attempts(assignment, student)
    numbers = [e.number or 0 for e in graded]
    this = next((e.number for e in graded if e.ref == ref), None)
    if this is None:
        return Attempts()
    from gradekit.service.policy import Policy

    pairs = tuple((e.number or 0, e.score or 0.0) for e in graded)
    return Attempts(numbers.index(this) + 1, Policy.of(course, assignment).counting(list(pairs)), pairs)


def release_feedback(
    course: Course,
    assignment: str,
    students: list[str] | None,
    giver: Giver | CourseExchange,
    only_given: bool = False,
) -> Given:
    """Give back the pages of every graded student of ``assignment`` (or of ``students``), with the
    gradebook's final marks, shown as the assignment's policy shows them now; ``only_given``: only to
    those whose pages of this submission are out already (a regrade: the exchange says, in one look).
    Each student's result is read once."""
    from gradekit.gradebook import read
    from gradekit.results import iter_results

    course.source_of(assignment)
    students = read.require_students(course, students) if students else read.students(course)
    given = Given()
    graded = {r.student: r for r in iter_results(course, assignment, students)}
    if only_given:
        exchange = cast("CourseExchange", giver)
        out = exchange.feedback_given(assignment, {s: course.submitted_dir(s, assignment) for s in graded})
        graded = {s: r for s, r in graded.items() if s in out}
    if not graded:
        return given  # nothing to write: neither the gradebook nor the pages' templates are opened
    from gradekit.gradebook.connect import open_gradebook
    from gradekit.gradebook.marks import final_marks, rubric_items
    from gradekit.service.policy import Policy, due_date

    policy, due = Policy.of(course, assignment), due_date(course, assignment)
    items = rubric_items(course, assignment)  # a person's rubric items, as gradekit feedback shows them
    with open_gradebook(course) as gb:
        for student in students:
            result = graded.get(student)
            if result is None:
                continue
            marked = final_marks(gb, result, items.get(student, {}))
            done = deliver(course, giver, marked, course.submitted_dir(student, assignment), policy=policy, due=due)
            if done.problem:
                given.skipped.append(done.problem)
            else:
                given.students.append(student)
                given.pages += done.pages
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


def write_class_pages(course: Course, assignment: str, results) -> tuple[int, int]:
    """``gradekit feedback``: each of ``results``' pages (as they stand now: final marks) into
    feedback/<student>/<assignment>/ as the assignment's policy shows them now -- what any exchange's
    release step may hand out -- and, for each page that holds something back, the whole page in
    feedback-instructor/<student>/<assignment>/; (pages written in feedback/, whole pages kept apart)."""
    from gradekit.errors import UsageError
    from gradekit.grading.told import TOLD
    from gradekit.pages.feedback import write_feedback
    from gradekit.service.policy import Policy, due_date

    policy, due = Policy.of(course, assignment), due_date(course, assignment)
    shown = whole = 0
    for result in results:
        submission = course.submitted_dir(result.student, assignment)
        disclosure = disclosure_of(course, result, submission, policy=policy, due=due)
        shown += len(write_feedback(course, result, disclosure=disclosure, told=TOLD))
        if disclosure.level != "full" or disclosure.hidden:
            folder = instructor_feedback_dir(course, result.student, assignment)
            whole += len(write_feedback(course, result, folder, told=TOLD))
    if shown == 0:
        raise UsageError(f"no graded submissions of {assignment}: run `gradekit autograde` first")
    return shown, whole


def instructor_feedback_dir(course: Course, student: str, assignment: str) -> Path:
    """Where ``gradekit feedback`` keeps a student's whole pages while the policy holds something back."""
    return (
        course.root
        / INSTRUCTOR_FEEDBACK
        / course.feedback_dir(student, assignment).relative_to(course.root / "feedback")
    )
