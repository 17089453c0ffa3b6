"""How grading words a cell's checks for the student, handed to the pages (which never import grading).

``TOLD`` is what :func:`gradekit.pages.feedback.render_feedback` takes: ``notes(cell, view)``, the
diagnosis in sentences (:func:`gradekit.grading.diagnosis.notes`); ``grouped(checks)``, the checks
as the page lists them (:func:`gradekit.grading.lines.grouped`); ``differing(item)``, whether an item
of those is the one line of checks that only differ in value.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from gradekit.grading.diagnosis import notes as _notes
from gradekit.grading.lines import Differing
from gradekit.grading.lines import grouped as _grouped
from gradekit.results import CellResult, Check


class _Told:
    """The wording of grading (see the module's docstring)."""

    @staticmethod
    def notes(cell: CellResult, view: Callable[[Any], str] = str) -> list[str]:
        return _notes(cell, view)

    @staticmethod
    def grouped(checks: Iterable[Check]) -> list[Check | Differing]:
        return _grouped(checks)

    @staticmethod
    def differing(item: Any) -> bool:
        return isinstance(item, Differing)


TOLD = _Told()
