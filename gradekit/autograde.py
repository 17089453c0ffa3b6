"""Grade submissions: the pipeline from a submitted notebook to a result.

For each student (each in a worker process of its own, a few at a time)::

    variant   rebuild the student's notebooks from their id (never from the file)
    read      the submitted notebook, defensively            -> zero + reason if broken
    sanitize  restore locked and test cells from the variant
    sandbox   run the student's code cells in bubblewrap
    graders   run the hidden pytest graders against the sandbox
    results   a SubmissionResult, plus autograded/<student>/<assignment>/

The coordinator alone writes the gradebook (see :mod:`gradekit.gradebook`).
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Iterator

import nbformat

from .course import Course
from .errors import SandboxUnavailable, SubmissionError
from .graders.suite import GraderSuite
from .release import Stripper, atomic_write, write_notebooks
from .results import CellResult, CellRun, NotebookResult, SubmissionResult
from .sandbox.bwrap import Limits, bwrap_path
from .sandbox.client import Sandbox
from .submission import code_to_run, is_graded, is_solution, is_test, read_notebook, sanitize, unanswered
from .template import AssignmentSource
from .variant import build_variant

RESULTS_FILE = "results.json"


@dataclass(frozen=True)
class Options:
    sandboxed: bool = True
    limits: Limits = Limits()
    jobs: int = 0                 # 0: one per core
    force: bool = False           # regrade even when nothing changed since the last grading
    scheduler: str | None = None  # a Dask scheduler address: grade on that cluster


def check_sandbox(options: Options) -> None:
    if options.sandboxed and not bwrap_path():
        raise SandboxUnavailable("bubblewrap (bwrap) is not installed: install it (apt-get install bubblewrap) "
                                 "or pass --no-sandbox to run student code unconfined")


class Grader:
    """Everything needed to grade one assignment, built once per process."""

    def __init__(self, course: Course, assignment: str, options: Options):
        self.course, self.options = course, options
        self.source = AssignmentSource.load(course, assignment)
        self.suite = GraderSuite(course, assignment)
        self.stripper = Stripper()
        self.secret = course.secret()
        self.version = assignment_version(course, assignment)
        self.sandbox = Sandbox(options.limits, sandboxed=options.sandboxed)
        self.sandbox.prestart()  # boots in the background while the graders are collected

    def close(self) -> None:
        self.sandbox.shutdown()

    @property
    def assignment(self) -> str:
        return self.source.name

    def grade_or_zero(self, student: str) -> SubmissionResult:
        """:meth:`grade`, or a zero with the reason when the submission cannot be graded at all."""
        try:
            return self.grade(student)
        except SubmissionError as exc:
            return SubmissionResult(student, self.assignment, error=str(exc))

    def grade(self, student: str) -> SubmissionResult:
        started = time.monotonic()
        student_before = self.sandbox.student_seconds
        variant = build_variant(self.course, self.source, student, self.secret)
        folder = self.course.submitted_dir(student, self.assignment)
        result = SubmissionResult(student, self.assignment, timestamp=_timestamp(folder),
                                  fingerprint=fingerprint(folder, self.version, variant.seed))
        if not folder.is_dir():
            result.error = "no submission"
        else:
            present = {p.stem for p in folder.glob("*.ipynb")}
            expected = set(variant.notebooks)
            if not present & expected:
                found = ", ".join(sorted(p.name for p in folder.iterdir())[:5]) or "nothing"
                result.error = (f"no notebook named {', '.join(sorted(n + '.ipynb' for n in expected))} "
                                f"in the submission (found: {found})")
        out_dir = self.course.autograded_dir(student, self.assignment)
        graded_nbs = {}
        for name, full in variant.notebooks.items():
            release = self.stripper.student_version(full)
            nb_result, graded = self._grade_notebook(name, release, folder / f"{name}.ipynb", variant)
            result.notebooks.append(nb_result)
            graded_nbs[name] = graded
        write_notebooks(out_dir, graded_nbs)
        result.seconds = time.monotonic() - started
        result.student_seconds = round(self.sandbox.student_seconds - student_before, 6)
        atomic_write(out_dir / RESULTS_FILE, json.dumps(result.to_dict()))
        return result

    def _grade_notebook(self, name: str, release, path: Path, variant) -> tuple[NotebookResult, nbformat.NotebookNode]:
        tests = [c for c in release.cells if is_test(c)]
        test_ids = [c.metadata.nbgrader["grade_id"] for c in tests]
        self.suite.check_covers(test_ids, name)
        nb_result = NotebookResult(name)
        try:
            submitted = read_notebook(path)
        except SubmissionError as exc:
            nb_result.error = str(exc) if path.exists() else f"{path.name} was not submitted"
            nb_result.cells = _zero_cells(release)
            return nb_result, _annotate(copy.deepcopy(release), nb_result)
        graded, notes = sanitize(submitted, release)
        sandbox = self.sandbox
        try:
            runs = sandbox.run_cells(code_to_run(graded))
            nb_result.runs = [CellRun(str(r.get("id", ""))[:100], bool(r.get("ok")), _short(r.get("error")))
                              for r in runs]
            checks = self.suite.run(sandbox, test_ids, variant.params, variant.seed,
                                    self.options.limits.grading_seconds)
        finally:
            sandbox.finish()
        blank = unanswered(graded, release)
        for cell in release.cells:
            if not is_graded(cell):
                continue
            meta = cell.metadata.nbgrader
            gid, points = meta["grade_id"], float(meta.get("points", 0))
            if is_solution(cell):  # a manually graded answer; one left as handed out may score 0 at once
                zero = gid in blank and self.course.zero_unanswered
                nb_result.cells.append(CellResult(gid, points, 0.0 if zero else None, manual=True,
                                                  unanswered=gid in blank))
                continue
            found = checks.get(gid, [])
            total = sum(c.weight for c in found)
            score = points * sum(c.weight for c in found if c.passed) / total if total else 0.0
            cell_result = CellResult(gid, points, round(score, 6), found)
            cell_result.diagnose()
            nb_result.cells.append(cell_result)
        return nb_result, _annotate(graded, nb_result, notes)


def _zero_cells(release) -> list[CellResult]:
    """Every graded cell at zero: for a notebook that could not be read (nothing to grade by hand either)."""
    return [CellResult(c.metadata.nbgrader["grade_id"], float(c.metadata.nbgrader.get("points", 0)), 0.0)
            for c in release.cells if is_graded(c)]


def _annotate(nb, result: NotebookResult, notes: Iterable[str] = ()) -> nbformat.NotebookNode:
    """Put each test cell's checks into its output, as nbgrader shows test results."""
    by_gid = {c.grade_id: c for c in result.cells}
    for cell in nb.cells:
        if cell.cell_type != "code" or not is_test(cell):
            continue
        res = by_gid.get(cell.metadata.nbgrader["grade_id"])
        if res is None:
            continue
        lines = [f"Hidden tests: {res.score or 0:g} / {res.points:g} points"]
        if result.error:
            lines.append(f"  not graded: {result.error}")
        for check in res.checks:
            mark = "PASS" if check.passed else "FAIL"
            lines.append(f"  [{mark}] {check.name}" + (f" -- {check.message}" if check.message else ""))
        cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text="\n".join(lines) + "\n")]
    if notes:
        nb.metadata["gradekit"] = {"notes": list(notes)}
    return nb


