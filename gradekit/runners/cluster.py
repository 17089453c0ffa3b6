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

import threading
from typing import Iterable

from gradekit.course import Course
from gradekit.errors import CourseFailure, UsageError
from gradekit.results import SubmissionResult
from gradekit.runners.base import OnResult, Runner, failure_outcome, outcome, result_of

_PIPELINES: dict = {}
_LOCK = threading.Lock()


def grade_remote(root: str, assignment: str, options, student: str) -> dict:
    """The task run on a Dask worker: grade one student with this process's warm Pipeline."""
    from gradekit.grading.pipeline import Pipeline
    from gradekit.runners.cores import claim_core

    with _LOCK:
        key = (root, assignment, options)
        pipeline = _PIPELINES.get(key)
        if pipeline is None:
            claim_core()  # this worker and its sandbox on a core of their own, as in a local pool
            try:
                pipeline = _PIPELINES[key] = Pipeline(Course.load(root), assignment, options)
            except CourseFailure as exc:
                return failure_outcome(exc)
        return outcome(lambda: pipeline.grade_or_zero(student))


class DaskCluster(Runner):
    def run(self, students: Iterable[str], on_result: OnResult) -> None:
        try:
            from distributed import Client, as_completed
        except ImportError:  # pragma: no cover - dask is a dependency
            raise UsageError("dask.distributed is not installed") from None
        address = self.options.scheduler
        try:
            client = Client(address, timeout="10s")
        except (OSError, TimeoutError) as exc:
            raise UsageError(f"cannot reach the Dask scheduler at {address}: {exc}") from None
        with client:
            futures = {client.submit(grade_remote, str(self.course.root), self.assignment, self.options, student,
                                     key=f"gradekit-{self.assignment}-{student}", pure=False, retries=2): student
                       for student in students}
            try:
                for future in as_completed(futures):
                    student = futures.pop(future)  # dropping the future releases its result on the cluster
                    try:
                        data = future.result()
                    except Exception as exc:  # the task failed for good: a zero with the reason
                        on_result(SubmissionResult(student, self.assignment, error=(
                            f"grading failed on the cluster: {type(exc).__name__}: {str(exc)[:200]}")))
                        continue
                    on_result(result_of(data))
            except CourseFailure:
                client.cancel(list(futures))
                raise
