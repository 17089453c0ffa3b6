"""Scores and comments from rubric items, written into nbgrader's gradebook as formgrader writes them.

formgrader stores a person's grade as ``Grade.manual_score`` (and ``needs_manual_grade``
False once there is a score) and their comment as ``Comment.manual_comment``; so does
:class:`GradebookWriter`, through nbgrader's API, for many answers at once (one query for
the ids, one bulk update). Everything that reads the gradebook then shows them:
formgrader, ``nbgrader export``, the feedback pages and the class report (through
:mod:`gradekit.gradebook.marks`). ``autograde`` writes only ``auto_score`` and, for a
manual cell, ``needs_manual_grade`` when no manual score is held: these are kept on
regrade.

On an autograded cell a manual score overrides the autograder's; it is written only for
answers a person gave an item to, and cleared when the items are taken away again.
"""

from __future__ import annotations

import threading
import warnings
from collections.abc import Mapping

from gradekit.course import Course
from gradekit.errors import GradebookError
from gradekit.gradebook.connect import api, open_gradebook
from gradekit.gradebook.rubrics import ADJUST, Item, counted, score
from gradekit.gradebook.scores import BY_HAND, changed


class GradebookWriter:
    """Writes the manual grades and comments of one assignment's answers; one Gradebook, one writer at a time."""

    def __init__(self, course: Course, assignment: str):
        self.course, self.assignment = course, assignment
        self._gb = None
        self._lock = threading.Lock()

    def _gradebook(self):
        if self._gb is None:
            self._gb = open_gradebook(self.course)
        return self._gb

    def close(self) -> None:
        with self._lock:
            if self._gb is not None:
                self._gb.close()
                self._gb = None

    def rows(self, q: Mapping, students=None) -> dict[str, tuple[int, int | None, float | None]]:
        """student -> (grade id, comment id, auto score) of the question's grade and comment."""
        with self._lock:
            return self._rows(q, students)

    def _rows(self, q: Mapping, students=None) -> dict[str, tuple]:
        orm = api()
        gb = self._gradebook()
        A, SA, SN, N, Cell = orm.Assignment, orm.SubmittedAssignment, orm.SubmittedNotebook, orm.Notebook, orm.BaseCell

        def query(table, cell_name, *columns):
            rows = (
                gb.db.query(SA.student_id, table.id, *columns)
                .join(SN, table.notebook_id == SN.id)
                .join(SA, SN.assignment_id == SA.id)
                .join(A, SA.assignment_id == A.id)
                .join(N, SN.notebook_id == N.id)
                .join(Cell, table.cell_id == Cell.id)
                .filter(A.name == self.assignment, N.name == q["notebook"], Cell.name == cell_name)
            )
            if students is not None:
                rows = rows.filter(SA.student_id.in_(list(students)))
            return rows.all()

        grades = {s: (gid, auto) for s, gid, auto in query(orm.Grade, q["grade_cell"], orm.Grade.auto_score)}
        comments = {s: cid for s, cid in query(orm.Comment, q["comment_cell"])}
        return {s: (gid, comments.get(s), auto) for s, (gid, auto) in grades.items()}

    def write(
        self,
        q: Mapping,
        graded: Mapping[str, list[Item] | None],
        languages: Mapping[str, str],
    ) -> dict[str, float | None]:
        """Write each student's score and comment: ``graded[student]`` is the items they got, or None when
        no person has graded them (their manual score and comment are cleared). Returns the scores."""
        with self._lock:
            gb = self._gradebook()
            orm = api()
            try:
                rows = self._rows(q, graded)
                grades, comments, out = [], [], {}
                for student, items in graded.items():
                    row = rows.get(student)
                    if row is None:
                        continue  # no submission in the gradebook (not graded yet): nothing to write
                    grade_id, comment_id, auto = row
                    manual: float | None
                    if items is None or (q["mode"] == ADJUST and not items):
                        manual, text = None, None
                    else:
                        manual = score(q["mode"], float(q["points"]), [i.points for i in items], auto)
                        text = comment(items, languages.get(student, "en"), q["mode"]) or None
                    grades.append(
                        {"id": grade_id, "manual_score": manual, "needs_manual_grade": manual is None and auto is None}
                    )
                    if comment_id is not None:
                        comments.append({"id": comment_id, "manual_comment": text})
                    out[student] = manual if manual is not None else auto
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    if grades:
                        gb.db.bulk_update_mappings(orm.Grade, grades)
                    if comments:
                        gb.db.bulk_update_mappings(orm.Comment, comments)
                gb.db.commit()
            except Exception as exc:
                try:
                    gb.db.rollback()
                except Exception:  # noqa: BLE001 - the connection itself is gone
                    pass
                raise GradebookError(
                    f"the gradebook could not be written ({type(exc).__name__}: {str(exc).splitlines()[0][:200]})"
                ) from None
        changed(self.course, self.assignment, list(out), BY_HAND)  # a person's grade: the counting score too
        return out

    def scores(self, q: Mapping) -> dict[str, tuple[float | None, float | None]]:
        """student -> (manual score, auto score) as the gradebook holds them now."""
        with self._lock:
            orm = api()
            gb = self._gradebook()
            gb.db.expire_all()
            rows = self._rows(q)
            ids = {gid: s for s, (gid, _c, _a) in rows.items()}
            out = {}
            if ids:
                for gid, manual, auto in gb.db.query(orm.Grade.id, orm.Grade.manual_score, orm.Grade.auto_score).filter(
                    orm.Grade.id.in_(list(ids))
                ):
                    out[ids[gid]] = (manual, auto)
            return out


def comment(items: list[Item], language: str, mode: str) -> str:
    """The comment a student reads in nbgrader's feedback and formgrader: one line per item."""
    from gradekit.pages.look import signed_points

    return "\n".join(f"{signed_points(counted(i, mode).points)}: {i.sentence(language)}" for i in items)
