"""The stages that grade one notebook, in order, each one step.

Like nbgrader's preprocessors: each stage is a small object with one method,
``__call__(job)``, that reads and extends a :class:`NotebookJob`. The default
list, and the order it must keep::

    Sanitize     read the submitted file defensively; rebuild it on the student's own
                 release (locked and test cells restored, only answers taken)
    RunCells     run the student's code cells in the sandbox     (after Sanitize)
    RunGraders   run the hidden graders against the sandbox       (after RunCells: they call
                                                                   what the cells defined)
    Score        turn the graders' checks into each cell's points (after RunGraders)
    Annotate     write the checks into the graded notebook's test cells (last)

A course inserts a stage of its own through ``c.Gradekit.stages`` in
nbgrader_config.py (a list of import paths; see :data:`DEFAULT_STAGES`). A stage
is built once per grading process with a :class:`StageContext` -- what a stage may
use of its grading process: the sandbox, the graders, the limits, the course's
settings -- and called once per notebook. A stage that watches the grading
itself (``gradekit check``'s) offers an observer for the notebook
(:meth:`Stage.observer`, see :mod:`gradekit.graders.observe`) and writes what
it saw into ``job.observed``, which travels beside the result, never in it.

Once a notebook cannot be read, only the stages with ``after_failure = True``
run (Annotate: the page still says why the notebook got nothing).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from gradekit.errors import SubmissionError
from gradekit.grading.diagnosis import diagnose, notes
from gradekit.grading.lines import Differing, grouped
from gradekit.i18n import _
from gradekit.i18n.text import Say
from gradekit.intake.submission import code_to_run, read_notebook, sanitize
from gradekit.notebook.cells import grade_id, is_graded, is_solution, is_test, points
from gradekit.notebook.nodes import new_stream_output
from gradekit.results import CellResult, CellRun, Check, NotebookResult

if TYPE_CHECKING:  # pragma: no cover
    from nbformat import NotebookNode

    from gradekit.authoring.variant import Variant
    from gradekit.grading.harness.suite import GraderSuite
    from gradekit.sandbox.client import Sandbox
    from gradekit.sandbox.limits import Limits

DEFAULT_STAGES = [
    "gradekit.grading.stages.Sanitize",
    "gradekit.grading.stages.RunCells",
    "gradekit.grading.stages.RunGraders",
    "gradekit.grading.stages.Score",
    "gradekit.grading.stages.Annotate",
]

UNANSWERED = "YOUR ANSWER HERE"  # nbgrader's stub of a free-text answer


@dataclass
class NotebookJob:
    """One notebook of one submission, as it passes through the stages."""

    name: str
    release: NotebookNode  # the student's own release copy, rebuilt from their id
    path: Path | None  # the submitted file; None when there is none
    variant: Variant
    result: NotebookResult
    graded: NotebookNode | None = None  # what was graded: the release with the answers
    notes: list[str] = field(default_factory=list)
    runs: list[dict] = field(default_factory=list)  # the sandbox's report on each code cell
    checks: dict[str, list[Check]] = field(default_factory=dict)  # the graders' checks by test cell
    say: Say = field(default_factory=Say)  # stores a text the student reads: English, and its translation
    tags: frozenset = frozenset()  # what the caller asked of this grading ("audit": gradekit check)
    observed: dict = field(default_factory=dict)  # what watching stages saw (gradekit check); not a result

    @property
    def failed(self) -> bool:
        return self.result.error is not None

    def test_ids(self) -> list[str]:
        return [_graded_id(c) for c in self.release.cells if is_test(c)]


@dataclass(frozen=True)
class StageContext:
    """What a stage may use of the grading process it runs in."""

    sandbox: Sandbox  # this process's sandbox, where the student's code runs
    suite: GraderSuite  # the assignment's hidden graders, collected
    limits: Limits  # the sandbox's limits (c.Gradekit, per assignment)
    settings: Any  # the course's c.Gradekit settings
    note_grader_errors: Callable[[list], None]  # the graders' own exceptions met (see Pipeline._blame)


class Stage:
    """One step of grading a notebook. Subclasses implement ``__call__``."""

    after_failure = False  # run even when the notebook could not be read

    def __init__(self, context: StageContext):
        self.context = context

    def observer(self, job: NotebookJob) -> object | None:
        """An observer to install while this notebook is graded (see gradekit.graders.observe), or None."""
        return None

    def __call__(self, job: NotebookJob) -> None:  # pragma: no cover - interface
        raise NotImplementedError


class Sanitize(Stage):
    """The submitted notebook, read defensively and rebuilt on the student's own release."""

    def __call__(self, job: NotebookJob) -> None:
        try:
            if job.path is None:
                raise SubmissionError(_("{name}.ipynb was not submitted").format(name=job.name))
            submitted = read_notebook(job.path)
        except SubmissionError as exc:
            job.result.error = job.say(exc.args[0] if exc.args else str(exc))
            job.result.cells = [CellResult(_graded_id(c), points(c), 0.0) for c in job.release.cells if is_graded(c)]
            job.graded = copy.deepcopy(job.release)
            return
        job.graded, notes = sanitize(submitted, job.release)
        job.notes.extend(job.say(note) for note in notes)