def _short(text) -> str | None:
    return None if text is None else str(text)[:300]


def _timestamp(folder: Path) -> str | None:
    try:
        return (folder / "timestamp.txt").read_text().strip()[:64] or None
    except OSError:
        return None


def assignment_version(course: Course, assignment: str) -> str:
    """A hash of everything grading depends on besides the submission itself."""
    digest = hashlib.sha256(f"{_code_version()}/zero_unanswered={course.zero_unanswered}".encode())
    for base in (course.source_dir(assignment), course.graders_dir(assignment), course.solutions_dir(assignment)):
        for path in sorted(base.rglob("*")) if base.is_dir() else []:
            if path.is_file() and "__pycache__" not in path.parts:
                digest.update(str(path.relative_to(course.root)).encode())
                digest.update(path.read_bytes())
    return digest.hexdigest()


def _code_version() -> str:
    """A hash of gradekit's own source: a new gradekit regrades, as new graders do."""
    package = Path(__file__).resolve().parent
    digest = hashlib.sha256()
    for path in sorted(package.rglob("*.py")):
        digest.update(path.read_bytes())
    return digest.hexdigest()


def fingerprint(folder: Path, version: str, seed: int) -> str:
    """Submission files + assignment version + the student's seed: equal means nothing changed."""
    digest = hashlib.sha256(f"{version}/{seed}".encode())
    if folder.is_dir():
        for path in sorted(folder.glob("*.ipynb")):
            digest.update(path.name.encode())
            try:
                with open(path, "rb") as fh:
                    for block in iter(lambda: fh.read(1 << 20), b""):
                        digest.update(block)
            except OSError:
                pass
    return digest.hexdigest()


