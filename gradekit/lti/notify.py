"""The writers' wake-up of the LTI sender: one datagram, never a wait (standard library only).

Whatever changes a counting score -- a grading recorded, a manual grade, a late penalty -- calls
:func:`poke` after its write; a sender listening on the course's socket reconciles at once instead of
at its next periodic scan. No sender (no socket), a full buffer, any error: nothing happens, and the
periodic scan finds the change anyway.
"""

from __future__ import annotations

import socket
from pathlib import Path

SOCKET = Path(".gradekit") / "lti" / "wake.sock"


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
    """The sender's end: a datagram socket on the course's path (0600)."""
    import os

    path = path_of(course)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.unlink(missing_ok=True)
    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    s.bind(str(path))
    os.chmod(path, 0o600)
    return s
