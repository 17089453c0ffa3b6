"""The limits of one sandbox, named as the course sets them in ``c.Gradekit`` (nbgrader_config.py).

A leaf: the course builds them (:meth:`gradekit.course.Course.limits_for`), the
sandbox enforces them, and neither needs the other's code for that.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Limits:
    """Resource limits for one sandbox; times in seconds, sizes in MiB."""

    cell_timeout: float = 20.0  # wall clock for running all of a notebook's cells
    call_timeout: float = 10.0  # wall clock for one call into the student's code
    notebook_budget: float = 120.0  # wall clock for all the graders' calls on one notebook
    memory: int = 1536  # address space of the student's code
    cpu_seconds: int = 60  # CPU time per notebook
    processes: int = 64  # processes at once
    tmpfs: int = 64  # the sandbox's private /tmp
    file_size: int = 16  # the largest file the student's code may write (no setting)
    open_files: int = 256  # descriptors at once (no setting)
    # the grader's functions the student's code calls back (they run in the grader's process), per call
    # of the student's code: how many calls, their arguments' size (MiB, arrays as 8 bytes an element,
    # an empty dimension as 1), their total time, and the memory one may take beyond what the grading
    # process has (MiB)
    callback_calls: int = 10_000
    callback_size: float = 4.0
    callback_seconds: float = 5.0
    callback_memory: int = 1024
