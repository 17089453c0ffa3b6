"""Grading on a Dask distributed cluster (``--scheduler tcp://HOST:PORT``).

Each submission is one task. The workers see the course directory on a shared
filesystem at the same path and grade in the same sandbox as a local run; the
task returns plain result data and the coordinator alone writes the gradebook.
A worker that dies mid-task loses nothing: the scheduler hands its tasks to
another worker, and a submission graded twice gives the same result (grading
is deterministic and the files are written atomically). A task that reports a
course failure (a grader that does not load on the workers) stops the run.

Run workers with one thread each (``dask worker ADDR --nthreads 1 --nworkers N``):
pytest's grading run is not thread-safe, so threads of one worker process take
turns. Each worker process claims a core of its own on its machine for itself
and its sandbox (:func:`gradekit.runners.cores.claim_core`), as a local pool does.
"""

from __future__ import annotations

import itertools
import threading
from typing import TYPE_CHECKING

from gradekit.course import Course
from gradekit.errors import CourseFailure, UsageError
from gradekit.extras import require
from gradekit.runners.base import Job, Outcome, Runner, failure_outcome, grade_job, outcome_of, zero

if TYPE_CHECKING:  # pragma: no cover
    from distributed import Client

_PIPELINES: dict = {}
CONNECT = 10.0  # seconds to wait for the Dask scheduler before its address is said to be unreachable
_LOCK = threading.Lock()


def _pipeline(root: str, assignment: str, options):
    """This worker process's Pipeline for the assignment, built at its first use and kept."""
    from gradekit.grading.pipeline import Pipeline
    from gradekit.runners.cores import claim_core

    key = (root, assignment, options)
    pipeline = _PIPELINES.get(key)
    if pipeline is None:
        claim_core()  # this worker and its sandbox on a core of their own, as in a local pool
        pipeline = _PIPELINES[key] = Pipeline(Course.load(root), assignment, options)
    return pipeline


def grade_remote(root: str, assignment: str, options, job: dict) -> dict:
    """The task run on a Dask worker: grade one job with this process's warm Pipeline."""
    with _LOCK:
        try:
            pipeline = _pipeline(root, assignment, options)
        except CourseFailure as exc:
            return failure_outcome(exc)
        return grade_job(pipeline, Job.from_dict(job))


def warm_remote(root: str, assignment: str, options) -> dict:
    """Run on every worker at a service's start: its Pipeline built and its sandbox up before a hand-in."""
    with _LOCK:
        try:
            _pipeline(root, assignment, options)
        except CourseFailure as exc:
            return failure_outcome(exc)
    return {}


class DaskCluster(Runner):
    """One task per submission on the cluster at ``options.scheduler``."""

    window = 10_000  # the scheduler queues them; results are dropped as they are taken

    def __init__(self, course: Course, assignment: str, options):
        super().__init__(course, assignment, options)
        self._client: Client | None = None
        self._futures: dict = {}  # future -> job
        self._keys = itertools.count()

    def start(self) -> None:
        if self._client is not None:
            return
        require("cluster")
        from distributed import Client

        address = self.options.scheduler
        try:
            self._client = Client(address, timeout=f"{CONNECT}s")
        except (OSError, TimeoutError) as exc:
            raise UsageError(f"cannot reach the Dask scheduler at {address}: {exc}") from None

    def warm(self) -> None:
        """Every worker of the cluster builds its Pipeline now (a live service's start)."""
        self.start()
        assert self._client is not None
        for data in self._client.run(warm_remote, str(self.course.root), self.assignment, self.options).values():
            if data:
                outcome_of(Job(""), data)  # a course failure on the workers: raised here

    def submit(self, job: Job) -> None:
        self.start()
        assert self._client is not None  # start() made it
        future = self._client.submit(
            grade_remote,
            str(self.course.root),
            self.assignment,
            self.options,
            job.to_dict(),
            key=f"gradekit-{self.assignment}-{job.student}-{next(self._keys)}",
            pure=False,
            retries=2,
        )
        self._futures[future] = job

    @property
    def pending(self) -> int:
        return len(self._futures)

    def next_outcome(self, timeout: float | None = None) -> Outcome | None:
        from distributed import wait

        if not self._futures:
            return None
        if timeout is not None and timeout <= 0:  # distributed's wait times out at once on 0, done or not
            done = [f for f in self._futures if f.done()]
            if not done:
                return None
        else:
            try:
                done = list(wait(list(self._futures), timeout=timeout, return_when="FIRST_COMPLETED").done)
            except TimeoutError:
                return None
        future = next(iter(done))
        job = self._futures.pop(future)  # dropping the future releases its result on the cluster
        try:
            data = future.result()
        except Exception as exc:  # the task failed for good: a zero with the reason
            return zero(job, self.assignment, f"grading failed on the cluster: {type(exc).__name__}: {str(exc)[:200]}")
        try:
            return outcome_of(job, data)
        except CourseFailure:
            assert self._client is not None  # it took the futures
            self._client.cancel(list(self._futures))
            self._futures.clear()
            raise

    def close(self) -> None:
        client, self._client = self._client, None
        if client is not None:
            if self._futures:
                client.cancel(list(self._futures))
            self._futures.clear()
            client.close()
