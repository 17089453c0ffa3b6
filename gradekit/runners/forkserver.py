"""The fork server local pool workers start from.

Kept apart so that the coordinator can start it without importing anything
heavy: the server imports the grading code (pytest, numpy, nbformat) and
prepares the assignment's pipeline (:mod:`gradekit.runners.warm`) on one core
while the coordinator goes on with its own work on another.
"""

from __future__ import annotations

import dataclasses
import json
import os

PRELOAD = ["gradekit.runners.warm", "gradekit.runners.local"]  # the pipeline; what the workers run
ENV = "GRADEKIT_WARM"  # which pipeline the fork server prepares (read by gradekit.runners.warm)


def request(root: str | os.PathLike, assignment: str, options) -> str:
    """A request to prepare this pipeline (the value of $GRADEKIT_WARM)."""
    return json.dumps(
        {
            "root": str(root),
            "assignment": assignment,
            "options": dataclasses.asdict(options),
            "coordinator": os.getpid(),
        }
    )


def warm_fork_server(request: str | None = None):
    """Start the fork server (if not running) and return its multiprocessing context.

    ``request`` (see :func:`request`) asks a fork server started now to
    prepare that pipeline; one already running keeps what it has.
    """
    import multiprocessing
    from multiprocessing import forkserver

    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(PRELOAD)
    before = os.environ.get(ENV)
    if request is not None:
        os.environ[ENV] = request  # the fork server is started with this process's environment
    try:
        forkserver.ensure_running()
    finally:
        if before is None:
            os.environ.pop(ENV, None)
        else:
            os.environ[ENV] = before
    return ctx
