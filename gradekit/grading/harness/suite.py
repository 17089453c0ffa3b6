"""The hidden graders of one assignment, run against one notebook's sandbox.

``autograder/<assignment>/test_<cell>.py`` grades the autograder test cell
whose grade_id is ``test_<cell>``; the cell's points are shared among the
module's tests by weight (``@pytest.mark.weight(2)``, default 1). The reference
code is ``solutions/<assignment>/reference.py``. Both are loaded in the trusted
process only; the sandbox never sees them. So are the course's helper modules beside the graders
(``autograder/<assignment>/_common.py``: :mod:`~gradekit.grading.harness.helpers`), which the
graders import by their bare names, and ``conftest.py`` there, whose fixtures they may ask for.
What they warn while they run is noted, not printed (:mod:`~gradekit.grading.harness.warned`).
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gradekit.course import Course
from gradekit.errors import GraderError
from gradekit.grading.harness import cases
from gradekit.grading.harness.helpers import Helpers
from gradekit.grading.harness.plugin import GraderPlugin, module_of
from gradekit.grading.harness.warned import Warned
from gradekit.imports import course_module
from gradekit.results import Check

if TYPE_CHECKING:  # pragma: no cover
    from _pytest.config import Config
    from _pytest.main import Session

# pytest plugins a grading run has no use for; unraisableexception alone costs a
# full gc.collect() twice per run. tmp_path, monkeypatch and capsys stay: graders may ask for
# them (those tests go through pytest's own protocol, not the direct path). "gradekit" is this
# package's own entry point (for running graders with plain pytest): here the session has its own.
# "anyio" (installed with Jupyter) is for async tests: its plugin imports asyncio and probes
# every event-loop backend, a tenth of a second of every grading process's start.
_UNUSED_PLUGINS = (
    "terminal",
    "cacheprovider",
    "stepwise",
    "unraisableexception",
    "threadexception",
    "junitxml",
    "doctest",
    "pastebin",
    "legacypath",
    "faulthandler",
    "logging",
    "warnings",
    "recwarn",
    "setuponly",
    "setupplan",
    "lsof",
    "gradekit",
    "anyio",
)


class GraderSuite:
    _plugin: GraderPlugin  # these three are set when the graders are collected (_start_session)
    _config: Config
    _session: Session | None

    def __init__(self, course: Course, assignment: str):
        self.root = course.root
        self.directory = course.graders_dir(assignment)
        # an assignment without hidden graders is graded on its test cells' own asserts
        self.modules = {p.stem: p for p in sorted(self.directory.glob("test_*.py"))} if self.directory.is_dir() else {}
        self.reference = _load_reference(course.solutions_dir(assignment) / "reference.py", course.root)
        self.helpers = Helpers(self.directory, course.root)
        self.warned = Warned(course.root, [self.directory, course.solutions_dir(assignment)])
        self._session = None

    def collect(self) -> None:
        """Import and collect the graders now (a GraderError names the file that does not load)."""
        if self.modules and self._session is None:
            self._start_session()

    def run(
        self, sandbox, grade_ids: list[str], params: dict, seed: int, budget: float | None = None, say=None
    ) -> dict[str, list[Check]]:
        """Run the graders of these test cells; return their checks by cell.

        ``budget`` bounds the wall-clock seconds of all calls into the student's
        code: once spent, the remaining checks fail at once. ``say`` (a
        :class:`gradekit.i18n.text.Say`) notes each check's texts in the student's language.
        """
        if not self.modules:
            return {}
        session = self._session or self._start_session()
        wanted = set(grade_ids)
        items = [item for item in session.items if module_of(item.nodeid) in wanted]
        plugin = self._plugin
        plugin.bind(sandbox, params, seed, budget, say)
        hook = self._config.hook
        direct = [plugin.is_direct(item) for item in items]
        protocol = [item for item, is_direct in zip(items, direct, strict=False) if not is_direct]
        following = dict(zip(protocol, protocol[1:] + [None], strict=False))  # pytest's teardown needs the next item
        with self.helpers.active(), self.warned.watching():  # a grader may import a helper as it runs
            for item, is_direct in zip(items, direct, strict=False):
                if is_direct:
                    plugin.run_direct(item)
                else:
                    hook.pytest_runtest_protocol(item=item, nextitem=following[item])
            try:
                cases.gather(plugin, items, module_of)  # a test stopped at its first failure: its further cases
            except Exception:  # noqa: BLE001 - evidence only: without it the checks and the score are the same
                pass
        return plugin.checks

    def grader_warnings(self) -> list[str]:
        """The last run's warnings of the course's code, each once, placed in the course
        (``autograder/<assignment>/test_x.py:19: RuntimeWarning: ...``: :mod:`.warned`)."""
        return list(self.warned.lines)

    def grader_errors(self) -> list[tuple[str, str]]:
        """The last run's exceptions of the graders' own (``is_grader_error``): (where, what), where
        as ``autograder/<assignment>/test_x.py::test_name``."""
        out = []
        for nodeid, what in self._plugin.grader_errors if self._session else []:
            path, _, test = nodeid.partition("::")
            out.append((f"{_relative(Path('/' + path), self.root)}::{test}", what))
        return out

    def _start_session(self) -> Session:
        """Configure pytest and collect the graders once; each run replays the items.

        This is what ``pytest.main`` does up to the test loop (see _pytest.main.wrap_session),
        kept open so that a class of a thousand pays for configuration and
        collection once, not a thousand times.
        """
        # --assert=plain: an assert's message reaches the feedback as the grader wrote it (a
        # gradekit.i18n.Text stays translatable; pytest's rewriting would turn it into a string with
        # the operands appended, which a student must not see anyway).
        # --import-mode=importlib with the filesystem root as rootdir gives every grader
        # module a name made from its full path: two courses (or assignments) with a
        # test_q1.py each can be graded in one process without clashing. --confcutdir
        # at autograder/ keeps pytest from collecting (listing, and loading any conftest.py
        # of) every directory from the filesystem root down: a fifth of a second in /tmp
        from _pytest.config import _prepareconfig
        from _pytest.main import Session

        self._plugin = GraderPlugin(self.reference)
        _forget_modules_under(self.directory)  # a grader edited since an earlier run here is read anew
        args = (
            [str(self.directory)]
            + [a for p in _UNUSED_PLUGINS for a in ("-p", f"no:{p}")]
            + [
                "--rootdir",
                "/",
                "--confcutdir",
                str(self.directory.parent),
                "--import-mode=importlib",
                "-o",
                "addopts=",
                "-o",
                "python_files=test_*.py",
                "--capture=no",
                "--assert=plain",
            ]
        )
        quiet = contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO())
        with quiet[0], quiet[1], self.helpers.active():
            config = _prepareconfig(args, plugins=[self._plugin])
            config._do_configure()
            session = Session.from_config(config)
            config.hook.pytest_sessionstart(session=session)
            config.hook.pytest_collection(session=session)
        if self._plugin.collect_errors:
            nodeid, line, message = self._plugin.collect_errors[0]  # rootdir is "/": a node id is a path
            raise GraderError(f"{_relative(Path('/' + nodeid), self.root)}{':' + line if line else ''}: {message}")
        if "hypothesis" in sys.modules:  # a grader uses it: make it deterministic, without shrinking
            _hypothesis_profile()
        self._config, self._session = config, session
        return session


def _hypothesis_profile() -> None:
    """Deterministic, and no shrinking: a failing example is reported as found.

    Shrinking makes many more calls into the student's (already wrong) code to
    find a smaller example nobody sees. Graders' own ``@settings`` still win
    for the fields they set.
    """
    try:
        from hypothesis import HealthCheck, Phase, settings
    except ImportError:  # pragma: no cover - hypothesis is a dependency
        return
    # hypothesis keeps files under .hypothesis/ in the working directory: not in the course
    from hypothesis.configuration import set_hypothesis_home_dir

    set_hypothesis_home_dir(_hypothesis_home())
    settings.register_profile(
        "gradekit",
        derandomize=True,
        database=None,
        deadline=None,
        phases=[Phase.explicit, Phase.reuse, Phase.generate],
        suppress_health_check=list(HealthCheck),
        print_blob=False,
    )
    settings.load_profile("gradekit")
    _cache_function_digests()


def _hypothesis_home() -> str:
    """One directory per user for hypothesis's caches, reused by every run (a fresh one per
    worker left a directory behind each time); a private new one if that path is not ours."""
    home = Path(tempfile.gettempdir()) / f"gradekit-hypothesis-{os.getuid()}"
    try:
        home.mkdir(mode=0o700, exist_ok=True)
        if home.is_symlink() or home.stat().st_uid != os.getuid():
            raise PermissionError(home)
    except OSError:
        return tempfile.mkdtemp(prefix="gradekit-hypothesis-")
    return str(home)


def _cache_function_digests() -> None:
    """Remember hypothesis's digest of a test function by its code object.

    With ``derandomize`` hypothesis seeds each run from a digest of the test's
    source, read and re-tokenized with inspect on every call. Graders often
    define their ``@given`` function inside the test (to draw from the
    student's seed), so the same source is re-read for every submission. The
    digest depends only on the code, the signature and a per-test salt, so a
    cache keyed by those gives the same seed -- and the same grades.
    """
    import hypothesis.core as core

    original = core.function_digest
    if getattr(original, "gradekit_cached", False):
        return
    cache: dict = {}

    def function_digest(function):
        code = getattr(function, "__code__", None)
        if code is None:
            return original(function)
        key = (code, getattr(function, "_hypothesis_internal_add_digest", None))
        if key not in cache:
            cache[key] = original(function)
        return cache[key]

    function_digest.gradekit_cached = True  # type: ignore[attr-defined]  # a mark on the function
    core.function_digest = function_digest


def _load_reference(path: Path, root: Path) -> Any:
    if not path.is_file():
        return None
    name = "gradekit_reference_" + hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:16]
    if name in sys.modules:
        return sys.modules[name]
    try:
        module = course_module(name, path)
    except SyntaxError as exc:
        raise GraderError(f"{_relative(path, root)}:{exc.lineno or '?'}: {exc.msg}") from None
    except Exception as exc:
        line = _failing_line(exc, path)
        raise GraderError(f"{_relative(path, root)}{line}: {type(exc).__name__}: {exc}") from None
    sys.modules[name] = module
    return module


def _relative(path: Path, root: Path) -> str:
    try:
        return str(Path(path).resolve().relative_to(root))
    except ValueError:
        return str(path)


def _failing_line(exc: BaseException, path: Path) -> str:
    """``:<line>`` of the innermost frame of ``exc`` in ``path``, or ''."""
    import traceback

    line = ""
    for frame in traceback.extract_tb(exc.__traceback__):
        if Path(frame.filename).resolve() == Path(path).resolve():
            line = f":{frame.lineno}"
    return line


def _forget_modules_under(directory: Path) -> None:
    """Drop imported modules whose file lies in ``directory`` (pytest's importlib mode reuses them)."""
    base = str(Path(directory).resolve()) + os.sep
    for name, module in list(sys.modules.items()):
        path = getattr(module, "__file__", None) or ""
        if path.startswith(base):
            del sys.modules[name]
