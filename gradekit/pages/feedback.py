"""Feedback pages: one HTML file per student and notebook, a function of the student's result.

At the top, the score, summed up with one line per exercise. Then, for each
graded cell, titled by its exercise (the notebook's heading before it, the
grade id small beside it): passed or failed, the points, the likely mistake or
what the wrong values show, the rubric items a person gave, and for every failed
hidden check what was checked and how the result differed -- the graders' messages,
which never include the expected arrays; the checks that only differ in value are
one line, with their cases in a short list (the wording is grading's, handed in as ``told``:
:data:`gradekit.grading.told.TOLD`; the pages never import grading). A free-text
answer left as handed out reads "not answered". Problems running the student's own
cells and any restored tampering are listed too. The pages share the class report's
look (:mod:`gradekit.pages.look`); they link to the student's other notebooks' pages, and
to nothing a student does not receive with them (never up to the class report: a page in
feedback/ is the one a student is handed).

Everything a page shows is in the result (:mod:`gradekit.results`): the titles and
the answers graded are put there by grading, the manual grades, late penalty and rubric
items by :mod:`gradekit.gradebook.marks`; a page never reopens a notebook or a store,
so it cannot disagree with the gradebook.

A page is in the student's language (``SubmissionResult.language``): its own
texts through the catalogs, everything the result holds through the translations
it carries (:class:`gradekit.i18n.text.View`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from gradekit.atomic import atomic_write
from gradekit.course import Course
from gradekit.i18n import _
from gradekit.i18n.catalogs import translator
from gradekit.i18n.text import View
from gradekit.notebook.exercises import short
from gradekit.pages import look as page
from gradekit.results import CellResult, NotebookResult, SubmissionResult


class Told(Protocol):
    """How grading words a cell's checks (:data:`gradekit.grading.told.TOLD`): handed in, never imported."""

    def notes(self, cell: CellResult, view: Any) -> list[str]: ...

    def grouped(self, checks: Any) -> list: ...

    def differing(self, item: Any) -> bool: ...


@dataclass(frozen=True)
class Disclosure:
    """What a page shows before the due date (gradekit serve's policy); the default: everything.

    ``level`` "full" shows every cell but the ``hidden`` ones (grade ids or notebook names),
    whose correctness waits until ``until``; "score" shows the score only; "received" only that
    the hand-in arrived. ``attempt`` and ``counting`` say which attempt this is and which counts.
    """

    level: str = "full"
    hidden: frozenset[str] = frozenset()
    until: str = ""
    attempt: str = ""  # a Text: shown in the student's language
    counting: str = ""

    def hides(self, nb: NotebookResult, cell: CellResult) -> bool:
        return bool(self.hidden) and (cell.grade_id in self.hidden or nb.name in self.hidden)


EVERYTHING = Disclosure()


@dataclass(frozen=True)
class ShownNow:
    """One hand-in's score as a student sees it before the due date, beside the score that counts.

    ``score`` and ``possible``: the whole hand-in's (what the gradebook records); ``shown``: the
    points of what shows now (``possible`` is the same); ``held``: what waits for the due date,
    each part (a notebook, or a cell of one) with its points."""

    score: float
    shown: float
    possible: float
    held: tuple[tuple[str, float], ...] = ()

    @classmethod
    def of(cls, result: SubmissionResult, disclosure: Disclosure) -> ShownNow:
        held: list[tuple[str, float]] = []
        shown = 0.0
        for nb in result.notebooks:
            hidden = [c for c in nb.cells if disclosure.hides(nb, c)]
            if hidden and len(hidden) == len(nb.cells):
                held.append((nb.name, nb.possible))
            else:
                held += [(f"{nb.name}/{c.grade_id}", c.points) for c in hidden]
            shown += sum(c.score or 0.0 for c in nb.cells if not disclosure.hides(nb, c))
        return cls(result.final, shown if held else result.final, result.possible, tuple(held))

    def held_text(self) -> str:
        """'quiz (19 points)', for the instructor's lines (English, as the log is)."""
        return ", ".join(f"{name} ({page.points_phrase(worth)})" for name, worth in self.held)


def write_feedback(
    course: Course,
    result: SubmissionResult,
    out_dir: Path | None = None,
    disclosure: Disclosure = EVERYTHING,
    *,
    told: Told,
) -> list[Path]:
    """:func:`render_feedback`'s pages written in ``out_dir`` (default: feedback/<student>/<assignment>/),
    one ``<notebook>.html`` each. What may reach a student is the delivery's to decide
    (gradekit.service.delivery): it is what writes the pages of a course."""
    out_dir = out_dir or course.feedback_dir(result.student, result.assignment)
    paths = []
    for notebook, html in render_feedback(course, result, disclosure, told=told).items():
        path = out_dir / f"{notebook}.html"
        atomic_write(path, html)
        paths.append(path)
    return paths


