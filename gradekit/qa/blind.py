"""Known mistakes that give the right answer: inputs on which a check cannot catch them.

While ``gradekit check`` grades an answer key (a job tagged ``audit``), the
:class:`BlindSpots` stage's observer audits (see :mod:`gradekit.graders.observe`):
every check that passes also works out its ``mistakes=`` and reports each one
whose value there is the right answer (the moving-average window of 1, on
which "window sums" is right too; a symmetric matrix, on which its transpose
is). A student who made that mistake keeps that check's points on that input.
The params generator should draw again (see the docs' guide "Writing an assignment");
``gradekit check`` lists what it found, for the answer key of every simulated
student. Only answer keys are audited: a ``mistakes=`` function may call into
the student's code, which would cost other submissions' budgets.
"""

from __future__ import annotations

from gradekit.grading.stages import NotebookJob, Stage

AUDIT = "audit"  # the tag of a job whose passing checks are audited


class _Audit:
    """An observer that keeps (mistake, check) for each known mistake that gave the right answer."""

    audits = True

    def __init__(self) -> None:
        self.found: set[tuple[str, str]] = set()

    def right_answer_matches(self, mistake: str, what: str) -> None:
        self.found.add((mistake, what))


class BlindSpots(Stage):
    """gradekit check's stage: the known mistakes that gave the right answer in this notebook's
    passing checks (``job.observed["blind"]``: [mistake, check]), for a job tagged ``audit``."""

    after_failure = True

    def observer(self, job: NotebookJob) -> _Audit | None:
        self.audit = _Audit() if AUDIT in job.tags else None
        return self.audit

    def __call__(self, job: NotebookJob) -> None:
        if self.audit is not None:
            job.observed["blind"] = [list(pair) for pair in sorted(self.audit.found)]
