"""The fork server local pool workers start from.

Kept apart so that the command line can start it before importing anything
heavy: the server's imports (nbgrader, pytest, numpy) then run on one core
while the coordinator's own imports and gradebook queries run on another.
"""

from __future__ import annotations

PRELOAD = ["gradekit.runners.local", "gradekit.graders.plugin", "numpy", "pytest"]


def warm_fork_server():
    """Start the fork server (if not running) and return its multiprocessing context."""
    import multiprocessing
    from multiprocessing import forkserver

    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(PRELOAD)
    forkserver.ensure_running()
    return ctx
