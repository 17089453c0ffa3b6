"""Known mistakes that give the right answer: inputs on which a check cannot catch them.

While ``gradekit check`` grades, :class:`BlindSpots` switches on
:data:`gradekit.graders.check.AUDIT`: every check that passes also works out
its ``mistakes=`` and notes each one whose value there is the right answer
(the moving-average window of 1, on which "window sums" is right too; a
symmetric matrix, on which its transpose is). A student who made that mistake
keeps that check's points on that input. The params generator should draw
again (see README, "Writing an assignment"); ``gradekit check`` lists what it
found, for the answer key of every simulated student.
"""

from __future__ import annotations

from ..graders import check
from ..grading.stages import NotebookJob, Stage


class BlindSpots(Stage):
    """gradekit check's stage: the known mistakes that gave the right answer in this notebook's
    passing checks (``NotebookResult.blind``: [mistake, check])."""

    after_failure = True

    def __init__(self, pipeline):
        super().__init__(pipeline)
        self.sink: list = []
        check.AUDIT = self.sink

    def __call__(self, job: NotebookJob) -> None:
        job.result.blind = sorted({(route, what) for route, what in self.sink})
        job.result.blind = [list(pair) for pair in job.result.blind]
        self.sink.clear()
