"""Shared fixtures: temporary course directories built from the repository's course.

Two kinds of course:

* ``course_factory`` / ``course`` -- a fresh course per test (own gradebook,
  own release/), for tests that change the course or need a clean slate.
* ``shared_course`` -- one course for the whole session.

``CourseDir.grade`` grades one student with a gradekit ``Pipeline`` in a
helper process (spawned once per course): its sandbox and collected graders
stay warm there between tests. ``CourseDir.cli("autograde", ...)`` runs the
command in the pytest process itself; with one job that grades in-process too
(the ``InProcess`` runner), which works because gradekit collects the graders
with ``--import-mode=importlib`` and forgets a course's grader modules before
collecting them again (see ``GraderSuite._start_session``).
"""

from __future__ import annotations

import atexit
import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass

from pathlib import Path

import nbformat
import pytest
from hypothesis import HealthCheck, settings

# property tests judge what they draw, not how fast: a loaded machine (CI, helpers running beside) made
# hypothesis's too_slow health check fail a test whose every example passed
settings.register_profile("gradekit", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("gradekit")

from gradekit.notebook.cells import grade_id, is_solution, is_test, nbgrader_meta  # noqa: F401 - for the tests

REPO = Path(__file__).resolve().parents[1]
VENV_BIN = Path(sys.executable).parent
ASSIGNMENT = "self_attention"
NOTEBOOK = "self_attention"
SECRET = "gradekit-test-suite-secret"
STUDENTS = ("alice", "bob", "carol", "dave", "erin", "frank")
COURSE_FILES = ("nbgrader_config.py", "source", "autograder", "solutions")
KNOWN = REPO / "autograder" / ASSIGNMENT   # mistakes/ and correct/: the course's known implementations


QUIZ_FILES = ("quiz.ipynb", "params_quiz.py")  # the thought-question notebook (tests/test_quiz.py)


def _ignore(directory, names):
    return [n for n in names if n in ("__pycache__", ".pytest_cache", ".hypothesis")]


def _ignore_quiz(directory, names):
    return _ignore(directory, names) + [n for n in names if n in QUIZ_FILES]


_EMPTY_GRADEBOOK: Path | None = None
_POOLS: dict = {}
_WORKER_PIPELINES: dict = {}


def _grading_pool(root: Path):
    """One spawned process per course that grades it (its Pipeline stays warm there)."""
    if root not in _POOLS:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        from gradekit.runners.local import exit_with

        # the process ends with this one however this one ends (a native crash included)
        _POOLS[root] = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"),
                                           initializer=exit_with, initargs=(os.getpid(),))
    return _POOLS[root]


def _grade_in_worker(root: str, student: str, sandboxed: bool, secret: str) -> dict:
    from gradekit.grading.options import Options
    from gradekit.grading.pipeline import Pipeline
    from gradekit.course import Course

    os.environ["GRADEKIT_SECRET"] = secret
    os.environ["PATH"] = f"{VENV_BIN}:{os.environ.get('PATH', '')}"
    key = (root, sandboxed)
    if key not in _WORKER_PIPELINES:
        _WORKER_PIPELINES[key] = Pipeline(Course.load(root), ASSIGNMENT, Options(sandboxed=sandboxed))
    return _WORKER_PIPELINES[key].grade(student).to_dict()


def _empty_gradebook() -> Path:
    """An empty nbgrader gradebook, made once per session."""
    global _EMPTY_GRADEBOOK
    if _EMPTY_GRADEBOOK is None:
        import tempfile

        from nbgrader.api import Gradebook

        from gradekit.gradebook.connect import stamp_new

        path = Path(tempfile.mkdtemp(prefix="gradekit-tests-")) / "gradebook.db"
        atexit.register(shutil.rmtree, path.parent, True)  # one per session, gone with it
        env_path = os.environ.get("PATH", "")
        os.environ["PATH"] = f"{VENV_BIN}:{env_path}"
        try:
            stamp_new(f"sqlite:///{path}")  # as gradekit opens a new gradebook: no `alembic heads` process
            with Gradebook(f"sqlite:///{path}"):
                pass
        finally:
            os.environ["PATH"] = env_path
        _EMPTY_GRADEBOOK = path
    return _EMPTY_GRADEBOOK


