"""Where a class is graded: the runner for so many submissions, and the sandbox it needs.

    make_runner   this process, a local pool sized to the work (one worker per few submissions,
                  at most one per core), or a Dask cluster; each grading process checks the course
                  first (grading/preflight.py: the templates render, every grader and the reference
                  compile), so a course bug stops the run before the first submission is graded
    require_sandbox  bubblewrap, unless --no-sandbox

The grading session (gradekit.service.session) drives the runner: what changed since the last
grading, the coordinator alone recording each result.
"""

from __future__ import annotations

from gradekit.course import Course
from gradekit.errors import SandboxUnavailable
from gradekit.grading.options import Options
from gradekit.runners.base import Runner


def require_sandbox(options: Options) -> None:
    from gradekit.sandbox.bwrap import bwrap_path

    if options.sandboxed and not bwrap_path():
        raise SandboxUnavailable(
            "bubblewrap (bwrap) is not installed: install it (apt-get install bubblewrap) "
            "or pass --no-sandbox to run student code unconfined"
        )


def make_runner(course: Course, assignment: str, options: Options, count: int) -> Runner:
    """The runner for ``count`` submissions: the cluster when a scheduler is given, else a pool
    sized to the work (one worker per few submissions, at most one per core), else this process."""
    if options.scheduler:
        from gradekit.runners.cluster import DaskCluster

        return DaskCluster(course, assignment, options)
    jobs = options.jobs or workers_for(count)
    if jobs <= 1:
        from gradekit.runners.local import InProcess

        return InProcess(course, assignment, options)
    from gradekit.runners.local import LocalPool

    return LocalPool(course, assignment, options, min(jobs, count))


SUBMISSIONS_PER_WORKER = 4  # below this many per extra worker, starting one costs more than it saves


def workers_for(count: int) -> int:
    import os

    cores = len(_usable_cores()) or os.cpu_count() or 1
    return max(1, min(cores, count // SUBMISSIONS_PER_WORKER))


def _usable_cores() -> set[int]:
    from gradekit.runners.cores import affinity

    return affinity()
