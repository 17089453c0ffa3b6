"""Processes the tests look for: those left behind by a run, and a cgroup that keeps a batch's together."""

from __future__ import annotations

import os
import time
from pathlib import Path


def live_processes(pattern: bytes) -> dict[int, str]:
    """Live (non-zombie) processes whose command line contains ``pattern``: pid -> command line."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if pattern in cmdline and state != "Z":
            found[int(entry.name)] = cmdline.replace(b"\0", b" ").decode(errors="replace")
    return found


class Tracker:
    """A cgroup (v1 freezer hierarchy) for one batch: every process it starts, however detached, stays in it.

    Other test runs may have sandboxes of their own on this machine; the cgroup tells ours apart.
    Without a writable cgroup hierarchy, processes new since the start (bwrap, the worker, the
    students' marked processes) are counted instead.
    """

    BASE = Path("/sys/fs/cgroup/freezer")

    def __init__(self, name: str, mark: str):
        self.mark = mark
        self.group: Path | None = self.BASE / f"{mark}-{name}-{os.getpid()}"
        try:
            self.group.mkdir(exist_ok=True)
        except OSError:
            self.group = None
        self.before = set() if self.group else set(self._sandbox_processes())

    def join(self) -> None:  # in the child, before exec
        if self.group is not None:
            with open(self.group / "cgroup.procs", "w") as fh:
                fh.write(str(os.getpid()))

    def _sandbox_processes(self) -> dict[int, str]:
        out = {}
        for pattern in (b"/opt/gradekit/worker.py", b"bwrap", self.mark.encode() + b"-"):
            out.update(live_processes(pattern))
        return out

    def alive(self) -> dict[int, str]:
        if self.group is None:
            return {p: c for p, c in self._sandbox_processes().items() if p not in self.before}
        out = {}
        for pid in (self.group / "cgroup.procs").read_text().split():
            try:
                cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
                state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
            except OSError:
                continue
            if state != "Z":
                out[int(pid)] = cmdline.replace(b"\0", b" ").decode(errors="replace")
        return out

    def close(self) -> None:
        """Kill whatever is left (after it was recorded) and remove the cgroup."""
        if self.group is None:
            return
        for _ in range(50):
            left = self.alive()
            if not left:
                break
            for pid in left:
                try:
                    os.kill(pid, 9)
                except OSError:
                    pass
            time.sleep(0.1)
        try:
            self.group.rmdir()
        except OSError:
            pass


class Serve:
    """``gradekit serve`` (``gradekit`` is ``program``) in ``root`` as a child process, its log read line by line;
    everything it starts is in a Tracker of its own. ``stop`` waits up to 15 s for them to end and records
    those left (``left``) before it kills them."""

    def __init__(self, program: str, root: Path, log: Path, *assignments: str, env: dict[str, str]):
        import subprocess

        self.log = log
        self.tracker = Tracker(f"serve-{os.getpid()}-{log.stem}", "gkserve")
        self.proc = subprocess.Popen([program, "serve", *assignments], cwd=root, env=env, stdout=open(log, "w"),
                                     stderr=subprocess.STDOUT, preexec_fn=self.tracker.join)
        self.left: dict[int, str] = {}
        self.wait_for("serving ")

    def lines(self) -> list[str]:
        return self.log.read_text().splitlines()

    def wait_for(self, pattern: str, count: int = 1, timeout: float = 90) -> list[str]:
        import re

        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = [line for line in self.lines() if re.search(pattern, line)]
            if len(found) >= count:
                return found
            if self.proc.poll() is not None:
                break
            time.sleep(0.05)
        raise AssertionError(f"no {count} x {pattern!r} in the service's log:\n" + "\n".join(self.lines()[-30:]))

    def stop(self, signum: int = 15) -> int:
        self.proc.send_signal(signum)
        try:
            return self.proc.wait(30)
        finally:
            deadline = time.monotonic() + 15
            while self.tracker.alive() and time.monotonic() < deadline:
                time.sleep(0.1)
            self.left = self.tracker.alive()
            self.tracker.close()