class CourseDir:
    """A temporary course directory and the helpers the tests use on it."""

    def __init__(self, root: Path):
        self.root = Path(root)

    # -- set-up ------------------------------------------------------------------
    @classmethod
    def create(cls, root: Path, students=STUDENTS, quiz: bool = False) -> "CourseDir":
        """A course with the exercise notebook only, unless ``quiz`` (then both notebooks)."""
        root.mkdir(parents=True, exist_ok=True)
        for name in COURSE_FILES:
            src = REPO / name
            if src.is_dir():
                shutil.copytree(src, root / name, ignore=_ignore if quiz else _ignore_quiz)
            else:
                shutil.copy2(src, root / name)
        # a new gradebook costs seconds (nbgrader runs `alembic` to stamp it): copy an empty one
        shutil.copy2(_empty_gradebook(), root / "gradebook.db")
        course = cls(root)
        if not quiz:  # its settings name the quiz's cells: the exercise notebook's own (none)
            course.write_settings(ASSIGNMENT, "")
        course.add_students(*students)
        return course

    def write_settings(self, assignment: str, text: str) -> None:
        """Replace ``source/<assignment>/assignment.toml`` (gradekit.settings) with ``text``."""
        (self.root / "source" / assignment / "assignment.toml").write_text(text, encoding="utf-8")

    @property
    def course(self):
        from gradekit.course import Course

        return Course.load(self.root)

    @property
    def db_url(self) -> str:
        return self.course.db_url

    def gradebook(self):
        from nbgrader.api import Gradebook

        return Gradebook(self.db_url)

    def configure(self, **settings) -> None:
        """Set ``c.Gradekit.<name> = value`` in the course's nbgrader_config.py."""
        with open(self.root / "nbgrader_config.py", "a") as fh:
            for name, value in settings.items():
                fh.write(f"\nc.Gradekit.{name} = {value!r}\n")

    def add_students(self, *students: str) -> None:
        with self.gradebook() as gb:
            for student in students:
                gb.update_or_create_student(student)

    def students(self) -> list[str]:
        with self.gradebook() as gb:
            return sorted(s.id for s in gb.students)

    # -- the CLI in-process ------------------------------------------------------
    def cli(self, *args: str) -> int:
        from gradekit.cli.main import main

        return main(["--course", str(self.root), *args])

    def generate(self, *students: str) -> None:
        args = ["generate", ASSIGNMENT]
        for s in students:
            args += ["--student", s]
        assert self.cli(*args) == 0

    def release_path(self, student: str) -> Path:
        return self.root / "release" / student / ASSIGNMENT / f"{NOTEBOOK}.ipynb"

    def release(self, student: str) -> nbformat.NotebookNode:
        path = self.release_path(student)
        if not path.exists():
            self.generate(student)
        return nbformat.read(str(path), as_version=4)

    def answer_key(self, student: str) -> nbformat.NotebookNode:
        out = self.root / "keys" / student
        path = out / f"{NOTEBOOK}.ipynb"
        if not path.exists():
            assert self.cli("answer-key", ASSIGNMENT, "--student", student, "--out", str(out)) == 0
        return nbformat.read(str(path), as_version=4)

    # -- submissions -------------------------------------------------------------
    def submission_path(self, student: str) -> Path:
        return self.root / "submitted" / student / ASSIGNMENT / f"{NOTEBOOK}.ipynb"

    def submit(self, student: str, content) -> Path:
        """Write a submission: a notebook, or raw str/bytes for broken files."""
        path = self.submission_path(student)
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        elif isinstance(content, str):
            path.write_text(content)
        else:
            path.write_text(nbformat.writes(content))
        return path

    # -- grading -----------------------------------------------------------------
    def grade(self, student: str, sandboxed: bool = True):
        """Grade one student with a gradekit Pipeline, in this course's own grading process."""
        from gradekit.results import SubmissionResult

        pool = _grading_pool(self.root)
        return SubmissionResult.from_dict(pool.submit(_grade_in_worker, str(self.root), student,
                                                      sandboxed, SECRET).result(timeout=600))

    def autograde(self, *students: str, jobs: int = 1) -> int:
        args = ["autograde", ASSIGNMENT, "--jobs", str(jobs)]
        for s in students:
            args += ["--student", s]
        return self.cli(*args)

    def results(self, students=None) -> dict:
        from gradekit.results import iter_results

        students = list(students) if students is not None else self.students()
        return {r.student: r for r in iter_results(self.course, ASSIGNMENT, students)}

    def results_json(self, student: str) -> dict:
        return json.loads((self.root / "autograded" / student / ASSIGNMENT / "results.json").read_text())

    def run(self, *argv: str, check: bool = True, **kw) -> subprocess.CompletedProcess:
        """A command in the course directory with the venv's bin first on PATH."""
        env = kw.pop("env", None) or dict(os.environ, PATH=f"{VENV_BIN}:{os.environ.get('PATH', '')}",
                                          GRADEKIT_SECRET=SECRET)
        proc = subprocess.run(list(argv), cwd=self.root, env=env, capture_output=True, text=True,
                              timeout=600, **kw)
        if check and proc.returncode != 0:
            raise AssertionError(f"{argv} failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
        return proc


# -- notebook helpers: the package's own where it has them -------------------------------------

def cell_by_id(nb, gid: str):
    for cell in nb.cells:
        if grade_id(cell) == gid:
            return cell
    raise KeyError(gid)


def exercise_tests(nb) -> dict[str, list[str]]:
    """Each solution cell's grade_id -> the test cells that follow it (before the next solution)."""
    out: dict[str, list[str]] = {}
    owner = None
    for cell in nb.cells:
        if is_solution(cell):
            owner = grade_id(cell)
            out.setdefault(owner, [])
        elif is_test(cell) and owner is not None:
            out[owner].append(grade_id(cell))
    return out


def with_solutions(key: nbformat.NotebookNode, sources: dict[str, str]) -> nbformat.NotebookNode:
    """A copy of ``key`` with the sources of these solution cells replaced (each must exist)."""
    from gradekit.qa.simulate import fill

    missing = set(sources) - {grade_id(c) for c in key.cells if is_solution(c)}
    assert not missing, f"no solution cell(s) {missing} in the notebook"
    return fill({"notebook": key}, sources)["notebook"]


@dataclass
class Known:
    """One file of the course's QA set (gradekit.qa.qaset), for the tests."""
    path: Path
    names: str | None          # the phrase its feedback must contain; None: a right answer
    breaks: list[str]          # the test cells it must break; []: those after its sections
    sources: dict[str, str]    # solution-cell grade_id -> code

    @property
    def name(self) -> str:
        return self.path.stem

    @property
    def correct(self) -> bool:
        return self.names is None


def known_implementations() -> list[Known]:
    """The course's classic mistakes, then its right answers written differently."""
    from gradekit.qa import qaset

    return [Known(p, *qaset.parse(p)) for kind in qaset.KINDS for p in qaset.files(KNOWN, kind)]


def known_sources(name: str) -> dict[str, str]:
    """The solution-cell sources of one file of the QA set, e.g. ``correct/loops``."""
    from gradekit.qa import qaset

    return qaset.parse(KNOWN / f"{name}.py")[2]


# -- one assignment's QA set, graded once ------------------------------------------------------

QA_SEEDS = ("s1", "s2", "s3")  # each file of an assignment's QA set handed in by three students


def key_id(seed: str) -> str:
    """The student who hands in the answer key (their own variant's)."""
    return f"key-{seed}"


def blank_id(seed: str) -> str:
    """The student who hands in their release untouched."""
    return f"blank-{seed}"


def qa_students(path: Path) -> list[str]:
    """The students who hand in the QA file ``path``, one per seed."""
    return [f"{path.stem}-{seed}" for seed in QA_SEEDS]


def assignment_course(root: Path, assignment: str, students) -> CourseDir:
    """A course of the repository's ``assignment`` alone, with ``students`` in its gradebook, generated."""
    root.mkdir(parents=True)
    shutil.copy2(REPO / "nbgrader_config.py", root)
    for part in ("source", "autograder", "solutions"):
        shutil.copytree(REPO / part / assignment, root / part / assignment,
                        ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy2(_empty_gradebook(), root / "gradebook.db")
    course = CourseDir(root)
    course.add_students(*students)
    assert course.cli("generate", assignment) == 0
    return course


def submit_as(course: CourseDir, assignment: str, student: str, nb, name: str | None = None) -> None:
    """``nb`` handed in by ``student`` (as the notebook ``name``, else the assignment's own)."""
    folder = course.root / "submitted" / student / assignment
    folder.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, str(folder / f"{name or assignment}.ipynb"))


def own_key(course: CourseDir, assignment: str, student: str, name: str | None = None) -> nbformat.NotebookNode:
    """``student``'s answer key (their own numbers)."""
    from gradekit.release.generate import write_answer_key

    out = course.root / "keys" / student
    write_answer_key(course.course, assignment, student, out)
    return nbformat.read(str(out / f"{name or assignment}.ipynb"), as_version=4)


def graded_qa_set(root: Path, assignment: str):
    """``assignment``'s whole QA set graded once (``autograde --jobs 2``): the answer key and the untouched
    release of each seed, each mistake and each right answer handed in by a student per seed (a course of
    its own in ``root``). Returns the course, the results by student, the students of each QA file by its
    stem, and each solution cell's test cells."""
    from gradekit.qa import qaset
    from gradekit.results import iter_results

    graders = REPO / "autograder" / assignment
    files = qaset.files(graders, "mistakes") + qaset.files(graders, "correct")
    by_file = {p.stem: qa_students(p) for p in files}
    everyone = [key_id(s) for s in QA_SEEDS] + [blank_id(s) for s in QA_SEEDS] + \
        [s for ids in by_file.values() for s in ids]
    course = assignment_course(root, assignment, everyone)
    release = lambda student: course.root / "release" / student / assignment / f"{assignment}.ipynb"  # noqa: E731
    for seed in QA_SEEDS:
        submit_as(course, assignment, key_id(seed), own_key(course, assignment, key_id(seed)))
        submit_as(course, assignment, blank_id(seed), nbformat.read(str(release(blank_id(seed))), as_version=4))
    for path in files:
        _, _, sections = qaset.parse(path)
        for student in by_file[path.stem]:
            submit_as(course, assignment, student, with_solutions(own_key(course, assignment, student), sections))
    assert course.cli("autograde", assignment, "--jobs", "2") == 0
    results = {r.student: r for r in iter_results(course.course, assignment, everyone)}
    assert set(results) == set(everyone)
    blank = nbformat.read(str(release(blank_id(QA_SEEDS[0]))), as_version=4)
    return course, results, by_file, exercise_tests(blank)


# -- fixtures ---------------------------------------------------------------------

# Debian's chromium as its headless shell (make system-deps), never `playwright install`'s own: the same
# Chromium without the desktop browser around it, a quarter less CPU for the same pages (see the Makefile)
CHROMIUM = "/usr/bin/chromium-headless-shell"
# what the tests' network needs: nothing may try to reach out
CHROMIUM_FLAGS = ["--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--no-first-run", "--disable-quic", "--disable-default-apps", "--disable-extensions"]


@pytest.fixture(scope="module")
def browser():
    """Debian's chromium, driven by Playwright, for a module's tests (each opens its own contexts)."""
    playwright = pytest.importorskip("playwright.sync_api")
    if not Path(CHROMIUM).exists():
        pytest.skip("Debian's chromium-headless-shell is not installed (make system-deps)")
    args = CHROMIUM_FLAGS + (["--no-sandbox"] if os.geteuid() == 0 else [])
    with playwright.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=args)
        yield b
        b.close()


