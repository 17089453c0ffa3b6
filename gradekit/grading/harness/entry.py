"""Running an assignment's graders with plain pytest (the ``pytest11`` entry point ``gradekit``).

::

    pytest autograder/<assignment> --gradekit-submission=submitted/alice/<assignment>/
    pytest autograder/<assignment> --gradekit-answer-key --gradekit-student=alice

The graders get the fixtures they get inside gradekit (``student``,
``reference``, ``params``, ``rng``: :class:`~gradekit.grading.harness.plugin.GraderFixtures`),
for the student's own variant, rebuilt from the course secret: the student
is ``--gradekit-student``, else the folder under ``submitted/`` the submission
lies in. The submission's cells run in the same sandbox as in a grading run
(``--gradekit-no-sandbox`` runs them unconfined). Everything else is ordinary
pytest: its reports, ``-k``, ``tmp_path``, ``monkeypatch``, ``capsys``. Without
one of the two options the plugin does nothing.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, cast

import pytest

if TYPE_CHECKING:  # pragma: no cover
    from gradekit.grading.harness.plugin import GraderFixtures
    from gradekit.grading.stages import StageContext
    from gradekit.sandbox.client import Sandbox


def pytest_addoption(parser) -> None:
    group = parser.getgroup("gradekit", "gradekit: run hidden graders against a submission")
    group.addoption(
        "--gradekit-submission", metavar="PATH", help="a submitted notebook, or a submission folder, to grade"
    )
    group.addoption(
        "--gradekit-answer-key",
        action="store_true",
        help="grade the answer key of --gradekit-student (default: 'instructor')",
    )
    group.addoption("--gradekit-student", metavar="ID", help="whose variant (default: from the submission's path)")
    group.addoption("--gradekit-no-sandbox", action="store_true", help="run the student's code without bubblewrap")


def pytest_configure(config) -> None:
    config.addinivalue_line("markers", "weight(w): the share of its test cell's points this test carries (gradekit)")
    submission = config.getoption("--gradekit-submission")
    if submission is None and not config.getoption("--gradekit-answer-key"):
        config.pluginmanager.register(_Hint(), "gradekit-hint")
        return
    config.pluginmanager.register(SubmissionSession(config, submission), "gradekit-submission")


_HINT = (
    "gradekit's graders get `student` and `reference` from its pytest plugin: run them with "
    "--gradekit-answer-key (and --gradekit-student=ID) or --gradekit-submission=PATH"
)


class _Hint:
    """Without either option, a grader's own fixtures say how to run it, instead of pytest's
    "fixture 'student' not found" (a project's own fixture of that name still wins)."""

    @pytest.fixture
    def student(self):
        pytest.fail(_HINT, pytrace=False)

    @pytest.fixture
    def reference(self):
        pytest.fail(_HINT, pytrace=False)


class SubmissionSession:
    """The fixtures, bound to one notebook of the submission at a time, as the tests reach it."""

    def __init__(self, config, submission: str | None):
        from gradekit.course import Course

        self.config = config
        graders = _graders_dir(config)
        self.course = Course.load(_course_root(graders))
        self.assignment = graders.name
        self.submission = Path(submission).resolve() if submission else None
        self.student_id = config.getoption("--gradekit-student") or self._student_from_path() or "instructor"
        self.sandboxed = not config.getoption("--gradekit-no-sandbox")
        self._fixtures: GraderFixtures | None = None  # these two once the graders are collected (_prepare)
        self._bound: str | None = None
        self._sandbox: Sandbox | None = None

    def _student_from_path(self) -> str | None:
        if self.submission is None:
            return None
        parts = self.submission.parts
        if "submitted" in parts:
            index = len(parts) - 1 - parts[::-1].index("submitted")
            if index + 1 < len(parts):
                return parts[index + 1]
        return None

    # -- set-up, once ---------------------------------------------------------------
    def _prepare(self) -> None:
        from gradekit.authoring.template import AssignmentSource
        from gradekit.authoring.variant import build_variant
        from gradekit.grading.harness.plugin import GraderFixtures
        from gradekit.grading.harness.suite import GraderSuite
        from gradekit.release.cache import ReleaseCache
        from gradekit.sandbox.client import Sandbox

        source = AssignmentSource.load(self.course, self.assignment)
        self.variant = build_variant(self.course, source, self.student_id)
        self.releases = ReleaseCache(self.course, self.assignment).student_versions(self.variant)
        self.suite = GraderSuite(self.course, self.assignment)  # the reference; not collected here
        self.limits = self.course.limits_for(self.assignment)
        self._sandbox = Sandbox(self.limits, sandboxed=self.sandboxed)
        self._fixtures = GraderFixtures(self.suite.reference)
        self.notebook_of = {}
        from gradekit.notebook.cells import grade_id, is_test

        for name, release in self.releases.items():
            for cell in release.cells:
                if is_test(cell):
                    self.notebook_of[grade_id(cell)] = name

    def _bind(self, notebook: str) -> None:
        """Run ``notebook``'s submitted cells in a fresh sandbox child and point the fixtures at it."""
        from gradekit.grading.stages import NotebookJob, RunCells, Sanitize
        from gradekit.results import NotebookResult

        if self._bound == notebook:
            return
        path = self._submitted_path(notebook)
        job = NotebookJob(notebook, self.releases[notebook], path, self.variant, NotebookResult(notebook))
        context = cast("StageContext", self)  # what the two stages use of one: the sandbox and the suite
        Sanitize(context)(job)
        if job.failed:
            pytest.fail(f"{notebook}.ipynb cannot be graded: {job.result.error}", pytrace=False)
        assert self._sandbox is not None and self._fixtures is not None  # _prepare made them
        self._sandbox.end_child()
        RunCells(context)(job)
        self._fixtures.bind(self._sandbox, self.variant.params, self.variant.seed, self.limits.notebook_budget)
        self._bound = notebook

    def _submitted_path(self, notebook: str) -> Path | None:
        if self.config.getoption("--gradekit-answer-key"):
            return self._answer_key(notebook)
        if self.submission is None:
            return None
        if self.submission.is_dir():
            return self.submission / f"{notebook}.ipynb"
        return self.submission if self.submission.stem == notebook else None

    def _answer_key(self, notebook: str) -> Path:
        import tempfile

        from gradekit.release.generate import write_answer_key

        if not hasattr(self, "_keys"):
            self._keys = Path(tempfile.mkdtemp(prefix="gradekit-key-"))
            write_answer_key(self.course, self.assignment, self.student_id, self._keys)
        return self._keys / f"{notebook}.ipynb"

    # -- what RunCells and Sanitize ask of their pipeline ------------------------------
    @property
    def sandbox(self):
        return self._sandbox

    # -- hooks and fixtures ------------------------------------------------------------
    def pytest_collection_modifyitems(self, items) -> None:
        """Group the tests by notebook, so each notebook's cells run once."""
        if self._fixtures is None:
            self._prepare()
        order = list(self.releases)
        items.sort(key=lambda item: order.index(self.notebook_of.get(_module(item), order[0])))

    def pytest_runtest_setup(self, item) -> None:
        notebook = self.notebook_of.get(_module(item))
        if notebook is None:
            pytest.skip(f"no test cell {_module(item)!r} in {self.assignment}'s notebooks")
        self._bind(notebook)

    def pytest_unconfigure(self, config) -> None:
        if self._sandbox is not None:
            self._sandbox.shutdown()
        if hasattr(self, "_keys"):
            import shutil

            shutil.rmtree(self._keys, ignore_errors=True)

    @pytest.fixture
    def student(self, request):
        assert self._fixtures is not None  # made when the tests were collected
        return self._fixtures._fixture("student", request.node)

    @pytest.fixture
    def reference(self, request):
        assert self._fixtures is not None  # made when the tests were collected
        return self._fixtures._fixture("reference", request.node)

    @pytest.fixture
    def params(self, request):
        assert self._fixtures is not None  # made when the tests were collected
        return self._fixtures._fixture("params", request.node)

    @pytest.fixture
    def rng(self, request):
        assert self._fixtures is not None  # made when the tests were collected
        return self._fixtures._fixture("rng", request.node)


def _module(item) -> str:
    return Path(str(item.fspath)).stem


def _graders_dir(config) -> Path:
    """The autograder/<assignment>/ folder the tests were collected from."""
    for arg in config.args:
        path = Path(arg.split("::", 1)[0]).resolve()
        folder = path if path.is_dir() else path.parent
        if folder.parent.name == "autograder":
            return folder
    raise pytest.UsageError(
        "gradekit: give the graders' folder, e.g. pytest autograder/<assignment> --gradekit-submission=..."
    )


def _course_root(graders: Path) -> Path:
    root = graders.parent.parent
    if not (root / "nbgrader_config.py").is_file():
        raise pytest.UsageError(f"gradekit: {root} is not a course directory (no nbgrader_config.py)")
    return root