class RunCells(Stage):
    """Run the student's code cells (and the visible test cells no hidden grader grades)."""

    def __call__(self, job: NotebookJob) -> None:
        native = set(job.test_ids()) - set(self.context.suite.modules)
        assert job.graded is not None  # Sanitize made it
        runs = self.context.sandbox.run_cells(code_to_run(job.graded, tests=native))
        job.runs = runs
        job.result.runs = [CellRun(str(r.get("id", ""))[:100], bool(r.get("ok")), _short(r.get("error"))) for r in runs]


class RunGraders(Stage):
    """Run the hidden graders of this notebook's test cells against the sandbox."""

    def __call__(self, job: NotebookJob) -> None:
        suite = self.context.suite
        graded = [gid for gid in job.test_ids() if gid in suite.modules]
        if graded:
            job.checks = suite.run(
                self.context.sandbox,
                graded,
                job.variant.params,
                job.variant.seed,
                self.context.limits.notebook_budget,
                say=job.say,
            )
            self.context.note_grader_errors(suite.grader_errors())
            warned = suite.grader_warnings()
            if warned:  # for gradekit check to list (a warning is no failure: the grading goes on)
                job.observed["grader_warnings"] = warned


class Score(Stage):
    """Each graded cell's points: the share of its checks' weight that passed.

    A test cell without a hidden grader is graded as nbgrader grades it: all
    its points when its visible asserts ran without an error, none otherwise.
    A free-text answer waits for a manual grade (or, when the course says so,
    gets zero automatically if it was left as nbgrader's stub).
    """

    def __call__(self, job: NotebookJob) -> None:
        runs = {r.get("id"): r for r in job.runs}
        assert job.graded is not None  # Sanitize made it
        answers = {grade_id(c): c.source for c in job.graded.cells if grade_id(c)}
        zero_blank = bool(getattr(self.context.settings, "unanswered_free_text_zero", False))
        for cell in job.release.cells:
            if not is_graded(cell):
                continue
            gid, worth = _graded_id(cell), points(cell)
            if is_solution(cell):  # a manually graded answer
                blank = _unanswered(answers.get(gid, ""))
                if blank and zero_blank:
                    job.result.cells.append(
                        CellResult(
                            gid,
                            worth,
                            0.0,
                            [Check(job.say(_("answered")), False, job.say(_("not answered")))],
                            answered=False,
                        )
                    )
                else:
                    job.result.cells.append(CellResult(gid, worth, None, manual=True, answered=not blank))
                continue
            if gid in job.checks or gid in self.context.suite.modules:
                found = job.checks.get(gid, [])
            else:
                run = runs.get(gid) or {}
                found = [
                    Check(job.say(_("the notebook's own tests")), bool(run.get("ok")), _short(run.get("error")) or "")
                ]
            total = sum(c.weight for c in found)
            score = worth * sum(c.weight for c in found if c.passed) / total if total else 0.0
            cell_result = CellResult(gid, worth, round(score, 6), found)
            diagnose(cell_result)
            job.result.cells.append(cell_result)


class Annotate(Stage):
    """Put each test cell's checks into its output, as nbgrader shows test results."""

    after_failure = True

    def __call__(self, job: NotebookJob) -> None:
        by_gid = {c.grade_id: c for c in job.result.cells}
        view = job.say.view()  # the student's language
        assert job.graded is not None  # Sanitize made it, even of a notebook it could not read
        for cell in job.graded.cells:
            if cell.cell_type != "code" or not is_test(cell):
                continue
            res = by_gid.get(_graded_id(cell))  # a test cell: the release's
            if res is None:
                continue
            lines = [
                view(_("Hidden tests: {score:g} / {points:g} points").format(score=res.score or 0, points=res.points))
            ]
            if job.result.error:
                lines.append("  " + view(_("not graded: {reason}").format(reason=view(job.result.error))))
            lines += [f"  {note}" for note in notes(res, view)]
            for item in grouped(res.checks):
                if isinstance(item, Differing):  # the checks that only differ in value: one line, a short list
                    lines.append(f"  [{view(_('FAIL'))}] {view(item.summary())}")
                    lines += [f"      - {case}" for case in item.cases(view)]
                    continue
                mark = view(_("PASS") if item.passed else _("FAIL"))
                lines.append(f"  [{mark}] {view(item.name)}" + (f" -- {view(item.message)}" if item.message else ""))
            cell.outputs = [new_stream_output("\n".join(lines) + "\n")]
        if job.notes:
            job.graded.metadata["gradekit"] = {"notes": list(job.notes)}


def _graded_id(cell) -> str:
    """A graded cell's grade_id: the release's graded cells all have one (nbgrader's format requires it)."""
    return cast(str, grade_id(cell))


def _unanswered(source: str) -> bool:
    text = source.strip()
    return not text or text in _stubs() or text.strip("# ") in _stubs()


_STUBS: set[str] = set()


def _stubs() -> set[str]:
    """nbgrader's stub of a free-text answer, in every language gradekit speaks."""
    if not _STUBS:
        from gradekit.i18n.catalogs import languages
        from gradekit.release.stripper import stubs

        _STUBS.update({UNANSWERED, *(stubs(language)[1] for language in languages())})
    return _STUBS


def _short(text) -> str | None:
    return None if text is None else str(text)[:300]
