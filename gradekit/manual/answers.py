"""What each student handed in for one question, and what else gradekit knows about them.

A *question* is what a person grades across the class:

* a manually graded cell (nbgrader's solution-and-grade cell): free text (markdown) or code;
  its grade and its comment are that cell's;
* an autograded answer cell and the test cell after it (numbers): the grade is the test
  cell's, the comment the answer cell's; a person's score there overrides the autograder's.

The answers are read from the graded notebooks (``autograded/<student>/<assignment>/``:
the submission rebuilt on the student's own release, never the raw file), for the
students whose submission was graded. The context of an answer -- the student's own
numbers and the mistakes their code was named for -- is read on request.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from gradekit.course import Course
from gradekit.errors import UsageError
from gradekit.notebook import exercises as sections
from gradekit.notebook.cells import grade_id, is_graded, is_solution, points
from gradekit.results import RESULTS_FILE, SubmissionResult, load

TEXT, CODE, NUMBERS = "text", "code", "numbers"


@dataclass(frozen=True)
class Question:
    cell: str  # the answer cell's grade id: what a person names the question by
    notebook: str
    kind: str  # TEXT, CODE or NUMBERS
    grade_cell: str  # the grade cell the score is written to
    comment_cell: str  # the solution cell the comment is written to
    points: float
    title: str  # the exercise's heading

    def to_dict(self) -> dict:
        return dict(self.__dict__)


@dataclass
class Answer:
    student: str
    text: str  # what they wrote (the answer cell's source)
    language: str = "en"
    auto: float | None = None  # the autograder's score (numbers)
    verdict: tuple[str, str] = ("", "")  # numbers: (kind, label), see gradekit.manual.groups.group_numbers
    stub: str = ""  # the cell as handed out to them


@dataclass
class ClassAnswers:
    question: Question
    answers: list[Answer] = field(default_factory=list)


def questions(course: Course, assignment: str) -> list[Question]:
    """Every question of the assignment a person can grade, in notebook order: the manual ones, then
    the autograded ones (numbers)."""
    from gradekit.pages.report.data import source_notebooks

    manual, auto = [], []
    for name, nb in source_notebooks(course, assignment).items():
        titles = sections.headings(nb)
        last_answer = None
        for cell in nb.get("cells", []):
            gid = grade_id(cell)
            if gid is None:
                continue
            title = (titles.get(gid) or sections.Heading(gid, gid)).title
            if is_solution(cell) and is_graded(cell):
                kind = TEXT if cell.get("cell_type") == "markdown" else CODE
                manual.append(Question(gid, name, kind, gid, gid, points(cell), title))
            elif is_solution(cell):
                last_answer = gid
            elif is_graded(cell):
                answer = last_answer or gid
                auto.append(Question(answer, name, NUMBERS, gid, answer, points(cell), title))
                last_answer = None
    return manual + auto


def question(course: Course, assignment: str, cell: str) -> Question:
    """The question ``cell`` names: a manual cell, an autograded answer cell or its test cell."""
    found = questions(course, assignment)
    for q in found:
        if cell in (q.cell, q.grade_cell):
            return q
    names = ", ".join(q.cell for q in found if q.kind != NUMBERS)
    raise UsageError(f"{assignment} has no graded cell {cell!r} (the manually graded ones: {names or 'none'})")


def class_results(course: Course, assignment: str) -> dict[str, SubmissionResult]:
    """The stored results of every student with one (graded or not gradable)."""
    base = course.root / "autograded"
    out: dict[str, SubmissionResult] = {}
    if not base.is_dir():
        return out
    for folder in sorted(base.iterdir()):
        result = load(folder / assignment / RESULTS_FILE)
        if result is not None:
            out[result.student] = result
    return out


def read_answers(course: Course, assignment: str, q: Question, results=None) -> ClassAnswers:
    """The answers to ``q`` of every student whose submission was graded."""
    from gradekit.manual.groups import RIGHT, UNANSWERED, UNEXPLAINED, code_tokens

    results = class_results(course, assignment) if results is None else results
    out = ClassAnswers(q)
    for student, result in sorted(results.items()):
        nb = next((n for n in result.notebooks if n.name == q.notebook), None)
        if nb is None or nb.error:
            continue
        text = _cell_source(course.autograded_dir(student, assignment) / f"{q.notebook}.ipynb", q.cell)
        if text is None:
            continue
        answer = Answer(student, text, result.language or "en")
        if q.kind == NUMBERS:
            cell = next((c for c in nb.cells if c.grade_id == q.grade_cell), None)
            if cell is None:
                continue
            answer.auto = cell.score
            if cell.diagnosis:
                answer.verdict = ("mistake", " / ".join(cell.diagnosis))
            elif cell.score is not None and cell.score >= cell.points:
                answer.verdict = (RIGHT, "")
            else:
                stub = _cell_source(course.release_dir(student, assignment) / f"{q.notebook}.ipynb", q.cell)
                untouched = stub is not None and code_tokens(stub) == code_tokens(text)
                answer.verdict = (UNANSWERED, "") if untouched else (UNEXPLAINED, "")
        out.answers.append(answer)
    return out


def _cell_source(path: Path, gid: str) -> str | None:
    try:
        nb = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    for cell in nb.get("cells", []) if isinstance(nb, dict) else []:
        if grade_id(cell) == gid:
            source = cell.get("source", "")
            return "".join(source) if isinstance(source, list) else str(source)
    return None


def context(course: Course, assignment: str, student: str) -> dict:
    """What else gradekit knows about ``student``: their numbers (their params) and, per cell, the
    score and the mistakes the graders named."""
    from gradekit.authoring.variant import build_variant

    result = load(course.autograded_dir(student, assignment) / RESULTS_FILE)
    cells = []
    if result is not None:
        for nb in result.notebooks:
            for c in nb.cells:
                cells.append(
                    {
                        "notebook": nb.name,
                        "cell": c.grade_id,
                        "score": c.score,
                        "points": c.points,
                        "mistakes": list(c.diagnosis),
                    }
                )
    try:
        params = build_variant(course, _source(course, assignment), student, render=False).params
    except Exception as exc:  # noqa: BLE001 - the context is a help: say why it is missing
        params = {"error": f"{type(exc).__name__}: {exc}"}
    return {
        "student": student,
        "language": result.language if result is not None else "",
        "params": _plain(params),
        "cells": cells,
    }


_SOURCES: dict = {}


def _source(course: Course, assignment: str):
    from gradekit.authoring.template import AssignmentSource

    key = (course.root, assignment)
    if key not in _SOURCES:
        _SOURCES[key] = AssignmentSource.load(course, assignment)
    return _SOURCES[key]


def _plain(value, depth: int = 0):
    """Params as JSON a page can show: numbers rounded, long lists cut."""
    if depth > 4:
        return "…"
    if isinstance(value, dict):
        return {str(k): _plain(v, depth + 1) for k, v in list(value.items())[:60]}
    if isinstance(value, list | tuple):
        return [_plain(v, depth + 1) for v in list(value)[:40]]
    if isinstance(value, float):
        return round(value, 4)
    if isinstance(value, int | str | bool) or value is None:
        return value
    try:
        return _plain(value.tolist(), depth)  # a numpy array or scalar
    except AttributeError:
        return str(value)[:200]
