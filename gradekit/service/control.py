"""The running service's socket: ``gradekit autograde`` hands its work to it instead of starting a pool.

``.gradekit/serve.sock``, a Unix socket in the instructor's own 0700 folder: a
request is one JSON line, ``{"op": "autograde", "assignment": ..., "students":
[...], "force": false}``; the service answers with JSON lines as it grades on its
warm runner -- ``{"start": n}``, a ``{"result": ...}`` for each student, then
``{"done": true}`` or ``{"error": "...", "exit": 3}`` -- and records each result
itself (the service alone writes the gradebook while it runs).
"""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from pathlib import Path

SOCKET = Path(".gradekit") / "serve.sock"


def path_of(course) -> Path:
    return course.root / SOCKET


def connect(course) -> socket.socket | None:
    """A connection to the course's running service, or None when none answers."""
    path = path_of(course)
    if not path.exists():
        return None
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(str(path))
    except OSError:
        sock.close()
        return None
    return sock


def request(sock: socket.socket, message: dict) -> Iterator[dict]:
    """Send ``message``; yield the service's answers until it is done."""
    sock.sendall((json.dumps(message) + "\n").encode())
    with sock.makefile("r", encoding="utf-8") as lines:
        for line in lines:
            answer = json.loads(line)
            yield answer
            if "done" in answer or "error" in answer:
                return


def send(conn: socket.socket, message: dict) -> bool:
    """One answer to a client; False when it has gone (the work goes on)."""
    try:
        conn.sendall((json.dumps(message) + "\n").encode())
        return True
    except OSError:
        return False


def read_request(conn: socket.socket) -> dict | None:
    data = b""
    while not data.endswith(b"\n") and len(data) < 1 << 20:
        chunk = conn.recv(65536)
        if not chunk:
            return None
        data += chunk
    try:
        message = json.loads(data)
    except ValueError:
        return None
    return message if isinstance(message, dict) else None
