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
zero with that reason, the others their grades; what is submitted afterwards
goes to a fresh pool. ``run`` keeps at most ``4 * jobs`` submissions in
flight, so the coordinator's memory stays flat however large the class.
"""

from __future__ import annotations

import collections
import os
from typing import TYPE_CHECKING

from gradekit.course import SECRET_ENV, Course
from gradekit.errors import CourseFailure
from gradekit.grading.options import Options
from gradekit.runners.base import (
    Job,
    Outcome,
    Runner,
    failure_outcome,
    grade_job,
    outcome_of,
    settle_heap,
    zero,
)
from gradekit.runners.cores import affinity, claim_core, pin_to_core

if TYPE_CHECKING:  # pragma: no cover - the coordinator of a pool never imports the grading code
    from concurrent.futures import ProcessPoolExecutor

    from gradekit.grading.pipeline import Pipeline
    from gradekit.sandbox.early import EarlySandboxes

DIED_TWICE = (
    "grading failed: the grading process died twice while grading this submission "
    "(out of memory, or a crash in a library)"
)


class InProcess(Runner):
    """One submission after another, here; this process and its sandbox pinned to one core.

    The sandbox starts with the runner, before the grading code is imported, so
    it boots while this process imports and collects the graders. The pipeline
    is built at the first submission graded and kept until :meth:`close`.
    """

    _before: set[int] = set()
    _zygote: tuple | None = None
    _pipeline: Pipeline | None = None
    _settled = False  # whether settle_heap() froze this process's heap (given back at close)

    def __init__(self, course: Course, assignment: str, options: Options):
        super().__init__(course, assignment, options)
        self._queue: collections.deque[Job] = collections.deque()

    def start(self) -> None:
        from gradekit.sandbox.bwrap import start_zygote

        if self._zygote is None and self._pipeline is None:
            self._before = affinity()
            pin_to_core(0)
            try:
                self._zygote = start_zygote(
                    self.options.limits or self.course.limits_for(self.assignment), self.options.sandboxed
                )
            except OSError:  # the pipeline starts one itself, and reports what fails
                self._zygote = None

    def warm(self) -> None:
        self._ready()

    def submit(self, job: Job) -> None:
        self._queue.append(job)

    @property
    def pending(self) -> int:
        return len(self._queue)

    def next_outcome(self, timeout: float | None = None) -> Outcome | None:
        if not self._queue:
            return None
        job = self._queue.popleft()
        return outcome_of(job, grade_job(self._ready(), job))

    def _ready(self) -> Pipeline:
        if self._pipeline is None:
            from gradekit.grading.pipeline import Pipeline

            self.start()
            zygote, self._zygote = self._zygote, None
            try:
                self._pipeline = Pipeline(self.course, self.assignment, self.options, start_sandbox=zygote is None)
            except BaseException:
                if zygote is not None:  # the pipeline did not load: end the sandbox started for it
                    _end(zygote)
                raise
            if zygote is not None:
                self._pipeline.start_sandbox(adopt=zygote)
            settle_heap()
            self._settled = True
        return self._pipeline

    def close(self) -> None:
        pipeline, self._pipeline = self._pipeline, None
        zygote, self._zygote = self._zygote, None
        if self._settled:  # this process goes on (a test session, a server): what it held may be collected again
            import gc

            gc.unfreeze()
            self._settled = False
        if pipeline is not None:
            pipeline.close()
        if zygote is not None:
            _end(zygote)
        if self._before:
            os.sched_setaffinity(0, self._before)
            self._before = set()


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
        self.window = 4 * jobs
        self._early: EarlySandboxes | None = None
        self._pool: ProcessPoolExecutor | None = None
        self._running: dict = {}  # future -> job
        self._lost: list[Job] = []  # in flight when a worker died: each is graded again alone

    def start(self) -> None:
        """Start the fork server (it prepares the assignment) and a sandbox per worker, at once."""
        from gradekit.runners.forkserver import request, warm_fork_server
        from gradekit.sandbox.early import EarlySandboxes

        warm_fork_server(request(self.course.root, self.assignment, self.options))
        if self._early is None:
            limits = self.options.limits or self.course.limits_for(self.assignment)
            self._early = EarlySandboxes(limits, self.options.sandboxed, self.jobs)
            # the secret as this process has it now: the fork server (one per process) may have started
            # with another, for an earlier pool (a test suite, a service, gradekit check run in process)
            secret = os.environ.get(SECRET_ENV)
            self._init = (
                str(self.course.root),
                self.assignment,
                self.options,
                os.getpid(),
                self._early.for_workers(),
                secret,
            )

    def _executor(self, jobs: int) -> ProcessPoolExecutor:
        from gradekit.pool import executor
        from gradekit.runners.forkserver import warm_fork_server

        return executor(jobs, warm_fork_server(), _init_worker, self._init)

    def warm(self) -> None:
        """Start every worker now: each takes the fork server's pipeline over and its sandbox."""
        self.start()
        if self._pool is None:
            self._pool = self._executor(self.jobs)
        probes = [self._pool.submit(_probe) for _ in range(self.jobs)]
        for probe in probes:
            outcome_of(Job(""), probe.result())  # a worker that cannot start raises its CourseFailure here

    def submit(self, job: Job) -> None:
        from concurrent.futures.process import BrokenProcessPool

        if self._early is None:
            self.start()
        if self._pool is None:
            self._pool = self._executor(self.jobs)
        try:
            self._running[self._pool.submit(_grade_in_worker, job.to_dict())] = job
        except BrokenProcessPool:
            self._lost.append(job)
            self._broken()

    @property
    def pending(self) -> int:
        return len(self._running) + len(self._lost)

    def next_outcome(self, timeout: float | None = None) -> Outcome | None:
        from concurrent.futures import FIRST_COMPLETED, wait
        from concurrent.futures.process import BrokenProcessPool

        while True:
            if self._lost and not self._running:
                return self._alone(self._lost.pop(0))
            if not self._running:
                return None
            done, _ = wait(self._running, timeout=timeout, return_when=FIRST_COMPLETED)
            if not done:
                return None
            future = next(iter(done))
            job = self._running.pop(future)
            try:
                data = future.result()
            except BrokenProcessPool:
                self._lost.append(job)
                self._broken()
                continue
            except Exception as exc:  # the task itself failed: this student gets a zero with the reason
                return zero(job, self.assignment, f"grading failed: {type(exc).__name__}: {str(exc)[:200]}")
            return outcome_of(job, data)  # a CourseFailure is raised here

    def _broken(self) -> None:
        """A worker died: the jobs in flight that had not finished are lost with it (each is graded
        again alone); later ones go to a fresh pool."""
        from concurrent.futures.process import BrokenProcessPool

        pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)  # after this, every future has its verdict
        for future, _job in list(self._running.items()):
            if not future.done() or future.cancelled() or isinstance(future.exception(), BrokenProcessPool):
                self._lost.append(self._running.pop(future))

    def _alone(self, job: Job) -> Outcome:
        """Grade ``job`` alone in a fresh pool of one. A first task only checks that a worker starts
        at all: if that breaks the pool too, grading processes die on start-up -- the machine's
        fault, not the submission's."""
        from concurrent.futures.process import BrokenProcessPool

        pool = self._executor(1)
        try:
            try:
                outcome_of(job, pool.submit(_probe).result())
            except BrokenProcessPool:
                raise CourseFailure(
                    "grading processes die as they start (out of memory?); nothing was graded by them"
                ) from None
            try:
                data = pool.submit(_grade_in_worker, job.to_dict()).result()
            except BrokenProcessPool:
                return zero(job, self.assignment, DIED_TWICE)
            return outcome_of(job, data)
        finally:
            pool.shutdown(wait=True, cancel_futures=True)

    def close(self) -> None:
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
        self._running.clear()
        early, self._early = self._early, None
        if early is not None:
            early.close()