def pytest_configure(config):
    """This process's core claims (gradekit.runners.cores) in a folder of its own, apart from any other gradekit
    on the machine and from the run's other workers (pytest-xdist): a test that claims a core finds one free."""
    import tempfile

    runtime = tempfile.mkdtemp(prefix="gradekit-test-runtime-")
    os.environ["GRADEKIT_RUNTIME_DIR"] = runtime
    config.add_cleanup(lambda: shutil.rmtree(runtime, ignore_errors=True))


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """Which tests share a worker when pytest-xdist runs the suite (make test: ``--dist loadgroup``).

    A module-scoped fixture is made once for the tests that use it, and its tests may build on each other
    (a hub's state, a service's log, a class graded once): those tests of a module are one group, run by one
    worker in their order. Every other test goes to whichever worker is free. The longest go first (a group
    with a browser, a hub's among them, then the slow ones, then the whole pipeline's), so that no long group
    starts last.
    """
    for item in items:
        if "browser" in item.fixturenames:  # pytest -m browser: every test that opens a page, hubs' among them
            item.add_marker(pytest.mark.browser)
        if item.get_closest_marker("xdist_group"):
            continue
        info = getattr(item, "_fixtureinfo", None)
        scopes = {d.scope for defs in (info.name2fixturedefs.values() if info else ()) for d in defs}
        if scopes & {"module", "class", "package"}:
            item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::")[0]))
    if getattr(config.option, "loadgroup", False):
        # a worker of --dist loadgroup: the group goes into the test's id, as xdist 3.8 would write it (it sets
        # item._nodeid, which pytest 9 no longer reads)
        from _pytest.nodeid import NodeId

        for item in items:
            group = item.get_closest_marker("xdist_group")
            if group is not None and "@" not in item.nodeid:
                item._id = NodeId.parse(f"{item.nodeid}@{group.args[0] if group.args else group.kwargs['name']}")

    def weight(item) -> int:
        """How long the test's group may take: a browser (and a hub with it), then slow, then the whole pipeline."""
        return (8 * ("browser" in item.fixturenames) + 4 * (item.get_closest_marker("xdist_group") is not None)
                + 2 * (item.get_closest_marker("slow") is not None) + (item.get_closest_marker("e2e") is not None))

    def group(item) -> str:
        mark = item.get_closest_marker("xdist_group")
        return mark.args[0] if mark and mark.args else mark.kwargs["name"] if mark else item.nodeid

    heaviest: dict[str, int] = {}
    first: dict[str, int] = {}
    for index, item in enumerate(items):
        heaviest[group(item)] = max(heaviest.get(group(item), 0), weight(item))
        first.setdefault(group(item), index)
    items.sort(key=lambda item: (-heaviest[group(item)], first[group(item)]))   # stable: a group keeps its order


