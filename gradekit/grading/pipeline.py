"""Grading one submission: the variant, then each notebook through the stages.

A :class:`Pipeline` is built once per grading process (a pool worker, a Dask
worker, or the command itself): it loads the assignment's templates, its
hidden graders (collected once) and its stages, and keeps one warm sandbox.
Then, for each student::

    variant      rebuild the student's notebooks from their id (never from the file)
    submission   find their files; read timestamp.txt (a bad one is noted, not fatal)
    stages       each notebook through Sanitize -> RunCells -> RunGraders -> Score -> Annotate
    results      a SubmissionResult, plus autograded/<student>/<assignment>/

The student's language (``languages.csv``) renders their release and the
texts they read: the results keep every text in English (the instructor's,
and the catalogue names the class report counts) and, in
``SubmissionResult.translations``, each one's rendering in the student's
language (:class:`gradekit.i18n.text.Say`). Grades never depend on the language.

A :class:`~gradekit.errors.CourseFailure` (a grader that does not load, a
template that does not render, a sandbox that does not start) propagates: the
run must stop. A :class:`~gradekit.errors.SubmissionError` is this student's
zero with the reason.
"""

from __future__ import annotations

import importlib
import json
import time
from pathlib import Path
from typing import TYPE_CHECKING, cast

from gradekit.atomic import atomic_write, write_notebooks
from gradekit.authoring.languages import language_of
from gradekit.authoring.template import AssignmentSource
from gradekit.authoring.variant import build_variant
from gradekit.course import Course
from gradekit.errors import CourseFailure, GraderError, SubmissionError
from gradekit.exchange.receipts import read_receipt
from gradekit.graders.observe import observing
from gradekit.grading.harness.suite import GraderSuite
from gradekit.grading.incremental import assignment_version, submission_digest
from gradekit.grading.options import Options
from gradekit.grading.preflight import preflight
from gradekit.grading.stages import DEFAULT_STAGES, NotebookJob, Stage, StageContext
from gradekit.i18n import _
from gradekit.i18n.catalogs import translator
from gradekit.i18n.text import Say
from gradekit.notebook.answers import graded_answers
from gradekit.release.cache import ReleaseCache
from gradekit.results import RESULTS_FILE, NotebookResult, SubmissionResult
from gradekit.sandbox.client import Sandbox
from gradekit.timeline import mark
from gradekit.untrusted import (
    clip,
    find_notebook,
    folder_listing,
    is_plain_folder,
    read_timestamp,
    submission_files,
)

if TYPE_CHECKING:  # pragma: no cover
    from nbformat import NotebookNode


