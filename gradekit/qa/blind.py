"""Known mistakes that give the right answer: inputs on which a check cannot catch them.

While ``gradekit check`` grades an answer key, :data:`gradekit.graders.check.AUDIT`
is a list (``gradekit.qa.run._grade_task`` sets it for those tasks only): every
check that passes also works out its ``mistakes=`` and notes each one whose
value there is the right answer
(the moving-average window of 1, on which "window sums" is right too; a
symmetric matrix, on which its transpose is). A student who made that mistake
keeps that check's points on that input. The params generator should draw
again (see README, "Writing an assignment"); ``gradekit check`` lists what it
found, for the answer key of every simulated student.
"""

from __future__ import annotations

from gradekit.graders import check
from gradekit.grading.stages import NotebookJob, Stage


class BlindSpots(Stage):
    """gradekit check's stage: the known mistakes that gave the right answer in this notebook's
    passing checks (``NotebookResult.blind``: [mistake, check]), when an audit is on."""

    after_failure = True

    def __call__(self, job: NotebookJob) -> None:
        found = check.AUDIT
        if found is None:
            return
        job.result.blind = [list(pair) for pair in sorted(set(found))]
        found.clear()   # the next notebook of this submission starts afresh