@pytest.fixture(scope="session", autouse=True)
def _course_secret():
    """Every course in the session uses the same secret unless a test changes it."""
    mp = pytest.MonkeyPatch()
    mp.setenv("GRADEKIT_SECRET", SECRET)
    # nbgrader's Gradebook shells out to `alembic` when it creates a database:
    # the venv's bin must be on PATH, as in an activated venv
    mp.setenv("PATH", f"{VENV_BIN}:{os.environ.get('PATH', '')}")
    yield SECRET
    for pool in _POOLS.values():
        pool.shutdown(wait=True, cancel_futures=True)
    _POOLS.clear()
    mp.undo()


@pytest.fixture
def course_factory(tmp_path, monkeypatch):
    monkeypatch.setenv("GRADEKIT_SECRET", SECRET)
    count = 0

    def make(students=STUDENTS, name: str | None = None, quiz: bool = False) -> CourseDir:
        nonlocal count
        count += 1
        return CourseDir.create(tmp_path / (name or f"course{count}"), students, quiz=quiz)

    return make


@pytest.fixture
def course(course_factory) -> CourseDir:
    """A fresh course with the students in the gradebook and nothing generated."""
    return course_factory()


@pytest.fixture(scope="session")
def shared_course(tmp_path_factory) -> CourseDir:
    """One course for the session, generated for every student; the only one graded in-process."""
    course = CourseDir.create(tmp_path_factory.mktemp("shared") / "course")
    course.generate()
    return course
