"""How to grade: the options of one grading run (cheap to import: the command line needs them
before it knows whether anything needs grading at all)."""

from __future__ import annotations

from dataclasses import dataclass

from gradekit.sandbox.limits import Limits


@dataclass(frozen=True)
class Options:
    """How to grade: set by the command line, the rest from the course's ``c.Gradekit``."""

    sandboxed: bool = True
    limits: Limits | None = None  # None: the course's (c.Gradekit.cell_timeout, ...)
    jobs: int = 0  # 0: sized to the work and the cores
    force: bool = False  # regrade even when nothing changed since the last grading
    scheduler: str | None = None  # a Dask scheduler address: grade on that cluster
    stages: tuple[str, ...] = ()  # import paths; empty: the course's, else DEFAULT_STAGES
