"""The processes a test started, and only those: the PIDs it keeps, their children, and a cgroup of its own.

No test looks for a process by its name or scans the machine for a command line: another copy of the same
test (another engineer's run, another worker of this one) has processes of the same name. A test keeps
the PID of what it starts (``Popen.pid``); what that process started in turn is found among its
descendants (:func:`descendants`), or in a :class:`Tracker`, a cgroup the test makes, that keeps even the
detached ones (a session of their own, a double fork) that leave the tree of processes.
"""

from __future__ import annotations

import os
import time
from contextlib import contextmanager
from pathlib import Path


def _state(pid: int) -> str | None:
    """The process's state letter (``Z``: a zombie), or None when there is no such process."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return None


def alive(pid: int) -> bool:
    """Whether process ``pid`` runs (a zombie, dead and not yet reaped, does not)."""
    return _state(pid) not in (None, "Z")


def command_line(pid: int) -> str:
    """The command line of process ``pid`` ("" once it has ended)."""
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return ""


def children(pid: int) -> list[int]:
    """The live children of process ``pid`` (of each of its threads)."""
    found: list[int] = []
    try:
        tasks = list(Path(f"/proc/{pid}/task").iterdir())
    except OSError:
        return found
    for task in tasks:
        try:
            found += [int(p) for p in (task / "children").read_text().split()]
        except OSError:
            continue
    return [p for p in found if alive(p)]


def descendants(pid: int) -> dict[int, str]:
    """Every live process below ``pid`` in the tree of processes: pid -> command line."""
    out: dict[int, str] = {}
    todo = children(pid)
    while todo:
        child = todo.pop()
        if child not in out:
            out[child] = command_line(child)
            todo += children(child)
    return out


def wait_gone(pid: int, within: float) -> float:
    """Wait until process ``pid`` has ended (or is a zombie); the seconds it took. Fails after ``within`` s."""
    started = time.monotonic()
    while alive(pid):
        if time.monotonic() - started > within:
            raise AssertionError(f"process {pid} ({command_line(pid)}) still runs after {within} s")
        time.sleep(0.05)
    return time.monotonic() - started


class Tracker:
    """A cgroup (v1 freezer hierarchy) for one batch: every process it starts, however detached, stays in it.

    A child joins it as it starts (``preexec_fn=tracker.join``), or the test's own process does for a
    while (``with tracker.entered():``), so that all it starts meanwhile is in it. Without a writable
    cgroup hierarchy, the processes below this one that are new since the tracker was made are counted
    instead (a detached one that left the tree is then missed).
    """

    BASE = Path("/sys/fs/cgroup/freezer")

    def __init__(self, name: str, mark: str):
        self.mark = mark
        self.group: Path | None = self.BASE / f"{mark}-{name}-{os.getpid()}-{time.monotonic_ns()}"
        try:
            self.group.mkdir()
        except OSError:
            self.group = None
        self.before = set() if self.group else set(descendants(os.getpid()))

    @classmethod
    def of(cls, group: str) -> Tracker:
        """The tracker of the cgroup ``group`` (``str(tracker.group)``; "" for none), in another process of its
        batch; without a cgroup, the batch is that process's descendants."""
        tracker = cls.__new__(cls)
        tracker.mark, tracker.group, tracker.before = "", Path(group) if group else None, set()
        return tracker

    def join(self) -> None:  # in the child, before exec
        if self.group is not None:
            with open(self.group / "cgroup.procs", "w") as fh:
                fh.write(str(os.getpid()))

    @contextmanager
    def entered(self):
        """This process in the cgroup for the block (what it starts stays there), then back where it was."""
        if self.group is None:
            yield self
            return
        home = _freezer_group()
        self.join()
        try:
            yield self
        finally:
            with open(self.BASE / home.lstrip("/") / "cgroup.procs", "w") as fh:
                fh.write(str(os.getpid()))

    def alive(self, marker: str | None = None) -> dict[int, str]:
        """The live processes of the batch (those whose command line holds ``marker``, if given)."""
        if self.group is None:
            found = {p: c for p, c in descendants(os.getpid()).items() if p not in self.before}
        else:
            found = {}
            try:
                pids = (self.group / "cgroup.procs").read_text().split()
            except OSError:
                pids = []
            for pid in map(int, pids):
                if pid != os.getpid() and alive(pid):
                    found[pid] = command_line(pid)
        return {p: c for p, c in found.items() if marker is None or marker in c}

    def close(self) -> None:
        """Kill whatever is left (after it was recorded) and remove the cgroup."""
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
        if self.group is not None:
            try:
                self.group.rmdir()
            except OSError:
                pass


def _freezer_group() -> str:
    """This process's group in the freezer hierarchy (``/`` at its root)."""
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, controllers, path = line.split(":", 2)
        if "freezer" in controllers.split(","):
            return path
    return "/"


LOOKS = 0.1  # seconds between the service's looks at a settings file and a due date (gradekit serve's 2 and 5)


class Serve:
    """``gradekit serve`` (``gradekit`` is ``program``) in ``root`` as a child process, its log read line by line;
    everything it starts is in a Tracker of its own. ``stop`` waits up to 15 s for them to end and records
    those left (``left``) before it kills them. It looks at a changed settings file or due date every
    :data:`LOOKS` seconds ($GRADEKIT_SERVE_LOOKS), so that a test waits for no product's interval."""

    def __init__(self, program: str, root: Path, log: Path, *assignments: str, env: dict[str, str]):
        import subprocess

        env = {**env, "GRADEKIT_SERVE_LOOKS": str(LOOKS)}
        self.log = log
        self.tracker = Tracker(f"serve-{log.stem}", "gkserve")
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
