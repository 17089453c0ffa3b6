"""nbgrader's Gradebook: students, the assignment's structure, and the grades.

The gradebook is nbgrader's own database (``db_url`` in nbgrader_config.py,
SQLite by default), written through nbgrader's own API, so ``nbgrader export``,
``nbgrader db student list`` and formgrader read what gradekit writes. Only
the coordinating process writes to it, one submission per transaction.

nbgrader's API is imported only when nothing lighter will do: reads go
through :mod:`gradekit.gradebook.sql_read` (plain SQL) where they can; a :class:`Recorder`
skips a result the gradebook already holds (so a rerun on an unchanged class
touches neither nbgrader nor SQLAlchemy) and writes an SQLite gradebook with
:mod:`gradekit.gradebook.sql_write` (the same rows as nbgrader's API, by test),
leaving to nbgrader's API what that module declines (a late submission,
another database).
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, cast

from gradekit.course import Course
from gradekit.errors import GradebookError
from gradekit.gradebook import sql_read
from gradekit.gradebook.connect import api, open_gradebook
from gradekit.results import SubmissionResult, grade_writes, with_late_penalties
from gradekit.untrusted import timestamp_value

if TYPE_CHECKING:  # pragma: no cover
    from nbgrader.api import Gradebook


class Recorder:
    """Records results in the gradebook, writing only what it does not already hold.

    Opened lazily: when every result matches what an SQLite gradebook holds
    (a rerun on an unchanged class), nothing is imported and nothing written.
    A result the gradebook holds is given its recorded late penalties, as a
    write would give them.
    """

    def __init__(self, course: Course, assignment: str):
        self.course, self.assignment = course, assignment
        self.held = sql_read.recorded(course, assignment) or {}
        self.gb = None
        self.written = 0

    def warm(self) -> None:
        """Import nbgrader's API in the background when it will write the results (not an SQLite
        gradebook): grading is about to produce them, and this process has little else to do."""
        import threading

        if sql_read.sqlite_path(self.course) is None:
            threading.Thread(target=api, name="gradekit-gradebook-warm", daemon=True).start()

    def record(self, result: SubmissionResult) -> SubmissionResult:
        """Record ``result``; what the gradebook now holds of it: ``result`` with its late penalties."""
        held = self.held.pop(result.student, None)
        if held is not None and _holds(held, result):
            recorded = with_late_penalties(result, held.penalties)
            recorded.unchanged = result.unchanged  # the progress line's mark goes with it
            return recorded
        from gradekit.gradebook import scores, sql_write

        if sql_write.record(self.course, result):
            recorded = with_late_penalties(result, {})
        else:
            if self.gb is None:
                self.gb = open_gradebook(self.course)
            recorded = record(self.gb, result, self.course)
        self.written += 1
        scores.changed(self.course, self.assignment, [result.student], scores.GRADED)
        return recorded

    def close(self) -> None:
        if self.gb is not None:
            self.gb.close()
            self.gb = None

    def __enter__(self) -> Recorder:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _holds(held: sql_read.Recorded, result: SubmissionResult) -> bool:
    """Whether the gradebook already says exactly what recording ``result`` would write."""
    if held.timestamp != timestamp_value(result.timestamp) and result.timestamp is not None:
        return False
    if not held.on_time or any(p is not None for p in held.penalties.values()):
        return False  # a late submission's penalty is the plugin's to compute: write it
    if any((nb.name, cell.grade_id) not in held.grades for nb in result.notebooks for cell in nb.cells):
        return False  # a cell the gradebook does not hold: let a write say what happens
    by_key = {key: (key, manual) for key, (_auto, manual, _needs) in held.grades.items()}
    expected = {key: (auto, needs) for key, auto, needs, _by_hand in grade_writes(result, by_key)}
    if set(expected) != set(held.grades):
        return False
    for key, (auto, needs) in expected.items():
        got_auto, _, got_needs = held.grades[key]
        if (
            got_needs != needs
            or (auto is None) != (got_auto is None)
            or (auto is not None and abs(auto - cast(float, got_auto)) > 1e-9)
        ):
            return False
    return True


def record(gb: Gradebook, result: SubmissionResult, course: Course | None = None) -> SubmissionResult:
    """Write one submission's scores in one transaction; ``result`` as recorded: with its late penalties.

    A submission that could not be graded at all is written as explicit zeros
    on every cell, so the gradebook always says what the summary says. A
    gradebook that refuses the write is a :class:`GradebookError`: the run stops. ``course``:
    whose late-penalty settings apply (nbgrader's defaults without one).
    """
    db = gb.db
    try:
        with warnings.catch_warnings():
            # nbgrader's own update_or_create_submission trips SQLAlchemy autoflush warnings
            warnings.simplefilter("ignore")
            submission = _record(gb, result)
            penalties = _late_penalties(gb, result, submission, course)
        db.commit()
    except Exception as exc:
        try:
            db.rollback()
        except Exception:  # noqa: BLE001 - the connection itself is gone
            pass
        raise GradebookError(
            f"the gradebook could not be written ({type(exc).__name__}: "
            f"{str(exc).splitlines()[0][:200]}); nothing more was recorded"
        ) from None
    return with_late_penalties(result, penalties)


def _record(gb: Gradebook, result: SubmissionResult):
    Grade = api().Grade

    timestamp = timestamp_value(result.timestamp)  # stored results are the student's too: re-checked
    kwargs = {"timestamp": timestamp} if timestamp else {}
    submission = gb.update_or_create_submission(result.assignment, result.student, **kwargs)
    updates = [
        {"id": grade_id, "auto_score": auto, "needs_manual_grade": needs}
        for grade_id, auto, needs, _by_hand in grade_writes(result, grades_of(gb, submission))
    ]
    if updates:  # by primary key, in one statement: no ORM objects to load and track
        gb.db.bulk_update_mappings(Grade, updates)
    return submission


def grades_of(gb: Gradebook, submission) -> dict:
    """(grade id, manual score) of each grade of a submission by (notebook, cell) name, in one query.

    nbgrader's own accessors load each grade's cell and notebook lazily:
    a dozen queries a submission, most of the coordinator's work.
    """
    orm = api()
    BaseCell, Grade, Notebook, SubmittedNotebook = orm.BaseCell, orm.Grade, orm.Notebook, orm.SubmittedNotebook

    rows = (
        gb.db.query(Notebook.name, BaseCell.name, Grade.id, Grade.manual_score)
        .join(BaseCell, Grade.cell_id == BaseCell.id)
        .join(Notebook, BaseCell.notebook_id == Notebook.id)
        .join(SubmittedNotebook, Grade.notebook_id == SubmittedNotebook.id)
        .filter(SubmittedNotebook.assignment_id == submission.id)
        .all()
    )
    return {(notebook, cell): (grade_id, manual) for notebook, cell, grade_id, manual in rows}


_LATE: dict = {}


def _late_penalty_assigner(course: Course | None):
    """The course's AssignLatePenalties, built once per course and config (only a late
    submission needs it: importing nbgrader's preprocessors costs half a second)."""
    from nbgrader.preprocessors import AssignLatePenalties

    key = (course.root, id(course.config)) if course is not None and course.config is not None else None
    if key not in _LATE:
        _LATE[key] = AssignLatePenalties(config=cast(Course, course).config) if key else AssignLatePenalties()
        _LATE[key].init_plugin()
    return _LATE[key]


def _late_penalties(gb: Gradebook, result: SubmissionResult, submission, course: Course | None) -> dict:
    """nbgrader's late penalty, as its AssignLatePenalties preprocessor assigns it: notebook -> penalty.

    The plugin is the course's (``c.AssignLatePenalties.plugin_class``,
    ``c.LateSubmissionPlugin.penalty_method`` in nbgrader_config.py); the
    lateness is nbgrader's (submission timestamp vs. the assignment's due date
    plus the student's extension).
    """
    gb.db.flush()
    seconds_late = submission.total_seconds_late
    penalties: dict[str, float | None] = {}
    if not seconds_late:  # on time (or no due date): no penalty on any notebook, in one statement
        SubmittedNotebook = api().SubmittedNotebook
        gb.db.query(SubmittedNotebook).filter(SubmittedNotebook.assignment_id == submission.id).update(
            {SubmittedNotebook.late_submission_penalty: None}, synchronize_session=False
        )
        return penalties
    assigner = _late_penalty_assigner(course)
    for nb in result.notebooks:
        try:
            notebook = gb.find_submission_notebook(nb.name, result.assignment, result.student)
        except api().MissingEntry:
            continue
        notebook.late_submission_penalty = None
        if seconds_late > 0:
            gb.db.expire(notebook, ["score"])  # the grades just written
            penalty = assigner.plugin_inst.late_submission_penalty(result.student, notebook.score, seconds_late)
            if penalty is not None:
                notebook.late_submission_penalty = assigner._check_late_penalty(notebook, penalty)
                penalties[nb.name] = notebook.late_submission_penalty or None
    return penalties
