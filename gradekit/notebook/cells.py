"""The roles of a notebook's cells, read from nbgrader's cell metadata.

    solution    the student writes it (an answer cell; graded by hand when also ``grade``)
    test        an autograder test cell: locked, carries points, graded by its hidden grader
    graded      carries points (a test cell, or a manually graded answer)
    editable    a cell whose source the student's submission provides

Metadata in a submitted notebook is the student's: every predicate here
accepts any JSON (a list where a dict belongs, a string for a flag) and
answers False rather than raising.
"""

from __future__ import annotations


def nbgrader_meta(cell) -> dict:
    meta = cell.get("metadata") if isinstance(cell, dict) else None
    meta = meta.get("nbgrader") if isinstance(meta, dict) else None
    return meta if isinstance(meta, dict) else {}


def grade_id(cell) -> str | None:
    value = nbgrader_meta(cell).get("grade_id")
    return value if isinstance(value, str) else None


def is_solution(cell) -> bool:
    return bool(nbgrader_meta(cell).get("solution", False))


def is_graded(cell) -> bool:
    return bool(nbgrader_meta(cell).get("grade", False))


def is_test(cell) -> bool:
    meta = nbgrader_meta(cell)
    return bool(meta.get("grade", False)) and not meta.get("solution", False)


def is_editable(cell) -> bool:
    """The student's submission provides this cell's source (a release cell's role)."""
    meta = cell.get("metadata", {}).get("nbgrader")
    if isinstance(meta, dict):
        return bool(meta.get("solution")) and not meta.get("locked", False)
    return True  # a cell without nbgrader metadata: the student's own


def points(cell) -> float:
    try:
        return float(nbgrader_meta(cell).get("points", 0) or 0)
    except (TypeError, ValueError):
        return 0.0