# -- many students ------------------------------------------------------------------

_GRADER: Grader | None = None


def _init_worker(root: str, assignment: str, options: Options, coordinator: int) -> None:
    global _GRADER
    _exit_with(coordinator)
    claim_core()
    _GRADER = Grader(Course.load(root), assignment, options)


def pin_to_core(index: int) -> None:
    """Keep this process, and the sandbox it is about to start, on one core of their own.

    A grader and its sandbox take turns: every call into the student's code
    is a request, a wait and a reply, a few hundred per submission, and the
    two never run at once. On one core each hand-off is a cheap switch; across
    two it is a cross-core wake-up, which on a virtual machine costs tens of
    microseconds on each side (a socket ping-pong on our 2-core test machine:
    70 us a round trip across cores, 6 us on one). The sandbox inherits the mask.
    """
    cores = sorted(_affinity())
    if len(cores) > 1:
        try:
            os.sched_setaffinity(0, {cores[index % len(cores)]})
        except OSError:  # a restricted cpuset: run unpinned
            pass


_CLAIMED: list[int] = []   # the lock files this process holds (see claim_core)


def claim_core() -> int | None:
    """Pin this thread (and the sandbox it starts) to a core no other gradekit process here has claimed.

    For workers that know no index of their own -- a pool's, a Dask
    worker's processes -- and for several runs on one machine: each takes the
    first core whose lock file it can lock (``flock``, released by the kernel
    when the process ends); see :func:`pin_to_core` for why. None, and no
    pinning, when every core is taken or there is only one.
    """
    import fcntl
    import tempfile

    if _CLAIMED:
        return _CLAIMED[0]
    cores = sorted(_affinity())
    if len(cores) < 2:
        return None
    for core in cores:
        path = Path(tempfile.gettempdir()) / f"gradekit-core-{os.getuid()}-{core}.lock"
        try:
            fd = os.open(path, os.O_CREAT | os.O_RDWR, 0o600)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            os.sched_setaffinity(0, {core})
        except OSError:
            os.close(fd)
            continue
        _CLAIMED.append(core)  # the descriptor stays open, and locked, for the life of the process
        return core
    return None


def _affinity() -> set[int]:
    try:
        return os.sched_getaffinity(0)
    except (AttributeError, OSError):  # not Linux
        return set()


def _exit_with(pid: int) -> None:
    """End this worker when the coordinator ends, however it ends (SIGKILL included).

    A killed coordinator cannot tell its pool; without this, the workers would
    wait on their queue for ever, each keeping a warm sandbox. When the worker
    goes, bubblewrap (--die-with-parent) takes the sandbox with it.
    """
    import select
    import threading

    try:
        pidfd = os.pidfd_open(pid)
    except (OSError, AttributeError):
        return

    def watch() -> None:
        select.select([pidfd], [], [])
        os._exit(1)

    threading.Thread(target=watch, name="gradekit-coordinator-watch", daemon=True).start()


def _grade_in_worker(student: str) -> dict:
    assert _GRADER is not None
    return _GRADER.grade_or_zero(student).to_dict()


def unchanged(course: Course, assignment: str, students: list[str]) -> dict[str, SubmissionResult]:
    """Earlier results whose submission, graders and variant are all unchanged."""
    from .variant import student_seed

    version = assignment_version(course, assignment)
    secret = course.secret()
    out = {}
    for student in students:
        path = course.autograded_dir(student, assignment) / RESULTS_FILE
        if not path.is_file():
            continue
        try:
            old = SubmissionResult.from_dict(json.loads(path.read_text()))
        except (ValueError, TypeError, KeyError):
            continue  # half-written or from another version: grade again
        seed = student_seed(secret, course.course_id, assignment, student)
        if old.fingerprint == fingerprint(course.submitted_dir(student, assignment), version, seed):
            out[student] = old
    return out


