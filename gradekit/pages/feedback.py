"""Feedback pages: one HTML file per student and notebook.

At the top, the score, summed up with one line per exercise. Then, for each
graded cell, titled by its exercise (the notebook's heading before it, the
grade id small beside it): passed or failed, the points, the likely mistake or
what the wrong values show, and for every failed hidden check what was checked
and how the result differed -- the graders' messages, which never include the
expected arrays; the checks that only differ in value are one line, with their
cases in a short list (:mod:`gradekit.grading.lines`). A free-text answer left as
handed out reads "not answered". Problems running the student's own cells and
any restored tampering are listed too. The pages share the class report's
look (:mod:`gradekit.pages.look`); they link to the student's other notebooks' pages, and to
nothing a student does not receive with them (never up to the class report: a page in feedback/
is the one a student is handed).

A page is in the student's language (``SubmissionResult.language``): its own
texts through the catalogs, the graders' texts through the translations the
result carries (:class:`gradekit.i18n.text.View`), the exercise titles from the
notebook as the student received it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

import nbformat

from gradekit.atomic import atomic_write
from gradekit.course import Course
from gradekit.grading.diagnosis import notes as diagnosis_notes
from gradekit.grading.lines import Differing, grouped
from gradekit.i18n import _
from gradekit.i18n.catalogs import translator
from gradekit.i18n.text import View
from gradekit.notebook import exercises as sections
from gradekit.notebook.cells import is_graded, is_solution
from gradekit.pages import look as page
from gradekit.results import CellResult, NotebookResult, SubmissionResult


def write_class_feedback(course: Course, assignment: str, students: list[str] | None = None) -> int:
    """``gradekit feedback``: the pages of every graded student (or these), with the gradebook's
    final marks; returns how many pages were written."""
    from gradekit.errors import UsageError
    from gradekit.gradebook import read
    from gradekit.gradebook.connect import open_gradebook
    from gradekit.gradebook.marks import final_marks
    from gradekit.results import iter_results

    course.source_of(assignment)
    students = read.require_students(course, students) if students else read.students(course)
    count = 0
    with open_gradebook(course) as gb:
        for result in iter_results(course, assignment, students):
            count += len(write_feedback(course, final_marks(gb, result)))
    if count == 0:
        raise UsageError(f"no graded submissions of {assignment}: run `gradekit autograde` first")
    return count


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
    graded_dir: Path | None = None,
    disclosure: Disclosure = EVERYTHING,
) -> list[Path]:
    """One page per notebook; pass the result through :func:`gradekit.gradebook.marks.final_marks` first for
    the instructor's manual grades and the late penalty. ``out_dir`` and ``graded_dir``: another
    place than feedback/ and autograded/ (an attempt's, gradekit serve); ``disclosure``: what it shows."""
    paths = []
    out_dir = out_dir or course.feedback_dir(result.student, result.assignment)
    graded_dir = graded_dir or course.autograded_dir(result.student, result.assignment)
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
    rubric = rubric_items(course, result.assignment, result.student, language)
    whole = ShownNow.of(result, disclosure)
    held_parts = ", ".join(
        f"{label} ({page.points_phrase(points, translate)})"
        for label, points in held_labels(course, result, whole.held, language).items()
    )
    for nb in result.notebooks:
        code, notes = _solutions(graded_dir / f"{nb.name}.ipynb")
        titles = _titles(course, result.assignment, nb.name, language)
        held = {c.grade_id for c in nb.cells if disclosure.hides(nb, c)}
        shown = [c for c in nb.cells if c.grade_id not in held]
        html = page.render(
            "feedback.html",
            language,
            translate,
            view=view,
            r=result,
            nb=nb,
            notes=notes,
            code=code,
            diagnosis=lambda cell: diagnosis_notes(cell, view),
            grouped=grouped,
            differing=lambda item: isinstance(item, Differing),
            siblings=siblings,
            failed_runs=[run for run in nb.runs if not run.ok],
            manual=view(waiting_sentence(nb)),
            nb_title=_notebook_title(course, result.assignment, nb.name, language),
            titles={
                c.grade_id: titles.get(c.grade_id, sections.Heading(c.grade_id, c.grade_id)).title for c in nb.cells
            },
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
            rubric=rubric,
            rubric_title=view(_("What your grader noted")),
        )
        path = out_dir / f"{nb.name}.html"
        atomic_write(path, html)
        paths.append(path)
    return paths


def held_labels(course: Course, result: SubmissionResult, held, language: str) -> dict[str, float]:
    """What waits for the due date as the student knows it, with its points: a notebook by its name
    (the file they have), a cell by its exercise's title on the page ("Question 1"), not its grade id;
    "quiz › Question 1" when the hand-in has several notebooks. Parts under one title are one."""
    several = len(result.notebooks) > 1
    out: dict[str, float] = {}
    for name, points in held:
        notebook, _sep, gid = name.partition("/")
        label = notebook
        if gid:
            heading = _titles(course, result.assignment, notebook, language).get(gid)
            title = heading.title if heading is not None else gid
            label = f"{notebook} › {title}" if several else title
        out[label] = out.get(label, 0.0) + points
    return out


_STORES: dict = {}


def rubric_items(course: Course, assignment: str, student: str, language: str) -> dict[str, list[dict]]:
    """The rubric items a person gave ``student``, by the grade id of the cell they count on: their points
    as they count ("−0.5", "+1") and their sentence in ``language`` when the rubric has it
    (:mod:`gradekit.manual.store`; nothing when no one graded there)."""
    from gradekit.manual.store import SUBTRACT, Store, path_of

    path = path_of(course, assignment)
    if not path.is_file():
        return {}
    if path not in _STORES:  # one per class: its schema is checked once, not once a student
        _STORES[path] = Store(course, assignment)
    out: dict[str, list[dict]] = {}
    for _cell, (q, items) in _STORES[path].student_items(student).items():
        out[q["grade_cell"]] = [
            {
                "points": ("−" if (q["mode"] == SUBTRACT) == (i.points >= 0) else "+") + page.points(abs(i.points)),
                "text": i.sentence(language),
                "lang": page.HTML_LANG.get(language, language) if language in i.texts else "en",
            }
            for i in items
        ]
    return out


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


def exercises(nb: NotebookResult, titles: dict[str, sections.Heading]) -> list[dict]:
    """One line per exercise for the summary at the top of the page."""
    by_gid = {c.grade_id: c for c in nb.cells}
    out = []
    for heading, gids in sections.group([c.grade_id for c in nb.cells], titles):
        cells = [by_gid[g] for g in gids]
        out.append(
            {
                "title": heading.title,
                "anchor": gids[0],
                "cells": gids,
                "score": sum(c.score or 0.0 for c in cells),
                "points": sum(c.points for c in cells),
                "result": _result(cells, nb),
            }
        )
    return out


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


_TITLES: dict = {}


def _titles(course: Course, assignment: str, notebook: str, language: str = "en") -> dict[str, sections.Heading]:
    """The exercise headings of a notebook, from its source (the instructor's cells, never the
    student's), in ``language``: each markdown cell as its translation gives it."""
    return _headings(course, assignment, notebook, language)[0]


def _notebook_title(course: Course, assignment: str, notebook: str, language: str = "en") -> str | None:
    """The notebook's own title ("# ..."), in ``language``, as its source gives it."""
    return _headings(course, assignment, notebook, language)[1]


def _headings(course: Course, assignment: str, notebook: str, language: str) -> tuple[dict, str | None]:
    from gradekit.authoring.template import message_of

    path = course.source_dir(assignment) / f"{notebook}.ipynb"
    try:
        key = (path, path.stat().st_mtime_ns, language)
    except OSError:
        return {}, None
    if key not in _TITLES:
        try:
            nb = json.loads(path.read_text())
            if language != "en":
                translate = translator(course.root, assignment, language)
                for cell in nb.get("cells", []):
                    source = (
                        "".join(cell.get("source", ""))
                        if isinstance(cell.get("source"), list)
                        else cell.get("source", "")
                    )
                    if message_of({**cell, "source": source}):
                        cell["source"] = translate(source)
            title = sections.title(nb)
            _TITLES[key] = (sections.headings(nb), None if title and "{" in title else title)  # no template
        except (OSError, ValueError):
            _TITLES[key] = ({}, None)
    return _TITLES[key]


def _solutions(path: Path) -> tuple[dict[str, str], list[str]]:
    """The student's solution code by the grade_id of the test cell that follows it."""
    try:
        nb = nbformat.read(str(path), as_version=4)
    except Exception:
        return {}, []
    code, last = {}, None
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        if is_solution(cell) and not is_graded(cell):
            last = cell.source
        elif is_solution(cell):
            code[meta["grade_id"]] = cell.source
        elif is_graded(cell) and last is not None:
            code[meta["grade_id"]] = last
    return code, list(nb.metadata.get("gradekit", {}).get("notes", []))
