"""nbgrader's Gradebook: students, the assignment's structure, and the grades.

The gradebook is nbgrader's own database (``db_url`` in nbgrader_config.py,
SQLite by default), written through nbgrader's own API, so ``nbgrader export``,
``nbgrader db student list`` and formgrader read what gradekit writes. Only
the coordinating process writes to it, one submission per transaction.

nbgrader's API is imported only when nothing lighter will do: reads go
through :mod:`gradekit.roster` (plain SQL) where they can; a :class:`Recorder`
skips a result the gradebook already holds (so a rerun on an unchanged class
touches neither nbgrader nor SQLAlchemy) and writes an SQLite gradebook with
:mod:`gradekit.sqlite_grades` (the same rows as nbgrader's API, by test),
leaving to nbgrader's API what that module declines (a late submission,
another database).
"""

from __future__ import annotations

import os
import sys
import warnings
from dataclasses import dataclass, field
from pathlib import Path

from typing import TYPE_CHECKING

from gradekit import roster
from gradekit.course import Course
from gradekit.errors import GradebookError, StudentError, UsageError
from gradekit.results import SubmissionResult, grade_writes
from gradekit.untrusted import timestamp_value


if TYPE_CHECKING:  # pragma: no cover
    from nbgrader.api import Gradebook


def _api():
    """nbgrader.api, imported without nbgrader's package __init__ (its Jupyter server extensions:
    tornado handlers, the apps, nbconvert), which gradekit never uses."""
    from gradekit.lean import nbgrader_api

    return nbgrader_api()


def open_gradebook(course: Course) -> "Gradebook":
    """nbgrader's Gradebook for this course.

    nbgrader runs the ``alembic`` command to set up a new database; put this
    Python's scripts first on PATH so that it is found when gradekit was
    started without the virtualenv activated.
    """
    scripts = str(Path(sys.executable).parent)
    if scripts not in os.environ.get("PATH", "").split(os.pathsep):
        os.environ["PATH"] = scripts + os.pathsep + os.environ.get("PATH", "")
    try:
        gb = _api().Gradebook(course.db_url)
    except Exception as exc:  # a server that is down, a file that cannot be created, a bad URL
        raise GradebookError(f"the gradebook at {_redacted(course.db_url)} cannot be opened "
                             f"({type(exc).__name__}: {str(exc).splitlines()[0][:200] if str(exc) else ''})") from None
    gb.gradekit_root = course.root  # where record() finds the late-penalty config
    return gb


def _redacted(url: str) -> str:
    """A database URL without its password."""
    import re

    return re.sub(r"://([^:/@]+):[^@]*@", r"://\1:***@", url)


def students(course: Course) -> list[str]:
    fast = roster.students(course)
    if fast is not None:
        return fast
    with open_gradebook(course) as gb:
        return sorted(s.id for s in gb.students)


def check_students(course: Course, wanted: list[str]) -> list[str]:
    known = set(students(course))
    for student in wanted:
        if student not in known:
            raise StudentError(f"student {student!r} is not in the gradebook "
                               f"(add with: nbgrader db student add {student})")
    return wanted


def check_assignment_registered(course: Course, assignment: str) -> None:
    registered = roster.assignment_registered(course, assignment)
    if registered is None:
        with open_gradebook(course) as gb:
            try:
                gb.find_assignment(assignment)
                registered = True
            except _api().MissingEntry:
                registered = False
    if not registered:
        raise UsageError(f"assignment {assignment!r} is not in the gradebook yet: "
                         f"run `gradekit generate {assignment}` first")