def grade_many(course: Course, assignment: str, students: list[str], options: Options,
               on_result: Callable[[SubmissionResult], None]) -> None:
    """Grade students in parallel worker processes; call ``on_result`` as each finishes.

    Students whose submission, graders and variant have not changed since
    their last grading are not graded again: their stored result is reported.
    So a run killed half-way and started again ends where an uninterrupted
    run would, without redoing the work.
    """
    check_sandbox(options)
    if not options.force:
        done = unchanged(course, assignment, students)
        for student in students:
            if student in done:
                on_result(done[student])
        students = [s for s in students if s not in done]
        if not students:
            return
    if options.scheduler:
        from .cluster import grade_on_cluster

        grade_on_cluster(options.scheduler, course, assignment, students, options, on_result)
        return
    jobs = options.jobs or os.cpu_count() or 1
    jobs = max(1, min(jobs, len(students)))
    if jobs == 1:
        before = _affinity()
        pin_to_core(0)  # this process and its sandbox on one core, as in a worker
        grader = Grader(course, assignment, options)
        try:
            for student in students:
                on_result(grader.grade_or_zero(student))
        finally:
            grader.close()
            if before:
                os.sched_setaffinity(0, before)
        return
    _grade_in_pool(course, assignment, students, options, on_result, jobs)


def _grade_in_pool(course: Course, assignment: str, students: list[str], options: Options,
                   on_result: Callable[[SubmissionResult], None], jobs: int) -> None:
    """Grade in ``jobs`` worker processes, forked warm from the fork server.

    If a worker process dies (the OOM killer, a crash in a library), the pool
    breaks and every submission in flight fails with it. Those are graded
    again, each alone in a fresh pool: the one that brings a worker down again
    gets a zero with that reason, the others their grades, and the rest of the
    class goes on.
    """
    from .pool import warm_fork_server

    ctx = warm_fork_server()
    init = (str(course.root), assignment, options, os.getpid())
    pending = iter(students)
    while True:
        lost = _run_pool(ctx, jobs, init, pending, assignment, on_result)
        if not lost:
            return
        for student in lost:
            if _run_pool(ctx, 1, init, iter([student]), assignment, on_result):
                on_result(SubmissionResult(student, assignment, error=(
                    "grading failed: the grading process died twice while grading this submission "
                    "(out of memory, or a crash in a library)")))


def _run_pool(ctx, jobs: int, init: tuple, students: Iterator[str], assignment: str,
              on_result: Callable[[SubmissionResult], None]) -> list[str]:
    """Grade what ``students`` yields in a fresh pool; return those in flight if a worker died.

    At most ``4 * jobs`` submissions are in flight: enough to keep every
    worker busy, few enough that the coordinator's memory stays flat however
    large the class (each result is dropped once recorded).
    """
    from concurrent.futures import FIRST_COMPLETED, wait
    from concurrent.futures.process import BrokenProcessPool

    lost: list[str] = []
    with ProcessPoolExecutor(jobs, mp_context=ctx, initializer=_init_worker, initargs=init) as pool:
        running: dict = {}
        while True:
            while not lost and len(running) < 4 * jobs:
                student = next(students, None)
                if student is None:
                    break
                try:
                    running[pool.submit(_grade_in_worker, student)] = student
                except BrokenProcessPool:
                    lost.append(student)
            if not running:
                return lost
            done, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in done:
                student = running.pop(future)
                try:
                    data = future.result()
                except BrokenProcessPool:
                    lost.append(student)
                    continue
                except Exception as exc:  # anything else: this student gets a zero with the reason
                    on_result(SubmissionResult(student, assignment, error=f"grading failed: {type(exc).__name__}: {exc}"))
                    continue
                on_result(SubmissionResult.from_dict(data))


def iter_results(course: Course, assignment: str, students: Iterable[str]) -> Iterator[SubmissionResult]:
    for student in students:
        path = course.autograded_dir(student, assignment) / RESULTS_FILE
        if path.is_file():
            yield SubmissionResult.from_dict(json.loads(path.read_text()))