def render_feedback(
    course: Course, result: SubmissionResult, disclosure: Disclosure = EVERYTHING, *, told: Told
) -> dict[str, str]:
    """One page per notebook (notebook name -> its HTML), showing what ``disclosure`` lets it show, its
    checks worded as ``told`` words them; pass the result through
    :func:`gradekit.gradebook.marks.final_marks` first for the instructor's manual grades, the late penalty
    and the rubric items."""
    pages: dict[str, str] = {}
    siblings = [
        {
            "name": nb.name,
            "href": f"{nb.name}.html",
            "final": nb.final,
            "possible": nb.possible,
            "shown": disclosure.level == "full" and not any(disclosure.hides(nb, c) for c in nb.cells),
        }
        for nb in result.notebooks
    ]
    language = result.language or "en"
    translate = translator(course.root, result.assignment, language)
    view = View(language, result.translations, translate)
    whole = ShownNow.of(result, disclosure)
    held_parts = ", ".join(
        f"{label} ({page.points_phrase(points, translate)})"
        for label, points in held_labels(result, whole.held, view).items()
    )
    for nb in result.notebooks:
        titles = {c.grade_id: short(view(c.exercise)) if c.exercise else c.grade_id for c in nb.cells}
        held = {c.grade_id for c in nb.cells if disclosure.hides(nb, c)}
        shown = [c for c in nb.cells if c.grade_id not in held]
        html = page.render(
            "feedback.html",
            language,
            translate,
            view=view,
            r=result,
            nb=nb,
            notes=nb.notes,
            code={c.grade_id: c.answer for c in nb.cells},
            diagnosis=lambda cell: told.notes(cell, view),
            grouped=told.grouped,
            differing=told.differing,
            siblings=siblings,
            failed_runs=[run for run in nb.runs if not run.ok],
            manual=view(waiting_sentence(nb)),
            nb_title=view(nb.title) if nb.title else None,
            titles=titles,
            exercises=[
                {
                    **e,
                    "held": bool(held & set(e["cells"])),
                    "result": view(_("checked after the due date") if held & set(e["cells"]) else e["result"]),
                }
                for e in exercises(nb, titles)
            ],
            disclosure=disclosure,
            held=held,
            shown_score=sum(c.score or 0.0 for c in shown),
            shown_possible=sum(c.points for c in shown),
            held_points=sum(c.points for c in nb.cells if c.grade_id in held),
            whole=whole,
            held_parts=held_parts,
            rubric={c.grade_id: rubric_lines(c, view) for c in nb.cells if c.rubric},
            rubric_title=view(_("What your grader noted")),
        )
        pages[nb.name] = html
    return pages


def held_labels(result: SubmissionResult, held, view: View) -> dict[str, float]:
    """What waits for the due date as the student knows it, with its points: a notebook by its name
    (the file they have), a cell by its exercise's title on the page ("Question 1"), not its grade id;
    "quiz › Question 1" when the hand-in has several notebooks. Parts under one title are one."""
    several = len(result.notebooks) > 1
    exercises = {(nb.name, c.grade_id): c.exercise for nb in result.notebooks for c in nb.cells}
    out: dict[str, float] = {}
    for name, points in held:
        notebook, _sep, gid = name.partition("/")
        label = notebook
        if gid:
            exercise = exercises.get((notebook, gid))
            title = short(view(exercise)) if exercise else gid
            label = f"{notebook} › {title}" if several else title
        out[label] = out.get(label, 0.0) + points
    return out


def rubric_lines(cell: CellResult, view: View) -> list[dict]:
    """The rubric items a person gave a cell, as its page lists them: their points as they count
    ("−0.5", "+1") and their sentence in the student's language when the rubric has it."""
    return [
        {
            "points": page.signed_points(item.points),
            "text": view(item.text),
            "lang": page.HTML_LANG.get(view.language, view.language) if item.text in view.translations else "en",
        }
        for item in cell.rubric or []
    ]


_INSTRUCTOR_ONLY = re.compile(r"<!--instructor-->.*?<!--/instructor-->", re.S)


def student_copy(html: str) -> str:
    """A feedback page as a student receives it: without what only the instructor's course holds.
    The pages gradekit writes now hold nothing of the kind (their link up to the class report is
    gone: feedback/ is what nbgrader's release_feedback hands out); this still strips it from a
    page an older version wrote."""
    return _INSTRUCTOR_ONLY.sub("", html)


def waiting_sentence(nb: NotebookResult) -> str:
    count = sum(1 for c in nb.cells if c.manual and c.score is None and c.answered)
    if count == 0:
        return ""
    if count == 1:
        return _("1 answer still waits for a manual grade; its points are not counted yet.")
    return _("{n} answers still wait for a manual grade; their points are not counted yet.").format(n=count)


def exercises(nb: NotebookResult, titles: dict[str, str]) -> list[dict]:
    """One line per exercise for the summary at the top of the page: consecutive cells under one
    heading (``CellResult.exercise``; a cell under none is an exercise of its own)."""
    groups: list[list[CellResult]] = []
    for cell in nb.cells:
        if groups and cell.exercise and groups[-1][-1].exercise == cell.exercise:
            groups[-1].append(cell)
        else:
            groups.append([cell])
    return [
        {
            "title": titles[cells[0].grade_id],
            "anchor": cells[0].grade_id,
            "cells": [c.grade_id for c in cells],
            "score": sum(c.score or 0.0 for c in cells),
            "points": sum(c.points for c in cells),
            "result": _result(cells, nb),
        }
        for cells in groups
    ]


def _result(cells: list[CellResult], nb: NotebookResult) -> str:
    if nb.error:
        return _("not graded")
    if any(not c.answered and not c.by_hand for c in cells):
        return _("not answered")
    if any(c.manual and c.score is None for c in cells):
        return _("waiting for a manual grade")
    checks = [k for c in cells for k in c.checks]
    failed = sum(1 for k in checks if not k.passed)
    if any(c.by_hand for c in cells) and not checks:
        return _("graded by your instructor")
    if not failed:
        return _("all checks passed")
    if len(checks) == 1:
        return _("the check failed")
    return _("{failed} of {n} checks failed").format(failed=failed, n=len(checks))