class Recorder:
    """Records results in the gradebook, writing only what it does not already hold.

    Opened lazily: when every result matches what an SQLite gradebook holds
    (a rerun on an unchanged class), nothing is imported and nothing written.
    A result the gradebook holds is given its recorded late penalties, as a
    write would give them.
    """

    def __init__(self, course: Course, assignment: str):
        self.course, self.assignment = course, assignment
        self.held = roster.recorded(course, assignment) or {}
        self.gb = None
        self.written = 0

    def warm(self) -> None:
        """Import nbgrader's API in the background when it will write the results (not an SQLite
        gradebook): grading is about to produce them, and this process has little else to do."""
        import threading

        if roster.sqlite_path(self.course) is None:
            threading.Thread(target=_api, name="gradekit-gradebook-warm", daemon=True).start()

    def record(self, result: SubmissionResult) -> None:
        held = self.held.pop(result.student, None)
        if held is not None and _holds(held, result):
            for nb in result.notebooks:
                nb.late_penalty = held.penalties.get(nb.name) or None
            return
        from gradekit import sqlite_grades

        if sqlite_grades.record(self.course, result):
            self.written += 1
            return
        if self.gb is None:
            self.gb = open_gradebook(self.course)
        record(self.gb, result)
        self.written += 1

    def close(self) -> None:
        if self.gb is not None:
            self.gb.close()
            self.gb = None

    def __enter__(self) -> "Recorder":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _holds(held: roster.Recorded, result: SubmissionResult) -> bool:
    """Whether the gradebook already says exactly what recording ``result`` would write."""
    if held.timestamp != timestamp_value(result.timestamp) and result.timestamp is not None:
        return False
    if not held.on_time or any(p is not None for p in held.penalties.values()):
        return False  # a late submission's penalty is the plugin's to compute: write it
    if any((nb.name, cell.grade_id) not in held.grades for nb in result.notebooks for cell in nb.cells):
        return False   # a cell the gradebook does not hold: let a write say what happens
    by_key = {key: (key, manual) for key, (_auto, manual, _needs) in held.grades.items()}
    expected = {key: (auto, needs) for key, auto, needs, _by_hand in grade_writes(result, by_key)}
    if set(expected) != set(held.grades):
        return False
    for key, (auto, needs) in expected.items():
        got_auto, _, got_needs = held.grades[key]
        if got_needs != needs or (auto is None) != (got_auto is None) or \
                (auto is not None and abs(auto - got_auto) > 1e-9):
            return False
    return True


def record(gb: "Gradebook", result: SubmissionResult) -> None:
    """Write one submission's scores in one transaction; ``result`` then carries its late penalties.

    A submission that could not be graded at all is written as explicit zeros
    on every cell, so the gradebook always says what the summary says. A
    gradebook that refuses the write is a :class:`GradebookError`: the run stops.
    """
    db = gb.db
    try:
        with warnings.catch_warnings():
            # nbgrader's own update_or_create_submission trips SQLAlchemy autoflush warnings
            warnings.simplefilter("ignore")
            submission = _record(gb, result)
            _late_penalties(gb, result, submission)
        db.commit()
    except Exception as exc:
        try:
            db.rollback()
        except Exception:  # noqa: BLE001 - the connection itself is gone
            pass
        raise GradebookError(f"the gradebook could not be written ({type(exc).__name__}: "
                             f"{str(exc).splitlines()[0][:200]}); nothing more was recorded") from None


def _record(gb: "Gradebook", result: SubmissionResult):
    Grade = _api().Grade

    timestamp = timestamp_value(result.timestamp)   # stored results are the student's too: re-checked
    kwargs = {"timestamp": timestamp} if timestamp else {}
    submission = gb.update_or_create_submission(result.assignment, result.student, **kwargs)
    updates = [{"id": grade_id, "auto_score": auto, "needs_manual_grade": needs}
               for grade_id, auto, needs, _by_hand in grade_writes(result, _grades_of(gb, submission))]
    if updates:  # by primary key, in one statement: no ORM objects to load and track
        gb.db.bulk_update_mappings(Grade, updates)
    return submission


def _grades_of(gb: "Gradebook", submission) -> dict:
    """(grade id, manual score) of each grade of a submission by (notebook, cell) name, in one query.

    nbgrader's own accessors load each grade's cell and notebook lazily:
    a dozen queries a submission, most of the coordinator's work.
    """
    api = _api()
    BaseCell, Grade, Notebook, SubmittedNotebook = api.BaseCell, api.Grade, api.Notebook, api.SubmittedNotebook

    rows = (gb.db.query(Notebook.name, BaseCell.name, Grade.id, Grade.manual_score)
            .join(BaseCell, Grade.cell_id == BaseCell.id)
            .join(Notebook, BaseCell.notebook_id == Notebook.id)
            .join(SubmittedNotebook, Grade.notebook_id == SubmittedNotebook.id)
            .filter(SubmittedNotebook.assignment_id == submission.id)
            .all())
    return {(notebook, cell): (grade_id, manual) for notebook, cell, grade_id, manual in rows}


