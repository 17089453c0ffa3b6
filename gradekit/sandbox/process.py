"""The sandbox's processes: a warm zygote in bubblewrap, and the child it forks per submission.

The zygote (:mod:`gradekit.sandbox.worker`, started by :func:`~gradekit.sandbox.bwrap.start_zygote`)
has numpy and IPython imported; it answers on a control socket. For each submission
:meth:`SandboxProcess.spawn` sends it a fresh socket and progress file, and it forks a child that
serves that socket alone. Ending the child (:meth:`SandboxProcess.end_child`) asks the zygote to
kill it, or only closes its socket, then waits for the zygote's ``idle``: it has killed whatever
the child left behind and wiped /tmp. A zygote that stops answering is ended whole
(:meth:`SandboxProcess.shutdown`) and started anew by the next spawn.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time

from gradekit.errors import CodeFailure, SandboxBroken, SandboxCrashed
from gradekit.sandbox import protocol as P
from gradekit.sandbox.bwrap import end_sandbox, start_zygote
from gradekit.sandbox.framing import progress_file
from gradekit.sandbox.limits import Limits


class SandboxProcess:
    """One sandbox's zygote, and the child that holds the current submission (see the module's docstring)."""

    def __init__(self, limits: Limits, sandboxed: bool = True):
        self.limits, self.sandboxed = limits, sandboxed
        self.cgroup = None
        self.booting = False
        self.proc: subprocess.Popen | None = None  # the zygote (bwrap and all below it)
        self.control: socket.socket | None = None
        self.control_channel: P.Channel | None = None
        self.child: socket.socket | None = None  # the current submission's socket
        self.channel: P.Channel | None = None  # ... and its frames
        self.progress: int | None = None  # ... and its progress file (a memfd: see framing.progress_file)
        self.ran: list[dict] | None = None  # ... and its report on the submission's cells, once it has run them
        self.generation = 0  # children spawned: an object of the student's lives in the one it was made in
        self.startup_seconds = 0.0  # waiting for a sandbox to finish starting (numpy, IPython imported in it)

    # -- the zygote ---------------------------------------------------------------
    def prestart(self) -> None:
        """Launch the zygote without waiting for it; the first request waits."""
        if self.proc is None:
            self.start(wait=False)

    def start(self, wait: bool = True) -> None:
        self.adopt(*start_zygote(self.limits, self.sandboxed))
        if wait:
            self.wait_ready()

    def adopt(self, proc, control: socket.socket, cgroup) -> None:
        """Use a zygote started elsewhere (:func:`~gradekit.sandbox.bwrap.start_zygote`; a pool's
        coordinator starts them early, see :mod:`gradekit.sandbox.early`), still booting."""
        self.proc, self.cgroup = proc, cgroup
        self.control = control
        self.control_channel = P.Channel(control)
        self.booting = True

    def wait_ready(self) -> None:
        from gradekit.timeline import mark

        self.booting = False
        mark("grading", "sandbox wait")
        waited = time.monotonic()
        try:
            reply = self.read_control(self.limits.cell_timeout)
        except SandboxCrashed:
            reply = {}
        self.startup_seconds += time.monotonic() - waited
        mark("grading", "sandbox ready")
        if reply.get("op") != "ready":
            self.shutdown()
            # a fresh zygote runs no student code: if it does not start, the machine is at fault
            raise SandboxBroken(
                "the sandbox did not start (bubblewrap refused, or the worker died on "
                "start-up); check that `bwrap --unshare-all --ro-bind / / true` works here"
            )

    def read_control(self, timeout: float) -> dict:
        """The zygote's next message; a zygote that does not send one in ``timeout`` is ended
        (SandboxCrashed)."""
        channel = self.control_channel
        assert channel is not None  # set with self.control, which the callers have
        try:
            channel.deadline = time.monotonic() + timeout
            header, _ = P.read_frame(channel)
            return header
        except (TimeoutError, EOFError, OSError, P.ProtocolError):
            self.shutdown()
            raise SandboxCrashed(CodeFailure.SANDBOX, "the sandbox stopped answering") from None

    def shutdown(self) -> None:
        """End the whole sandbox: the zygote, its child and everything they started."""
        self.end_child(kill=False)
        proc, self.proc = self.proc, None
        if self.control is not None:
            self.control.close()
            self.control = self.control_channel = None
        if proc is not None:
            end_sandbox(proc, self.cgroup)
        self.cgroup = None

    # -- the child ------------------------------------------------------------------
    def spawn(self) -> None:
        """A fresh child for the current submission; a zygote that fails is replaced once."""
        try:
            self._spawn_once()
        except SandboxCrashed:
            self.shutdown()
            self._spawn_once()

    def _spawn_once(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            self.shutdown()
            self.start()
        elif self.booting:
            self.wait_ready()
        assert self.control is not None  # a running zygote's (adopt sets them together)
        mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        progress = progress_file()
        try:
            socket.send_fds(self.control, [b"spawn"], [theirs.fileno(), progress])
        except OSError:
            mine.close()
            os.close(progress)
            self.shutdown()
            raise SandboxCrashed(CodeFailure.SANDBOX, "the sandbox stopped answering") from None
        finally:
            theirs.close()
        self.child, self.channel, self.progress = mine, P.Channel(mine), progress
        self.generation += 1

    def end_child(self, kill: bool) -> int | None:
        """End the current child (``kill``: by the zygote's SIGKILL, not only by closing its
        socket); wait until the zygote has cleaned up after it; return its exit status."""
        child, self.child, self.channel = self.child, None, None
        self.ran = None
        if self.progress is not None:
            os.close(self.progress)
            self.progress = None
        if child is None:
            return None
        if kill and self.control is not None:
            try:
                self.control.sendall(b"kill")
            except OSError:
                pass
        child.close()
        if self.control is None:
            return None
        reply = self.read_control(5.0)
        if reply.get("op") != "idle":
            self.shutdown()
            return None
        status = reply.get("status")
        return status if isinstance(status, int) else None


def exit_reason(code: int | None) -> str:
    """What a child's exit status says, in the words the student reads."""
    if code is None:
        return "the student's code closed the grading channel"
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        hints = {"SIGKILL": " (memory or CPU limit?)", "SIGXCPU": " (CPU time limit)", "SIGSEGV": ""}
        return f"the student's process was killed by {name}{hints.get(name, '')}"
    return f"the student's process exited with status {code} (sys.exit or os._exit?)"
