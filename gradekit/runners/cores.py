"""Pinning a grading process, and the sandbox it starts, to one CPU core.

A grading process and its sandbox take turns: every call into the student's
code is a request, a wait and a reply, a few hundred per submission, and the
two never run at once. On one core each hand-off is a cheap switch; across
two it is a cross-core wake-up, which on a virtual machine costs tens of
microseconds on each side (a socket ping-pong on our 2-core test machine:
70 us a round trip across cores, 6 us on one). The sandbox inherits the mask.

Processes that know no index of their own -- a pool's workers, a Dask
worker's processes, several runs on one machine -- *claim* a core: the first
whose lock file they can ``flock`` (released by the kernel when the process
ends). The lock files live in :func:`lock_dir`: ``$GRADEKIT_RUNTIME_DIR``, else
a directory per user under the temporary directory, so tests (and separate
courses) can keep their claims apart.
"""

from __future__ import annotations

import fcntl
import os
import tempfile
from pathlib import Path

RUNTIME_ENV = "GRADEKIT_RUNTIME_DIR"

_CLAIMED: list[int] = []  # the core this process holds, if any (its lock descriptor stays open)


def lock_dir() -> Path:
    """Where the core locks live: $GRADEKIT_RUNTIME_DIR, else <tmp>/gradekit-<uid>/ (mode 0700)."""
    configured = os.environ.get(RUNTIME_ENV)
    path = Path(configured) if configured else Path(tempfile.gettempdir()) / f"gradekit-{os.getuid()}"
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    return path


def affinity() -> set[int]:
    try:
        return os.sched_getaffinity(0)
    except (AttributeError, OSError):  # not Linux
        return set()


def pin_to_core(index: int) -> None:
    """Keep this process (and the sandbox it starts) on core ``index`` of those it may use."""
    cores = sorted(affinity())
    if len(cores) > 1:
        try:
            os.sched_setaffinity(0, {cores[index % len(cores)]})
        except OSError:  # a restricted cpuset: run unpinned
            pass


def claim_core() -> int | None:
    """Pin this process to a core no other gradekit process here has claimed; None if none is free.

    None, and no pinning, when every core is taken or there is only one.
    """
    if _CLAIMED:
        return _CLAIMED[0]
    cores = sorted(affinity())
    if len(cores) < 2:
        return None
    try:
        directory = lock_dir()
    except OSError:
        return None
    for core in cores:
        try:
            fd = os.open(directory / f"core-{core}.lock", os.O_CREAT | os.O_RDWR | os.O_NOFOLLOW, 0o600)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            os.sched_setaffinity(0, {core})
        except OSError:
            os.close(fd)
            continue
        _CLAIMED.append(core)  # the descriptor stays open, and locked, for the life of the process
        return core
    return None
