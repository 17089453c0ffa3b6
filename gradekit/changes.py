"""A course's change notice: whoever changes a counting score says so, whoever waits for one hears it.

The writers of the gradebook -- a grading recorded (``serve``, ``autograde``, a regrade), a manual
grade, a late penalty -- call :func:`poke` after their write: one datagram on the course's socket,
never a wait. A listener (the LTI sender, gradekit.lti.loop) acts at once instead of at its next
periodic scan. No listener (no socket), a full buffer, any error: nothing happens, and the
listener's scan finds the change anyway. Standard library only: the hub's login pokes too.
"""

from __future__ import annotations

import socket
from pathlib import Path

SOCKET = Path(".gradekit") / "changes.sock"


def path_of(course) -> Path:
    return course.root / SOCKET


def poke(course) -> None:
    poke_at(path_of(course))


def poke_at(path: Path) -> None:
    """:func:`poke`, by the socket's path (the hub's login knows the course's folder, not a Course)."""
    if not path.exists():
        return
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as s:
            s.setblocking(False)
            s.sendto(b"!", str(path))
    except OSError:
        pass


def listen(course) -> socket.socket:
    """The listener's end: a datagram socket on the course's path (0600)."""
    import os

    path = path_of(course)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.unlink(missing_ok=True)
    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    s.bind(str(path))
    os.chmod(path, 0o600)
    return s