def final_marks(gb: "Gradebook", result: SubmissionResult) -> SubmissionResult:
    """``result`` as the gradebook has it now: the instructor's grades and the late penalties.

    Manual grades and overrides set in formgrader after autograding, and
    nbgrader's late penalty, are the gradebook's; feedback built from the
    autograder's result alone would miss them.
    """
    api = _api()
    Notebook, SubmittedNotebook = api.Notebook, api.SubmittedNotebook
    try:
        submission = gb.find_submission(result.assignment, result.student)
    except api.MissingEntry:
        return result
    grades = _grades_of(gb, submission)
    penalties = dict(gb.db.query(Notebook.name, SubmittedNotebook.late_submission_penalty)
                     .join(SubmittedNotebook, SubmittedNotebook.notebook_id == Notebook.id)
                     .filter(SubmittedNotebook.assignment_id == submission.id).all())
    manual = {key: score for key, (_, score) in grades.items() if score is not None}
    return apply_marks(result, manual, penalties)


def apply_marks(result: SubmissionResult, manual: dict, penalties: dict) -> SubmissionResult:
    """``result`` with the instructor's scores (by (notebook, cell)) and the late penalties (by notebook)."""
    for nb in result.notebooks:
        nb.late_penalty = penalties.get(nb.name) or None
        for cell in nb.cells:
            manual_score = manual.get((nb.name, cell.grade_id))
            if manual_score is not None:
                cell.score, cell.by_hand = float(manual_score), True
    return result


@dataclass
class ClassMarks:
    """What the gradebook holds about a whole assignment, read in a few queries (the class report's)."""

    students: list[str]                                  # everyone in the gradebook
    manual: dict[str, dict] = field(default_factory=dict)     # student -> {(notebook, cell): instructor's score}
    penalties: dict[str, dict] = field(default_factory=dict)  # student -> {notebook: late penalty}
    seconds_late: dict[str, float] = field(default_factory=dict)  # student -> seconds past the due date
    duedate: object = None

    def apply(self, result: SubmissionResult) -> SubmissionResult:
        """As :func:`final_marks`, from what was read once for the class."""
        return apply_marks(result, self.manual.get(result.student, {}), self.penalties.get(result.student, {}))


def read_class_marks(course: Course, assignment: str) -> ClassMarks:
    """:func:`class_marks`, read with plain SQL from an SQLite gradebook (:mod:`gradekit.roster`;
    importing nbgrader's API costs the class report more than a second), through nbgrader's API
    from any other database."""
    students, held, due = roster.students(course), roster.recorded(course, assignment), \
        roster.duedate(course, assignment)
    if students is None or held is None or due is None:
        with open_gradebook(course) as gb:
            return class_marks(gb, assignment)
    marks = ClassMarks(students, duedate=due[0])
    for student, rec in held.items():
        manual = {key: grade[1] for key, grade in rec.grades.items() if grade[1] is not None}
        if manual:
            marks.manual[student] = manual
        penalties = {nb: p for nb, p in rec.penalties.items() if p is not None}
        if penalties:
            marks.penalties[student] = penalties
        if marks.duedate is not None and rec.timestamp is not None:
            marks.seconds_late[student] = max(0.0, (rec.timestamp - rec.due).total_seconds())
    return marks


