"""Sandboxes started before the process that grades with them.

A sandbox takes a few tenths of a second to start: Python, numpy and IPython
import inside it. A local pool's workers fork from a fork server once it has
prepared the assignment (:mod:`gradekit.runners.warm`); a worker that started
its sandbox only then would wait for it. So the pool's coordinator starts one
sandbox per worker as the pool starts -- they boot while the fork server
imports and collects -- and each worker takes one over as it starts::

    EarlySandboxes   the coordinator's side: start them, hand them out, end them when the pool is done
    take()           a worker's side: claim one (each is taken once), pin it to the worker's core
    Zygote           a sandbox's process as a worker sees it: not its child, watched through a pidfd

Each sandbox comes with a token, one byte in a socket every worker holds: the
worker that reads it owns that sandbox; a worker that finds no token left (a
pool started again after a worker died) starts a sandbox of its own. The
coordinator stays the sandboxes' parent, so they die with it (bubblewrap's
``--die-with-parent``), and it ends and reaps them once the pool is done.
"""

from __future__ import annotations

import os
import select
import signal
import socket
from pathlib import Path
from typing import cast

from gradekit.sandbox.bwrap import end_sandbox, start_zygote
from gradekit.sandbox.limits import Limits

TOKEN = b"t"


class EarlySandboxes:
    """The sandboxes a pool's coordinator starts for its workers (see the module docstring)."""

    def __init__(self, limits: Limits, sandboxed: bool, count: int):
        self.limits, self.sandboxed = limits, sandboxed
        self.started: list[tuple] = []  # (process, control socket, cgroup, token socket)
        for _ in range(count):
            try:
                proc, control, cgroup = start_zygote(limits, sandboxed)
            except OSError:  # no early sandbox: the workers start their own, and report what fails
                break
            mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
            mine.sendall(TOKEN)
            mine.close()
            self.started.append((proc, control, cgroup, theirs))

    def for_workers(self) -> list[dict]:
        """What a worker needs to take one over (the sockets cross to the workers as descriptors)."""
        return [
            {
                "pid": proc.pid,
                "control": control,
                "cgroup": str(cgroup) if cgroup else None,
                "token": token,
                "limits": self.limits,
                "sandboxed": self.sandboxed,
            }
            for proc, control, cgroup, token in self.started
        ]

    def close(self) -> None:
        """End every sandbox started here (the workers that used them are gone) and reap it."""
        started, self.started = self.started, []
        for proc, control, cgroup, token in started:
            end_sandbox(proc, cgroup)
            control.close()
            token.close()


def take(early: list[dict], limits: Limits, sandboxed: bool, core: int | None):
    """Claim one of the coordinator's sandboxes made with these limits: (Zygote, control socket,
    cgroup) for :meth:`Sandbox.adopt <gradekit.sandbox.client.Sandbox.adopt>`, or None."""
    for item in early:
        if item["limits"] != limits or item["sandboxed"] != sandboxed:
            continue
        try:
            got = item["token"].recv(1, socket.MSG_DONTWAIT)
        except OSError:  # BlockingIOError: another worker's; or gone
            continue
        if got != TOKEN:
            continue
        zygote = Zygote(item["pid"])
        if core is not None and zygote.returncode is None:
            pin_process_tree(zygote.pid, core)
        return zygote, item["control"], Path(item["cgroup"]) if item["cgroup"] else None
    return None


class Zygote:
    """A sandbox's process seen from a process that did not start it: ``Popen``'s ``pid``,
    ``poll``, ``kill`` and ``wait``, through a pidfd (its parent reaps it, not this process)."""

    returncode: int | None
    _fd: int | None  # open while returncode is None

    def __init__(self, pid: int):
        self.pid, self.returncode = pid, None
        try:
            self._fd = os.pidfd_open(pid)
        except OSError:  # gone already: the sandbox's first request starts another
            self._fd, self.returncode = None, -1

    def poll(self) -> int | None:
        if self.returncode is None and select.select([cast(int, self._fd)], [], [], 0)[0]:
            self._exited()
        return self.returncode

    def kill(self) -> None:
        if self.returncode is None:
            try:
                os.kill(self.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

    def wait(self, timeout: float | None = None) -> int | None:
        if self.returncode is None and select.select([cast(int, self._fd)], [], [], timeout)[0]:
            self._exited()
        return self.returncode

    def _exited(self) -> None:
        self.returncode = 0  # the status is its parent's to read
        assert self._fd is not None  # returncode was None, so the pidfd is open
        os.close(self._fd)
        self._fd = None


def pin_process_tree(pid: int, core: int) -> None:
    """Pin ``pid`` and everything below it, every thread, to ``core`` (best effort: a process
    that cannot be pinned runs unpinned). Each process is pinned before its children are listed,
    so a child forked meanwhile inherits the pinning."""
    todo = [pid]
    while todo:
        current = todo.pop()
        try:
            threads = os.listdir(f"/proc/{current}/task")
        except OSError:
            continue
        for tid in threads:
            try:
                os.sched_setaffinity(int(tid), {core})
                with open(f"/proc/{current}/task/{tid}/children") as fh:
                    todo.extend(int(child) for child in fh.read().split())
            except (OSError, ValueError):
                continue
