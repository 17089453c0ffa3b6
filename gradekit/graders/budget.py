"""A notebook's grading budget, as the ``student`` fixture keeps it: the functions given up on after a
timeout, the wall-clock budget of all calls, and what the relation search has spent per cell."""

from __future__ import annotations

import time


class GiveUp:
    """After a function timed out once, further calls to it fail at once (a grader never makes one:
    the ``student`` fixture holds the notebook's).

    This bounds the time a hanging submission costs (one timeout per function,
    not one per hidden test) without touching the other exercises. It also
    counts, per graded cell (``cell``, the one being graded) and function, the
    failed checks whose relation search called the functions again
    (``searched``: see gradekit.graders.relations.engine), and what those
    searches found (``found``: the last is asked only about it), which bounds
    what a wrong submission costs.

    What a grader sees of it::

        student.slow(x)    # StudentFailure: `slow` did not finish: no answer within 10 s (endless loop?)
        student.slow(y)    # StudentFailure at once: not run: `slow` timed out on an earlier check (...)
    """

    def __init__(self, budget: float | None = None) -> None:
        self.reasons: dict[str, str] = {}
        self.searched: dict[str, int] = {}
        self.found: dict[str, set[str]] = {}  # per cell and function: the relations its deep searches found
        self.cell = ""
        self.calls = 0  # calls of the student's code so far (a check made with none grades an answer, a value)
        self.deadline = time.monotonic() + budget if budget else None
        self.budget = budget