# -- in the worker ---------------------------------------------------------------------

_PIPELINE: Pipeline | None = None
_FAILURE: dict | None = None


def _init_worker(
    root: str, assignment: str, options: Options, coordinator: int, early: list[dict], secret: str | None = None
) -> None:
    """Take this worker's pipeline over from the fork server (or build it) and a sandbox from the
    coordinator (or start one); a failure is kept and reported instead of each result. ``secret``
    is the coordinator's $GRADEKIT_SECRET (None: unset), which the fork server may not have."""
    global _PIPELINE, _FAILURE
    from gradekit.timeline import mark

    mark("worker", "forked")
    if secret is None:
        os.environ.pop(SECRET_ENV, None)
    else:
        os.environ[SECRET_ENV] = secret
    exit_with(coordinator)
    core = claim_core()
    try:
        from gradekit.grading.pipeline import Pipeline
        from gradekit.runners.warm import prepared
        from gradekit.sandbox.early import take

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
        settle_heap()
    except CourseFailure as exc:
        _FAILURE = failure_outcome(exc)
    except Exception as exc:  # noqa: BLE001 - a worker that cannot start is the machine's problem
        _FAILURE = failure_outcome(CourseFailure(f"a grading process could not start: {type(exc).__name__}: {exc}"))


def _probe() -> dict:
    return _FAILURE or {"result": {"student": "", "assignment": ""}}


def _grade_in_worker(job: dict) -> dict:
    if _FAILURE is not None:
        return _FAILURE
    return grade_job(_PIPELINE, Job.from_dict(job))


def exit_with(pid: int) -> None:
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
