"""Which test cells grade which answer cells, what each graded cell grades, and which answers are
values rather than code.

An answer cell (nbgrader's solution cell) is graded by the test cells after it,
up to the next answer cell. Its answer is a *value* -- a number, a word, an
option's letter -- when the cell defines no function or class: a student
could copy it from a classmate (``gradekit check``'s diversity rows), and
instant feedback on it is an oracle (``gradekit serve`` hides its correctness
until the due date by default). Both read template sources as well as rendered
ones: a ``{{ ... }}`` counts as a value, a ``{% ... %}`` as nothing.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping
from typing import Any

from gradekit.notebook.cells import grade_id, is_graded, is_solution, is_test

_EXPRESSION = re.compile(r"\{\{.*?\}\}", re.S)
_STATEMENT = re.compile(r"\{%.*?%\}|\{#.*?#\}", re.S)
_DEFINES = re.compile(r"^[ \t]*(?:async[ \t]+def|def|class)[ \t]+\w", re.M)


def _cells(nb: Any) -> list:
    return list(nb.get("cells", []) if isinstance(nb, dict) else nb.cells)


def _source(cell: Any) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else str(source)


def exercise_tests(notebooks: Mapping[str, Any]) -> dict[str, list[str]]:
    """Each answer cell's grade_id -> the test cells that grade it (those after it, before the next)."""
    out: dict[str, list[str]] = {}
    for nb in notebooks.values():
        current = None
        for cell in _cells(nb):
            gid = grade_id(cell)
            if is_solution(cell) and gid:
                current = gid
                out.setdefault(current, [])
            elif is_test(cell) and gid and current is not None:
                out[current].append(gid)
    return out


def graded_answers(nb: Any) -> dict[str, str]:
    """Each graded cell's grade_id -> the answer it grades, as ``nb`` holds it: a graded answer cell's
    own source; a test cell's, the source of the last ungraded answer cell before it."""
    out: dict[str, str] = {}
    last = None
    for cell in _cells(nb):
        gid = grade_id(cell)
        if is_solution(cell) and not is_graded(cell):
            last = _source(cell)
        elif gid is None:
            continue
        elif is_solution(cell):
            out[gid] = _source(cell)
        elif is_graded(cell) and last is not None:
            out[gid] = last
    return out


def defines_code(source: str) -> bool:
    """Whether a cell's source (a template or rendered) defines a function or a class."""
    text = _STATEMENT.sub("", _EXPRESSION.sub("0", source))
    try:
        tree = ast.parse(text)
    except SyntaxError:  # a template that parses only once rendered: its lines tell
        return bool(_DEFINES.search(text))
    return any(isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) for node in ast.walk(tree))


def value_answers(notebooks: Mapping[str, Any]) -> list[str]:
    """The autograded answer cells that define no function or class: answers to questions (a
    number, a word, a letter), which a classmate could hand in as theirs."""
    tests = exercise_tests(notebooks)
    return [
        gid
        for nb in notebooks.values()
        for cell in _cells(nb)
        if cell.get("cell_type") == "code"
        and is_solution(cell)
        and (gid := grade_id(cell))
        and tests.get(gid)
        and not defines_code(_source(cell))
    ]


def value_tests(notebooks: Mapping[str, Any]) -> dict[str, str]:
    """The test cells that grade a value answer (:func:`value_answers`), each with its answer cell."""
    tests = exercise_tests(notebooks)
    return {test: gid for gid in value_answers(notebooks) for test in tests[gid]}


def test_cells(notebooks: Mapping[str, Any]) -> dict[str, str]:
    """Every test cell's grade id, with the notebook it is in."""
    return {
        gid: name for name, nb in notebooks.items() for cell in _cells(nb) if is_test(cell) and (gid := grade_id(cell))
    }