class Pipeline:
    """Everything needed to grade one assignment's submissions, built once per process."""

    def __init__(self, course: Course, assignment: str, options: Options = Options(), *, start_sandbox: bool = True):
        """Load the assignment, check it (:func:`~.preflight.preflight`), collect its graders.

        With ``start_sandbox=False`` nothing is started: a fork server builds
        the pipeline once and each worker forked from it calls
        :meth:`start_sandbox` (a sandbox belongs to one process).
        """
        mark("grading", "pipeline")
        self.course, self.options = course, options
        self._translators: dict = {}
        self.grader_errors: list[tuple[str, str]] = []  # the graders' own exceptions in this grading
        self._cleared: set[tuple[str, int]] = set()  # (grader, variant seed): raised on an answer, not on the key
        self.limits = options.limits or course.limits_for(assignment)
        self.sandbox = Sandbox(self.limits, sandboxed=options.sandboxed)
        if start_sandbox:
            self.start_sandbox()  # boots in the background while the graders are collected
        try:
            self.source = AssignmentSource.load(course, assignment)
            preflight(course, assignment, self.source)
            mark("grading", "templates checked")
            self.suite = GraderSuite(course, assignment)
            self.suite.collect()
            mark("grading", "graders collected")
            self.releases = ReleaseCache(course, assignment)
            self.secret = course.secret()
            self.version = assignment_version(course, assignment)
            context = StageContext(self.sandbox, self.suite, self.limits, course.settings, self.grader_errors.extend)
            self.stages = [load_stage(spec)(context) for spec in self._stage_specs()]
        except BaseException:
            self.sandbox.shutdown()
            raise
        mark("grading", "pipeline ready")

    def start_sandbox(self, adopt: tuple | None = None) -> None:
        """Launch this process's sandbox without waiting for it (the first submission waits);
        ``adopt``: (process, control socket, cgroup) of one started earlier to use instead
        (see :mod:`gradekit.sandbox.early`)."""
        if adopt is not None:
            self.sandbox.adopt(*adopt)
        else:
            self.sandbox.prestart()
        mark("grading", "sandbox launched")

    def _stage_specs(self) -> list[str]:
        configured = list(getattr(self.course.settings, "stages", None) or [])
        return list(self.options.stages) or configured or DEFAULT_STAGES

    def close(self) -> None:
        self.sandbox.shutdown()

    @property
    def assignment(self) -> str:
        return self.source.name

    def grade_or_zero(
        self,
        student: str,
        folder: Path | None = None,
        out_dir: Path | None = None,
        language: str | None = None,
        tags: frozenset = frozenset(),
        observed: dict | None = None,
    ) -> SubmissionResult:
        """:meth:`grade`, or a zero with the reason when the submission cannot be graded at all; sealed
        (graded: it changes no more, gradekit.results).

        A course failure is not a zero: it propagates. Anything else unexpected
        while grading this one submission costs this student only.
        """
        try:
            return self.grade(student, folder, out_dir, language, tags, observed).seal()
        except SubmissionError as exc:
            return self._zero(student, exc.args[0] if exc.args else str(exc), language)
        except CourseFailure:
            raise
        except Exception as exc:  # noqa: BLE001 - a bug met on one submission must not stop the class
            self.sandbox.end_child()
            return self._zero(
                student,
                _("grading failed: {kind}: {message}").format(kind=type(exc).__name__, message=clip(str(exc), 200)),
                language,
            )

    def _zero(self, student: str, reason, language: str | None) -> SubmissionResult:
        say = self.say(language or language_of(self.course, student))
        result = SubmissionResult(student, self.assignment, error=say(reason), language=say.language)
        result.translations = say.table
        return result.seal()

    def say(self, language: str) -> Say:
        """Where grading a student of ``language`` stores what they will read (see gradekit.i18n)."""
        if language not in self._translators:
            self._translators[language] = translator(self.course.root, self.assignment, language)
        return Say(language, self._translators[language])

    def grade(
        self,
        student: str,
        folder: Path | None = None,
        out_dir: Path | None = None,
        language: str | None = None,
        tags: frozenset = frozenset(),
        observed: dict | None = None,
    ) -> SubmissionResult:
        """Grade ``student``'s submission (``folder``: another one, on the student's variant, as
        ``gradekit check`` does) into autograded/<student>/<assignment>/ (or ``out_dir``), in
        ``language`` (default: the student's, from languages.csv). ``tags`` and ``observed``
        are for stages that watch the grading (see gradekit.grading.stages): what they saw of
        each notebook lands in ``observed[notebook]``."""
        started = time.monotonic()
        student_before, startup_before = self.sandbox.student_seconds, self.sandbox.startup_seconds
        timeouts_before, kills_before = self.sandbox.timeouts, self.sandbox.kills
        language = language or language_of(self.course, student)
        variant = build_variant(self.course, self.source, student, self.secret, language, render=False)
        say = self.say(language)
        folder = folder or self.course.submitted_dir(student, self.assignment)
        stamp = read_timestamp(folder)
        result = SubmissionResult(
            student,
            self.assignment,
            timestamp=stamp.text,
            language=language,
            digest=submission_digest(folder, self.version, variant.seed, language),
        )
        collected = read_receipt(folder)
        result.receipt, result.handin = collected.receipt, collected.number
        if stamp.problem:
            result.notes.append(say(stamp.problem))
        files = submission_files(folder)
        expected = {f"{name}.ipynb" for name in variant.source.notebooks}
        if not is_plain_folder(folder):
            result.error = say(
                _("no submission")
                if not folder.exists() and not folder.is_symlink()
                else _("the submission folder is a symbolic link or not a folder; links are not followed")
            )
        elif not any(find_notebook(files, name)[0] for name in expected):
            found = ", ".join(folder_listing(folder)[:5])
            result.error = say(
                (
                    _("no notebook named {names} in the submission (found: {found})")
                    if found
                    else _("no notebook named {names} in the submission (found: nothing)")
                ).format(names=", ".join(sorted(expected)), found=found)
            )
        graded: dict[str, NotebookNode] = {}
        self.grader_errors.clear()
        for name, release in self.releases.student_versions(variant).items():
            path, note = find_notebook(files, f"{name}.ipynb")
            if note:
                result.notes.append(say(note))
            job = NotebookJob(name, release, path, variant, NotebookResult(name), say=say, tags=frozenset(tags))
            self._run_stages(job)
            self._describe(job)
            result.notebooks.append(job.result)
            graded[name] = cast("NotebookNode", job.graded)  # Sanitize made it
            if observed is not None and job.observed:
                observed[name] = job.observed
        result.translations = say.table
        result.seconds = time.monotonic() - started
        result.student_seconds = round(self.sandbox.student_seconds - student_before, 6)
        result.startup_seconds = round(self.sandbox.startup_seconds - startup_before, 6)
        result.timeouts = self.sandbox.timeouts - timeouts_before
        result.kills = self.sandbox.kills - kills_before
        suspects = [(where, what) for where, what in self.grader_errors if (where, variant.seed) not in self._cleared]
        if suspects and not self._blaming:  # before anything is written; not in this one's times
            self._blame(student, language, variant.seed, suspects)
        out_dir = out_dir or self.course.autograded_dir(student, self.assignment)
        write_notebooks(out_dir, graded)
        atomic_write(out_dir / RESULTS_FILE, json.dumps(result.to_dict()))
        mark("grading", "graded")
        return result

    _blaming = False  # grading the answer key for _blame: no blame within it

    def _blame(self, student: str, language: str, seed: int, suspects: list[tuple[str, str]]) -> None:
        """A grader raised an exception of its own on this submission: grade the student's answer
        key. One that raises there too, in a grading of the key that ran cleanly (no timeout, no
        kill, every cell ran), is broken -- a GraderError, which stops the run before this result (or
        any later one) is written. One that does not was provoked by the student's answer (a zero
        on that check, with the reason) and is not suspected again on this variant in this process.
        Anything else that goes wrong here keeps the student's result as graded."""
        import tempfile

        from gradekit.release.generate import write_answer_key

        errors = list(self.grader_errors)
        try:
            with tempfile.TemporaryDirectory(prefix="gradekit-key-") as tmp:
                key = Path(tmp) / "submitted"
                write_answer_key(
                    self.course,
                    self.assignment,
                    student,
                    key,
                    source=self.source,
                    secret=self.secret,
                    language=language,
                )
                self._blaming = True
                try:
                    graded = self.grade(student, key, Path(tmp) / "graded", language)
                    on_key = dict(self.grader_errors)
                finally:
                    self._blaming = False
                    self.grader_errors[:] = errors
        except CourseFailure:
            raise
        except Exception:  # noqa: BLE001 - no verdict: the student's result stands
            return
        clean = (
            not graded.error
            and not graded.timeouts
            and not graded.kills
            and all(run.ok for nb in graded.notebooks for run in nb.runs)
        )
        for where, _what in suspects:
            if where in on_key and clean:
                raise GraderError(
                    f"{where}: {on_key[where]} -- on the answer key too: a bug in the grader, "
                    f"not in the students' work; fix it and run again"
                )
            if where not in on_key:
                self._cleared.add((where, seed))

    def _describe(self, job: NotebookJob) -> None:
        """What a page shows of this notebook besides the grades, into its result: the notebook's
        title and each cell's exercise, from the source (in English; the student's language into the
        translations), the answer each cell graded, and what grading restored or noticed."""
        nb = job.result
        headings, nb.title = self.source.headings(job.name)
        nb.notes = list(job.notes)
        local, local_title = self.source.headings(job.name, job.say.language)
        if nb.title and local_title and local_title != nb.title:
            job.say.table[nb.title] = local_title
        answers = graded_answers(job.graded) if job.graded is not None else {}
        for cell in nb.cells:
            cell.answer = answers.get(cell.grade_id, "")
            heading = headings.get(cell.grade_id)
            if heading is None:
                continue
            cell.exercise = heading.full
            theirs = local.get(cell.grade_id)
            if theirs is not None and theirs.full != heading.full:
                job.say.table[heading.full] = theirs.full

    def _run_stages(self, job: NotebookJob) -> None:
        observers = [o for o in (stage.observer(job) for stage in self.stages) if o is not None]
        try:
            with observing(observers):
                for stage in self.stages:
                    if not job.failed or stage.after_failure:
                        stage(job)
        finally:
            self.sandbox.end_child()  # whatever happened, nothing of this notebook runs on


def load_stage(spec: str | type) -> type[Stage]:
    """A stage class from its import path (``package.module.Class``)."""
    if isinstance(spec, type):
        return spec
    module_name, _, name = str(spec).rpartition(".")
    try:
        stage = getattr(importlib.import_module(module_name), name)
    except (ImportError, AttributeError, ValueError) as exc:
        raise GraderError(
            f"nbgrader_config.py: c.Gradekit.stages names {spec!r}, which does not load ({type(exc).__name__}: {exc})"
        ) from None
    if not (isinstance(stage, type) and issubclass(stage, Stage)):
        raise GraderError(f"nbgrader_config.py: c.Gradekit.stages: {spec!r} is not a gradekit.grading.stages.Stage")
    return stage
