"""Where a command's time goes: a timeline of named moments, for the benchmark.

When ``$GRADEKIT_TIMELINE`` names a file, every gradekit process of a command
(the coordinator, the fork server's workers, a sandbox's grading process)
appends one line per :func:`mark`::

    <wall clock, time.time()> <this process's CPU seconds> <pid> <role> <event>

``bench/run.py`` sets it, reads the lines back and prints the start-up
breakdown of the first submission. Unset (always, outside the benchmark), a
mark costs one dictionary lookup.
"""

from __future__ import annotations

import os
import time

ENV = "GRADEKIT_TIMELINE"


def mark(role: str, event: str) -> None:
    """Note that ``event`` happened now in this process (a ``role``: coordinator, worker...)."""
    path = os.environ.get(ENV)
    if not path:
        return
    line = f"{time.time():.6f} {time.process_time():.6f} {os.getpid()} {role} {event}\n"
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, line.encode())
        finally:
            os.close(fd)
    except OSError:
        pass


def read(path: str | os.PathLike) -> list[tuple[float, float, int, str, str]]:
    """The marks in a timeline file: (wall, cpu, pid, role, event), in file order."""
    out: list[tuple[float, float, int, str, str]] = []
    try:
        text = open(path, encoding="utf-8").read()
    except OSError:
        return out
    for line in text.splitlines():
        parts = line.split(" ", 4)
        if len(parts) == 5:
            try:
                out.append((float(parts[0]), float(parts[1]), int(parts[2]), parts[3], parts[4]))
            except ValueError:
                continue
    return out