def class_marks(gb: "Gradebook", assignment: str) -> ClassMarks:
    """Manual grades, late penalties and lateness of every submission of ``assignment``, in four queries."""
    api = _api()
    Assignment, BaseCell, Grade, Notebook = api.Assignment, api.BaseCell, api.Grade, api.Notebook
    Student, SubmittedAssignment, SubmittedNotebook = api.Student, api.SubmittedAssignment, api.SubmittedNotebook

    marks = ClassMarks(sorted(s for (s,) in gb.db.query(Student.id)))
    found = gb.db.query(Assignment.duedate).filter(Assignment.name == assignment).first()
    marks.duedate = found[0] if found else None
    rows = (gb.db.query(Student.id, Notebook.name, BaseCell.name, Grade.manual_score)
            .join(SubmittedAssignment, SubmittedAssignment.student_id == Student.id)
            .join(Assignment, SubmittedAssignment.assignment_id == Assignment.id)
            .join(SubmittedNotebook, SubmittedNotebook.assignment_id == SubmittedAssignment.id)
            .join(Notebook, SubmittedNotebook.notebook_id == Notebook.id)
            .join(Grade, Grade.notebook_id == SubmittedNotebook.id)
            .join(BaseCell, Grade.cell_id == BaseCell.id)
            .filter(Assignment.name == assignment, Grade.manual_score.isnot(None)))
    for student, notebook, cell, score in rows:
        marks.manual.setdefault(student, {})[(notebook, cell)] = score
    rows = (gb.db.query(Student.id, Notebook.name, SubmittedNotebook.late_submission_penalty)
            .join(SubmittedAssignment, SubmittedAssignment.student_id == Student.id)
            .join(Assignment, SubmittedAssignment.assignment_id == Assignment.id)
            .join(SubmittedNotebook, SubmittedNotebook.assignment_id == SubmittedAssignment.id)
            .join(Notebook, SubmittedNotebook.notebook_id == Notebook.id)
            .filter(Assignment.name == assignment, SubmittedNotebook.late_submission_penalty.isnot(None)))
    for student, notebook, penalty in rows:
        marks.penalties.setdefault(student, {})[notebook] = penalty
    rows = (gb.db.query(Student.id, SubmittedAssignment.timestamp, SubmittedAssignment.extension)
            .join(SubmittedAssignment, SubmittedAssignment.student_id == Student.id)
            .join(Assignment, SubmittedAssignment.assignment_id == Assignment.id)
            .filter(Assignment.name == assignment))
    for student, timestamp, extension in rows:
        if marks.duedate is None or timestamp is None:
            continue
        due = marks.duedate + extension if extension is not None else marks.duedate
        marks.seconds_late[student] = max(0.0, (timestamp - due).total_seconds())
    return marks


_LATE: dict = {}


def _late_penalty_assigner(root):
    """The course's AssignLatePenalties, built once per config file version (only a late
    submission needs it: importing nbgrader's preprocessors costs half a second)."""
    from nbgrader.preprocessors import AssignLatePenalties

    try:
        key = (root, Path(root, "nbgrader_config.py").stat().st_mtime_ns) if root else None
    except OSError:
        key = None
    if key not in _LATE:
        from traitlets.config.loader import PyFileConfigLoader

        config = PyFileConfigLoader("nbgrader_config.py", path=str(root)).load_config() if key else None
        _LATE[key] = AssignLatePenalties(config=config) if config is not None else AssignLatePenalties()
        _LATE[key].init_plugin()
    return _LATE[key]


def _late_penalties(gb: "Gradebook", result: SubmissionResult, submission) -> None:
    """nbgrader's late penalty, as its AssignLatePenalties preprocessor assigns it.

    The plugin is the course's (``c.AssignLatePenalties.plugin_class``,
    ``c.LateSubmissionPlugin.penalty_method`` in nbgrader_config.py); the
    lateness is nbgrader's (submission timestamp vs. the assignment's due date
    plus the student's extension).
    """
    gb.db.flush()
    seconds_late = submission.total_seconds_late
    for nb in result.notebooks:
        nb.late_penalty = None
    if not seconds_late:  # on time (or no due date): no penalty on any notebook, in one statement
        SubmittedNotebook = _api().SubmittedNotebook
        gb.db.query(SubmittedNotebook).filter(SubmittedNotebook.assignment_id == submission.id).update(
            {SubmittedNotebook.late_submission_penalty: None}, synchronize_session=False)
        return
    assigner = _late_penalty_assigner(getattr(gb, "gradekit_root", None))
    for nb in result.notebooks:
        try:
            notebook = gb.find_submission_notebook(nb.name, result.assignment, result.student)
        except _api().MissingEntry:
            continue
        notebook.late_submission_penalty = None
        if seconds_late > 0:
            gb.db.expire(notebook, ["score"])  # the grades just written
            penalty = assigner.plugin_inst.late_submission_penalty(result.student, notebook.score, seconds_late)
            if penalty is not None:
                notebook.late_submission_penalty = assigner._check_late_penalty(notebook, penalty)
                nb.late_penalty = notebook.late_submission_penalty or None
