"""Grading on this machine: in this process, or in a pool of worker processes.

Workers fork from a warm fork server (:mod:`gradekit.runners.forkserver`)
that has already loaded, checked and collected the assignment
(:mod:`gradekit.runners.warm`); each claims a core (:mod:`~gradekit.runners.cores`),
takes that :class:`~gradekit.grading.pipeline.Pipeline` over (or builds its own, if the
course changed since) and starts a sandbox of its own. Only student ids go out
and plain result data comes back. A worker that cannot build its pipeline (a grader that
does not import, a sandbox that does not start) answers every task with that
course failure, and the coordinator stops.

If a worker process dies (the OOM killer, a crash in a library), the pool
breaks and every submission in flight fails with it. Those are graded again,
each alone in a fresh pool: the one that brings a worker down again gets a
zero with that reason, the others their grades, and the rest of the class
goes on. At most ``4 * jobs`` submissions are in flight, so the coordinator's
memory stays flat however large the class.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Iterable, Iterator

from gradekit.course import Course
from gradekit.errors import CourseFailure
from gradekit.grading.options import Options
from gradekit.results import SubmissionResult
from gradekit.runners.base import OnResult, Runner, failure_outcome, outcome, result_of
from gradekit.runners.cores import affinity, claim_core, pin_to_core

if TYPE_CHECKING:  # pragma: no cover - the coordinator of a pool never imports the grading code
    from gradekit.grading.pipeline import Pipeline


class InProcess(Runner):
    """One submission after another, here; this process and its sandbox pinned to one core.

    The sandbox starts with the runner, before the grading code is imported, so
    it boots while this process imports and collects the graders.
    """

    _before: set[int] = set()
    _zygote: tuple | None = None

    def start(self) -> None:
        from gradekit.sandbox.bwrap import start_zygote

        if self._zygote is None:
            self._before = affinity()
            pin_to_core(0)
            try:
                self._zygote = start_zygote(self.options.limits or self.course.limits_for(self.assignment),
                                            self.options.sandboxed)
            except OSError:   # the pipeline starts one itself, and reports what fails
                self._zygote = None

    def run(self, students: Iterable[str], on_result: OnResult) -> None:
        from gradekit.grading.pipeline import Pipeline

        self.start()
        zygote, self._zygote = self._zygote, None
        try:
            pipeline = Pipeline(self.course, self.assignment, self.options, start_sandbox=zygote is None)
            if zygote is not None:
                pipeline.start_sandbox(adopt=zygote)
                zygote = None
            try:
                for student in students:
                    on_result(pipeline.grade_or_zero(student))
            finally:
                pipeline.close()
        finally:
            if zygote is not None:   # the pipeline did not load: end the sandbox started for it
                _end(zygote)
            if self._before:
                os.sched_setaffinity(0, self._before)


def _end(zygote: tuple) -> None:
    import signal

    from gradekit.sandbox.bwrap import remove_cgroup

    proc, control, cgroup = zygote
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    proc.wait()
    control.close()
    remove_cgroup(cgroup)


class LocalPool(Runner):
    """``jobs`` worker processes, each pinned to a core of its own."""

    def __init__(self, course: Course, assignment: str, options: Options, jobs: int):
        super().__init__(course, assignment, options)
        self.jobs = jobs

    _early = None

    def start(self) -> None:
        """Start the fork server (it prepares the assignment) and a sandbox per worker, at once."""
        from gradekit.sandbox.early import EarlySandboxes
        from gradekit.runners.forkserver import request, warm_fork_server

        warm_fork_server(request(self.course.root, self.assignment, self.options))
        if self._early is None:
            limits = self.options.limits or self.course.limits_for(self.assignment)
            self._early = EarlySandboxes(limits, self.options.sandboxed, self.jobs)

    def run(self, students: Iterable[str], on_result: OnResult) -> None:
        self.start()
        try:
            self._run(students, on_result)
        finally:
            early, self._early = self._early, None
            early.close()

    def _run(self, students: Iterable[str], on_result: OnResult) -> None:
        from gradekit.runners.forkserver import warm_fork_server

        ctx = warm_fork_server()
        init = (str(self.course.root), self.assignment, self.options, os.getpid(), self._early.for_workers())
        pending = iter(students)
        while True:
            lost = _run_pool(ctx, self.jobs, init, pending, self.assignment, on_result)
            if not lost:
                return
            for student in lost:
                if _run_pool(ctx, 1, init, iter([student]), self.assignment, on_result, probe=True):
                    on_result(SubmissionResult(student, self.assignment, error=(
                        "grading failed: the grading process died twice while grading this submission "
                        "(out of memory, or a crash in a library)")))


def _run_pool(ctx, jobs: int, init: tuple, students: Iterator[str], assignment: str, on_result: OnResult,
              probe: bool = False) -> list[str]:
    """Grade what ``students`` yields in a fresh pool; return those in flight if a worker died.

    With ``probe``, a first task only checks that a worker starts at all: if
    that breaks the pool too, grading processes die on start-up -- the
    machine's fault, not the submission's.
    """
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
    from concurrent.futures.process import BrokenProcessPool

    lost: list[str] = []
    pool = ProcessPoolExecutor(jobs, mp_context=ctx, initializer=_init_worker, initargs=init)
    try:
        if probe:
            try:
                result_of(pool.submit(_probe).result())
            except BrokenProcessPool:
                raise CourseFailure("grading processes die as they start (out of memory?); "
                                    "nothing was graded by them") from None
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
                except Exception as exc:  # the task itself failed: this student gets a zero with the reason
                    on_result(SubmissionResult(student, assignment,
                                               error=f"grading failed: {type(exc).__name__}: {str(exc)[:200]}"))
                    continue
                on_result(result_of(data))   # a CourseFailure is raised here, and the run stops
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


# -- in the worker ---------------------------------------------------------------------

_PIPELINE: Pipeline | None = None
_FAILURE: dict | None = None


def _init_worker(root: str, assignment: str, options: Options, coordinator: int, early: list[dict]) -> None:
    """Take this worker's pipeline over from the fork server (or build it) and a sandbox from the
    coordinator (or start one); a failure is kept and reported instead of each result."""
    global _PIPELINE, _FAILURE
    from gradekit.timeline import mark

    mark("worker", "forked")
    _exit_with(coordinator)
    core = claim_core()
    try:
        from gradekit.grading.pipeline import Pipeline
        from gradekit.sandbox.early import take
        from gradekit.runners.warm import prepared

        _PIPELINE = prepared(root, assignment, options)
        if _PIPELINE is None:
            course = Course.load(root)
            zygote = take(early, options.limits or course.limits_for(assignment), options.sandboxed, core)
            _PIPELINE = Pipeline(course, assignment, options, start_sandbox=zygote is None)
        else:
            zygote = take(early, _PIPELINE.limits, options.sandboxed, core)
        if zygote is not None or _PIPELINE.sandbox.proc is None:
            # a new one is pinned with this worker (it inherits the core); a taken one was pinned by take()
            _PIPELINE.start_sandbox(adopt=zygote)
    except CourseFailure as exc:
        _FAILURE = failure_outcome(exc)
    except Exception as exc:  # noqa: BLE001 - a worker that cannot start is the machine's problem
        _FAILURE = failure_outcome(CourseFailure(f"a grading process could not start: "
                                                 f"{type(exc).__name__}: {exc}"))


def _probe() -> dict:
    return _FAILURE or {"result": {"student": "", "assignment": ""}}


def _grade_in_worker(student: str) -> dict:
    if _FAILURE is not None:
        return _FAILURE
    return outcome(lambda: _PIPELINE.grade_or_zero(student))


def _exit_with(pid: int) -> None:
    """End this worker when the coordinator ends, however it ends (SIGKILL included).

    A killed coordinator cannot tell its pool; without this, the workers would
    wait on their queue for ever, each keeping a warm sandbox. When the worker
    goes, bubblewrap (--die-with-parent) takes the sandbox with it.

    The coordinator may be gone before this worker starts: a fork request it
    sent just before it was killed is still served by the fork server (the
    request carries everything the worker needs). Such a worker ends at once.
    """
    import select
    import threading

    try:
        pidfd = os.pidfd_open(pid)
    except ProcessLookupError:
        os._exit(1)
    except (OSError, AttributeError):
        return

    def watch() -> None:
        select.select([pidfd], [], [])
        os._exit(1)

    threading.Thread(target=watch, name="gradekit-coordinator-watch", daemon=True).start()
