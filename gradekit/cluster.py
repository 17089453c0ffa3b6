"""Grading on a Dask distributed cluster (``--scheduler tcp://HOST:PORT``).

Each submission is one task. The workers see the course directory on a shared
filesystem at the same path and grade in the same sandbox as a local run; the
task returns the result as plain JSON data and the coordinator alone writes
the gradebook. A worker that dies mid-task loses nothing: the scheduler hands
its tasks to another worker, and a submission graded twice gives the same
result (grading is deterministic and the files are written atomically).

Run workers with one thread each (``dask worker ADDR --nthreads 1 --nworkers N``):
pytest's grading run is not thread-safe, so threads of one worker process take
turns. Each worker process claims a core of its own on its machine for itself
and its sandbox (:func:`gradekit.autograde.claim_core`), as a local run pins
its workers.
"""

from __future__ import annotations

import threading
from typing import Callable

from .course import Course
from .errors import GradekitError
from .results import SubmissionResult

_GRADERS: dict = {}
_LOCK = threading.Lock()


def grade_remote(root: str, assignment: str, options, student: str) -> dict:
    """The task run on a Dask worker: grade one student with this process's warm Grader."""
    from .autograde import Grader, claim_core

    with _LOCK:
        key = (root, assignment, options)
        grader = _GRADERS.get(key)
        if grader is None:
            claim_core()  # this worker and its sandbox on a core of their own, as in a local run
            grader = _GRADERS[key] = Grader(Course.load(root), assignment, options)
        return grader.grade_or_zero(student).to_dict()


def grade_on_cluster(address: str, course: Course, assignment: str, students: list[str], options,
                     on_result: Callable[[SubmissionResult], None]) -> None:
    try:
        from distributed import Client, as_completed
    except ImportError:  # pragma: no cover - dask is a dependency
        raise GradekitError("dask.distributed is not installed") from None
    try:
        client = Client(address, timeout="10s")
    except (OSError, TimeoutError) as exc:
        raise GradekitError(f"cannot reach the Dask scheduler at {address}: {exc}") from None
    with client:
        futures = {client.submit(grade_remote, str(course.root), assignment, options, student,
                                 key=f"gradekit-{assignment}-{student}", pure=False, retries=2): student
                   for student in students}
        for future in as_completed(futures):
            student = futures.pop(future)  # dropping the future releases its result on the cluster
            try:
                on_result(SubmissionResult.from_dict(future.result()))
            except Exception as exc:  # the task failed for good: a zero with the reason
                on_result(SubmissionResult(student, assignment,
                                           error=f"grading failed on the cluster: {type(exc).__name__}: {exc}"))
