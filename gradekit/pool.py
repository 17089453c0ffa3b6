"""Process pools: the one way gradekit starts worker processes.

    fork_map(work, state, items, jobs)   work(state, part) for parts of ``items`` in forked workers
                                         that inherit ``state`` (compiled templates, a class's
                                         reader): only the parts and the answers cross a pipe
    executor(jobs, context, ...)         a pool of long-lived workers with an initializer (the local
                                         runner's, from its warm fork server)

Release (``generate``) and copy detection map over a class with :func:`fork_map`;
the local runner grades with an :func:`executor`. A leaf: it imports nothing of gradekit.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

T = TypeVar("T")
R = TypeVar("R")

_STATE: tuple[Callable, Any] | None = None  # (work, state) in a forked worker


def fork_map(work: Callable[[Any, list[T]], R], state: Any, items: Sequence[T], jobs: int) -> list[R]:
    """``[work(state, part) for part in parts]`` where ``items`` is split into ``jobs`` parts
    (every jobs-th item: a similar mix in each), in ``jobs`` forked processes -- or here, for one."""
    if jobs <= 1:
        return [work(state, list(items))]
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    global _STATE
    _STATE = (work, state)  # forked workers inherit it; nothing of it is pickled
    parts = [list(items[i::jobs]) for i in range(jobs)]
    try:
        with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("fork")) as pool:
            return list(pool.map(_forked, parts))
    finally:
        _STATE = None


def _forked(part: list) -> Any:
    assert _STATE is not None  # set before the pool forked this worker
    work, state = _STATE
    return work(state, part)


def executor(jobs: int, context, initializer: Callable | None = None, initargs: tuple = ()):
    """A pool of ``jobs`` long-lived workers started from ``context`` (a multiprocessing context)."""
    from concurrent.futures import ProcessPoolExecutor

    return ProcessPoolExecutor(jobs, mp_context=context, initializer=initializer, initargs=initargs)
