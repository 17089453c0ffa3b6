"""The marks a student has now: the autograder's, the instructor's manual grades, the late penalties,
the rubric items a person gave.

Manual grades and overrides are set in formgrader or on the grading page after autograding
(with the rubric items behind them: :mod:`gradekit.gradebook.rubrics`); the late penalty is
nbgrader's. Feedback pages and the class report show a result as it stands now, and only
that: :func:`final_marks` (one student), :func:`marked_results` (their class) or
:func:`read_class_marks` (a class, read with plain SQL where it can) put it into the result.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from gradekit.course import Course
from gradekit.gradebook import sql_read
from gradekit.gradebook.connect import api, open_gradebook
from gradekit.gradebook.rubrics import Item, Rubric, Store, counted, path_of
from gradekit.gradebook.write import grades_of
from gradekit.results import SubmissionResult, amended, with_late_penalties

if TYPE_CHECKING:  # pragma: no cover
    import datetime as dt
    from collections.abc import Iterator

    from nbgrader.api import Gradebook

Given = dict[tuple[str, str], list[tuple[Item, str]]]  # (notebook, grade cell) -> [(item, mode)] (Store.given)


def marked_results(course: Course, assignment: str, students: list[str] | None = None) -> Iterator[SubmissionResult]:
    """The stored results of these students (every student in the gradebook), those graded, each as it
    stands now (:func:`final_marks`)."""
    from gradekit.gradebook import read
    from gradekit.results import iter_results

    course.source_of(assignment)
    students = read.require_students(course, students) if students else read.students(course)
    given = rubric_items(course, assignment)
    with open_gradebook(course) as gb:
        for result in iter_results(course, assignment, students):
            yield final_marks(gb, result, given.get(result.student, {}))


def final_marks(gb: Gradebook, result: SubmissionResult, given: Given | None = None) -> SubmissionResult:
    """``result`` as it stands now, a new value: the instructor's grades, the late penalties and ``given``,
    the rubric items a person gave the student (:func:`rubric_items`).

    Manual grades and overrides set after autograding, and nbgrader's late penalty, are the
    gradebook's; feedback built from the autograder's result alone would miss them.
    """
    result = apply_rubric(result, given or {})
    orm = api()
    Notebook, SubmittedNotebook = orm.Notebook, orm.SubmittedNotebook
    try:
        submission = gb.find_submission(result.assignment, result.student)
    except orm.MissingEntry:
        return result
    grades = grades_of(gb, submission)
    penalties = dict(
        gb.db.query(Notebook.name, SubmittedNotebook.late_submission_penalty)
        .join(SubmittedNotebook, SubmittedNotebook.notebook_id == Notebook.id)
        .filter(SubmittedNotebook.assignment_id == submission.id)
        .all()
    )
    manual = {key: score for key, (_, score) in grades.items() if score is not None}
    return apply_marks(result, manual, penalties)


def rubric_items(course: Course, assignment: str, students: list[str] | None = None) -> dict[str, Given]:
    """student -> the rubric items a person gave them (nothing when no one graded with a rubric)."""
    if not path_of(course, assignment).is_file():
        return {}
    return Store(course, assignment).given(students)


def rubrics(course: Course, assignment: str) -> list[Rubric]:
    """Every rubric of the assignment, with all its items (nothing when no one graded with a rubric)."""
    if not path_of(course, assignment).is_file():
        return []
    return Store(course, assignment).rubrics()


def apply_rubric(result: SubmissionResult, given: Given) -> SubmissionResult:
    """``result`` with the rubric items each cell got (a cell graded with none: an empty list), each
    item's sentence in the student's language among its translations: a new value (``result`` itself
    when no cell got any)."""
    if not given:
        return result
    translations = dict(result.translations)
    notebooks = []
    for nb in result.notebooks:
        cells = []
        for cell in nb.cells:
            got = given.get((nb.name, cell.grade_id))
            if got is None:
                cells.append(cell)
                continue
            cells.append(amended(cell, rubric=[counted(item, mode) for item, mode in got]))
            for item, _mode in got:
                if result.language in item.texts:
                    translations[item.text] = item.texts[result.language]
        notebooks.append(amended(nb, cells=cells))
    return amended(result, notebooks=notebooks, translations=translations)


def apply_marks(result: SubmissionResult, manual: dict, penalties: dict) -> SubmissionResult:
    """``result`` with the instructor's scores (by (notebook, cell)) and the late penalties (by notebook):
    a new value."""
    notebooks = []
    for nb in with_late_penalties(result, penalties).notebooks:
        cells = [
            cell
            if manual.get((nb.name, cell.grade_id)) is None
            else amended(cell, score=float(manual[(nb.name, cell.grade_id)]), by_hand=True)
            for cell in nb.cells
        ]
        notebooks.append(nb if all(a is b for a, b in zip(cells, nb.cells, strict=True)) else amended(nb, cells=cells))
    return amended(result, notebooks=notebooks)


@dataclass
class ClassMarks:
    """What the gradebook holds about a whole assignment, read in a few queries (the class report's)."""

    students: list[str]  # everyone in the gradebook
    manual: dict[str, dict] = field(default_factory=dict)  # student -> {(notebook, cell): instructor's score}
    penalties: dict[str, dict] = field(default_factory=dict)  # student -> {notebook: late penalty}
    seconds_late: dict[str, float] = field(default_factory=dict)  # student -> seconds past the due date
    duedate: dt.datetime | None = None
    given: dict[str, Given] = field(default_factory=dict)  # student -> the rubric items a person gave them
    rubrics: list[Rubric] = field(default_factory=list)  # every rubric of the assignment, all its items

    def apply(self, result: SubmissionResult) -> SubmissionResult:
        """As :func:`final_marks`, from what was read once for the class."""
        result = apply_rubric(result, self.given.get(result.student, {}))
        return apply_marks(result, self.manual.get(result.student, {}), self.penalties.get(result.student, {}))


def read_class_marks(course: Course, assignment: str) -> ClassMarks:
    """:func:`class_marks`, read with plain SQL from an SQLite gradebook (:mod:`gradekit.gradebook.sql_read`;
    importing nbgrader's API costs the class report more than a second), through nbgrader's API
    from any other database."""
    students, held, due = (
        sql_read.students(course),
        sql_read.recorded(course, assignment),
        sql_read.duedate(course, assignment),
    )
    given, every = rubric_items(course, assignment), rubrics(course, assignment)
    if students is None or held is None or due is None:
        with open_gradebook(course) as gb:
            marks = class_marks(gb, assignment)
            marks.given, marks.rubrics = given, every
            return marks
    marks = ClassMarks(students, duedate=due[0], given=given, rubrics=every)
    for student, rec in held.items():
        manual = {key: grade[1] for key, grade in rec.grades.items() if grade[1] is not None}
        if manual:
            marks.manual[student] = manual
        penalties = {nb: p for nb, p in rec.penalties.items() if p is not None}
        if penalties:
            marks.penalties[student] = penalties
        if marks.duedate is not None and rec.timestamp is not None:
            assert rec.due is not None  # the assignment's due date (plus an extension): duedate is not None
            marks.seconds_late[student] = max(0.0, (rec.timestamp - rec.due).total_seconds())
    return marks


def class_marks(gb: Gradebook, assignment: str) -> ClassMarks:
    """Manual grades, late penalties and lateness of every submission of ``assignment``, in four queries."""
    orm = api()
    Assignment, BaseCell, Grade, Notebook = orm.Assignment, orm.BaseCell, orm.Grade, orm.Notebook
    Student, SubmittedAssignment, SubmittedNotebook = orm.Student, orm.SubmittedAssignment, orm.SubmittedNotebook

    marks = ClassMarks(sorted(s for (s,) in gb.db.query(Student.id)))
    found = gb.db.query(Assignment.duedate).filter(Assignment.name == assignment).first()
    marks.duedate = found[0] if found else None
    rows = (
        gb.db.query(Student.id, Notebook.name, BaseCell.name, Grade.manual_score)
        .join(SubmittedAssignment, SubmittedAssignment.student_id == Student.id)
        .join(Assignment, SubmittedAssignment.assignment_id == Assignment.id)
        .join(SubmittedNotebook, SubmittedNotebook.assignment_id == SubmittedAssignment.id)
        .join(Notebook, SubmittedNotebook.notebook_id == Notebook.id)
        .join(Grade, Grade.notebook_id == SubmittedNotebook.id)
        .join(BaseCell, Grade.cell_id == BaseCell.id)
        .filter(Assignment.name == assignment, Grade.manual_score.isnot(None))
    )
    for student, notebook, cell, score in rows:
        marks.manual.setdefault(student, {})[(notebook, cell)] = score
    rows = (
        gb.db.query(Student.id, Notebook.name, SubmittedNotebook.late_submission_penalty)
        .join(SubmittedAssignment, SubmittedAssignment.student_id == Student.id)
        .join(Assignment, SubmittedAssignment.assignment_id == Assignment.id)
        .join(SubmittedNotebook, SubmittedNotebook.assignment_id == SubmittedAssignment.id)
        .join(Notebook, SubmittedNotebook.notebook_id == Notebook.id)
        .filter(Assignment.name == assignment, SubmittedNotebook.late_submission_penalty.isnot(None))
    )
    for student, notebook, penalty in rows:
        marks.penalties.setdefault(student, {})[notebook] = penalty
    rows = (
        gb.db.query(Student.id, SubmittedAssignment.timestamp, SubmittedAssignment.extension)
        .join(SubmittedAssignment, SubmittedAssignment.student_id == Student.id)
        .join(Assignment, SubmittedAssignment.assignment_id == Assignment.id)
        .filter(Assignment.name == assignment)
    )
    for student, timestamp, extension in rows:
        if marks.duedate is None or timestamp is None:
            continue
        due = marks.duedate + extension if extension is not None else marks.duedate
        marks.seconds_late[student] = max(0.0, (timestamp - due).total_seconds())
    return marks
