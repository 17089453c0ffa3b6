"""A real JupyterHub for the tests: ``jupyterhub -f CONFIG`` as a child process, on loopback.

JupyterHub from PyPI with configurable-http-proxy from npm (``make deploy`` puts
both in the student deployment, $GRADEKIT_DEPLOY); the hub's log (and its
services', which the hub passes on) goes to a file the test reads. Each hub of a
run is in a cgroup of its own (tests/processes.py), so that what it leaves
behind -- a proxy, a service whose hub was killed -- can be found and is killed
at the end.
"""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import time
from pathlib import Path

import unix_users
from ports import free_ports  # noqa: F401 - the hub tests' ports (tests/ports.py)
from processes import Tracker

CHP = unix_users.DEPLOY / "node_modules" / ".bin" / "configurable-http-proxy"
HUB_BIN = unix_users.STUDENT_BIN / "jupyterhub"


def unavailable(hub_bin: Path = HUB_BIN) -> str | None:
    """Why no hub can start here, or None."""
    for needed, why in ((hub_bin, "jupyterhub (make deploy)"), (CHP, "configurable-http-proxy (make deploy)")):
        if not needed.exists():
            return f"needs {why} at {needed}"
    return None


class Hub:
    """``jupyterhub -f config`` in ``state`` (its database, cookie secret, log); ``start`` and ``stop`` it,
    ``kill`` it as a crash would, and read its log."""

    def __init__(self, state: Path, config: str | Path, hub_bin: Path = HUB_BIN, env: dict | None = None):
        """``config``: the config's text (written in ``state``), or the path of one to run as it is."""
        self.state = state
        self.state.mkdir(mode=0o700, exist_ok=True)
        if isinstance(config, Path):
            self.config = config
        else:
            self.config = self.state / "jupyterhub_config.py"
            self.config.write_text(config)
        self.hub_bin = hub_bin
        self.env = {"PATH": f"{hub_bin.parent}:/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": str(Path.home()),
                    **(env or {})}
        self.log = self.state / "hub.log"
        self.log.write_text("")
        self.tracker = Tracker(f"hub-{os.getpid()}-{id(self)}", "gkhub")
        self.proc: subprocess.Popen | None = None
        self.starts = 0

    def start(self, ready: str = r"JupyterHub is now running", timeout: float = 90) -> None:
        self.starts += 1
        with open(self.log, "a") as fh:
            fh.write(f"\n==== start {self.starts} ====\n")
        self.mark = len(self.text())
        self.proc = subprocess.Popen([str(self.hub_bin), "-f", str(self.config)], cwd=self.config.parent,
                                     env=self.env,
                                     stdout=open(self.log, "a"), stderr=subprocess.STDOUT,
                                     preexec_fn=self.tracker.join)
        self.wait_for(ready, timeout=timeout)

    def text(self, since_start: bool = False) -> str:
        text = self.log.read_text(errors="replace")
        return text[self.mark:] if since_start else text

    def wait_for(self, pattern: str, count: int = 1, timeout: float = 60, since_start: bool = True) -> list[str]:
        """The log's lines matching ``pattern`` (since this start), once there are ``count``; the hub's
        exit or the timeout fails the test with the log's tail."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = re.findall(f".*{pattern}.*", self.text(since_start))
            if len(found) >= count:
                return found
            if self.proc is not None and self.proc.poll() is not None:
                break
            time.sleep(0.1)
        raise AssertionError(f"no {count} x {pattern!r} in the hub's log:\n" + self.text()[-6000:])

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def kill(self) -> None:
        """SIGKILL, as the OOM killer or a power cut would: the hub cleans nothing up."""
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> float:
        """SIGTERM and wait; the seconds the hub took to stop (its services with it)."""
        if self.proc is None or self.proc.poll() is not None:
            return 0.0
        started = time.monotonic()
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(10)
        return time.monotonic() - started

    def left_behind(self) -> dict[int, str]:
        """The processes of this hub's cgroup still running (pid -> command line)."""
        return self.tracker.alive()

    def close(self) -> None:
        self.stop()
        self.tracker.close()


def slow_handin(port: int, course: str, assignment: str, token: str, length: int) -> socket.socket:
    """A hand-in whose body arrives slowly: its headers and two bytes of ``length``, straight to the hub
    exchange on ``port`` (the rest never sent)."""
    import secrets

    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    sock.sendall((f"POST /services/gradekit-exchange/api/{course}/handins/{assignment} HTTP/1.1\r\n"
                  f"Host: 127.0.0.1\r\nAuthorization: token {token}\r\nX-Gradekit-Key: {secrets.token_hex(16)}\r\n"
                  f"Content-Length: {length}\r\n\r\nPK").encode())
    return sock


def answer(sock: socket.socket, wait: float) -> bytes:
    """What came back on ``sock`` within ``wait`` s (b"": nothing yet)."""
    sock.settimeout(wait)
    try:
        return sock.recv(65536)
    except TimeoutError:
        return b""
