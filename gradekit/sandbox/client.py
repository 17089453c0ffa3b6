"""The trusted side of the sandbox: start a worker, run cells, call functions.

A :class:`Sandbox` owns one warm zygote in bubblewrap and forks a child from it
per submission. Every request has a wall-clock deadline; a child that misses
it, dies, or breaks the protocol is killed, and the zygote kills whatever it
left behind. The next request forks a fresh child and re-runs the submission's
cells, so a hang or crash inside one function costs only the call that caused it.

Everything the worker sends is decoded by :mod:`protocol` (arrays with
``allow_pickle=False``, numeric dtypes only) and is otherwise untrusted.

Functions cross as arguments both ways, and each runs where it belongs. The
student's function (:class:`StudentName`) crosses as its name and runs in the
sandbox, called there by the student's other code. A function of the grader's
(:class:`Callback`: a reference function, a deliberately wrong one) stays here:
the student's code gets a stub whose calls come back as callbacks, and this side
runs the grader's function on the plain data they carry (never an object or a
function of the student's: those are refused as a TypeError in the student's
code), within limits of their own: how many calls one call of the student's
code makes back (``callback_calls``), how large their arguments are
(``callback_size``) and how long the grader's functions spend on them in all
(``callback_seconds``: they run in a thread of their own, and one still running
then is left behind, told to stop), and the memory one may take beyond what
this process holds (``callback_memory``: the process's address space is capped
while it runs, so a table of a size the student chose fails to allocate instead
of filling the machine). Past a limit, the student's call is stopped
(:class:`~gradekit.errors.CallbackOverrun`, the student's failure). Nothing the
worker sends can name anything else for this process to run. The grader's own mistakes -- an argument that
cannot cross, a function of its own that calls the student's code, a result
that cannot go back -- raise :class:`~gradekit.errors.BoundaryError`, never a
failure of the student's.
"""

from __future__ import annotations

import contextvars
import ctypes
import fcntl
import math
import os
import queue
import resource
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, cast

import numpy as np

from gradekit.errors import (
    BoundaryError,
    CallbackFailed,
    CallbackOverrun,
    CodeFailure,
    SandboxBroken,
    SandboxCrashed,
    SandboxTimeout,
    StudentCodeError,
)
from gradekit.i18n.text import _
from gradekit.sandbox import protocol as P
from gradekit.sandbox.bwrap import end_sandbox, start_zygote
from gradekit.sandbox.limits import Limits

__all__ = [
    "Sandbox",
    "RemoteObject",
    "StudentName",
    "Callback",
    "NotRun",
    "StaleMethod",
    "StudentCodeError",
    "SandboxTimeout",
    "SandboxCrashed",
]

MAX_BAD_CELLS = 3  # cells that hang or crash and are skipped before a notebook is given up
# values that hold nothing to unwrap (no object of the student's): most arguments are these
LEAVES = frozenset({np.ndarray, float, int, bool, str, type(None), np.float64, np.int64})


class NotRun(Exception):
    """A call of a :meth:`Sandbox.map` that was not made: ``"budget"`` (it would have started
    after ``stop_at``), ``"timeout"`` (an earlier call of the same batch timed out: ``cause``)
    or ``"later"`` (an earlier call crashed: make it again when its result is wanted)."""

    def __init__(self, why: str, cause: SandboxTimeout | None = None):
        super().__init__(why)
        self.why, self.cause = why, cause


class RemoteObject:
    """An object that lives in the sandbox (e.g. a student's KVCache instance)."""

    def __init__(self, sandbox: Sandbox, handle: P.Handle, generation: int):
        object.__setattr__(self, "_sandbox", sandbox)
        object.__setattr__(self, "_handle", handle)
        object.__setattr__(self, "_generation", generation)
        object.__setattr__(self, "_methods", set())  # names the worker said are plain methods (see Sandbox.getattr)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        value = self._sandbox.getattr(self, name)
        if isinstance(value, RemoteObject):  # a bound method: make it callable
            return RemoteMethod(self, name)
        return value

    def __len__(self) -> int:
        value = self._sandbox.length(self)
        if type(value) is not int or value < 0:
            raise StudentCodeError(
                CodeFailure.RAISED, "__len__ did not return a non-negative int", exc_type="TypeError"
            )
        return value

    def __repr__(self) -> str:
        return f"<student {self._handle.type} object>"


class StudentName:
    """The student's own function ``name``, as an argument: it crosses as its name and runs in
    the sandbox when the student's code calls it."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name


class Callback:
    """A function of the grader's, as an argument of the student's code: it stays in the grader's
    process; the student's code gets a stub that calls back (see the module's docstring)."""

    __slots__ = ("function", "name")

    def __init__(self, function: Callable[..., Any], name: str | None = None):
        self.function = function
        self.name = name or str(getattr(function, "__name__", "") or type(function).__name__)[:100]


class _Fault:
    """A function of the grader's that raised while the student's code called it: in the ``call``-th
    call of a map (as the worker says: None for a single call), ``name`` raised ``error``;
    ``grader``: the grader's own mistake (a BoundaryError), not the student's arguments."""

    __slots__ = ("call", "name", "error", "grader")

    def __init__(self, call: int | None, name: str, error: Exception, grader: bool):
        self.call, self.name, self.error, self.grader = call, name, error, grader

    @property
    def inner(self) -> str:
        text = str(self.error)
        return f"{type(self.error).__name__}: {text}"[:500] if text else type(self.error).__name__


class _Overrun(Exception):
    """The student's code went past a limit on the grader's functions (in the ``call``-th call of a
    map, None for a single call): its call is stopped, its child killed."""

    def __init__(self, message: str, call: int | None):
        super().__init__(message)
        self.message, self.call = message, call


class _CutShort(BaseException):
    """Raised in the callback thread, in a grader's function still running past its time: a
    BaseException, so that the function's own ``except Exception`` does not catch it."""


class _Job:
    __slots__ = ("function", "args", "kwargs", "context", "done", "outcome")

    def __init__(self, function: Callable, args: list, kwargs: dict):
        self.function, self.args, self.kwargs = function, args, kwargs
        self.context = contextvars.copy_context()  # the grader's (a Text's language, the timeline)
        self.done = threading.Event()
        self.outcome: tuple[bool, Any] = (False, None)

    def run(self) -> None:
        try:
            self.outcome = (True, self.context.run(self.function, *self.args, **self.kwargs))
        except Exception as exc:  # noqa: BLE001 - what the grader's function raised: the caller judges it
            self.outcome = (False, exc)
        finally:
            self.done.set()


class _CallbackThread:
    """The thread the grader's functions run in when the student's code calls them: the grading
    waits for each at most its time left, and one that runs past it is left behind -- told to stop
    at its next step of Python (a numpy call it is in finishes first) -- instead of holding the
    grading up."""

    def __init__(self) -> None:
        self.pid = os.getpid()
        self._jobs: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._loop, name="gradekit-callback", daemon=True)
        self._thread.start()

    def _loop(self) -> None:
        try:
            while (job := self._jobs.get()) is not None:
                job.run()
        except _CutShort:
            pass

    def run(self, function: Callable, args: list, kwargs: dict, timeout: float) -> tuple[bool, Any] | None:
        """``(True, value)`` or ``(False, what it raised)``; None when it did not finish in ``timeout``
        (then :meth:`abandon` this thread)."""
        job = _Job(function, args, kwargs)
        self._jobs.put(job)
        return job.outcome if job.done.wait(max(timeout, 0.0)) else None

    def abandon(self) -> None:
        """Tell the function still running to stop, and this thread to end after it."""
        ident = self._thread.ident
        if ident is not None:  # told while it is alive: the None below is what lets it end
            ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(ident), ctypes.py_object(_CutShort))
        self._jobs.put(None)


_GUARD_LOCK = threading.Lock()
_GUARD: list[Any] = [0, None]  # the grader's functions running under the memory cap, and the limit it replaced


def _address_space() -> int:
    """The bytes of address space this process holds now."""
    with open("/proc/self/statm", "rb") as fh:
        return int(fh.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")


def _cap_memory(cap: int) -> None:
    """Cap this process's address space (RLIMIT_AS, the soft limit) at ``cap`` bytes (what it
    holds, plus ``callback_memory``) while a grader's function runs for the student's code: an
    allocation past it is a MemoryError in that function. Concurrent callers share the first cap."""
    with _GUARD_LOCK:
        if _GUARD[0] == 0:
            soft, hard = resource.getrlimit(resource.RLIMIT_AS)
            if soft != resource.RLIM_INFINITY:
                cap = min(cap, soft)
            if hard != resource.RLIM_INFINITY:
                cap = min(cap, hard)
            resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
            _GUARD[1] = (soft, hard)
        _GUARD[0] += 1


def _uncap_memory() -> None:
    with _GUARD_LOCK:
        _GUARD[0] -= 1
        if _GUARD[0] == 0:
            resource.setrlimit(resource.RLIMIT_AS, _GUARD[1])


def _weight(value: Any) -> int:
    """The size of a callback's arguments as ``callback_size`` counts them: an array at least 8
    bytes an element, its empty dimensions counted as 1 (a (10⁶, 0) array is no small argument to
    a function that makes a table of its rows); a number 8, a string its length."""
    kind = type(value)
    if kind is np.ndarray:
        return max(value.itemsize, 8) * math.prod(max(d, 1) for d in value.shape)
    if kind is list or kind is tuple:
        return 8 * len(value) + sum(_weight(v) for v in value)
    if kind is dict:
        return sum(8 + len(str(k)) + _weight(v) for k, v in value.items())
    if kind is str:
        return len(value)
    return 8


class RemoteMethod:
    def __init__(self, obj: RemoteObject, name: str):
        self.obj, self.name = obj, name

    def __call__(self, *args, **kwargs):
        return self.obj._sandbox.call(self.obj, args, kwargs, attr=self.name)


class StaleMethod(Exception):
    """A call of a method looked up earlier (``method=True``) that is no longer a plain method:
    nothing was called; look it up again."""


class Sandbox:
    """A warm zygote in bubblewrap, and the child that holds the current submission.

    ``run_cells`` starts a fresh child (a fork of the zygote: numpy and IPython
    are already imported) on a socket of its own. A child that hangs, dies or
    breaks the protocol is killed; the next request forks a new one and runs
    the cells again. If the zygote itself stops answering, the whole sandbox
    is killed and started anew.
    """

    def __init__(self, limits: Limits | None = None, *, sandboxed: bool = True):
        self.limits = limits or Limits()
        self.sandboxed = sandboxed
        self.cgroup = None
        self.booting = False
        self.proc: subprocess.Popen | None = None  # the zygote (bwrap and all below it)
        self.control: socket.socket | None = None
        self.control_channel: P.Channel | None = None
        self.child: socket.socket | None = None  # the current submission's socket
        self.channel: P.Channel | None = None  # ... and its frames
        self.progress: int | None = None  # ... and its progress file (a memfd: see protocol.write_progress)
        self.batches = 0  # map requests sent, to tell one batch's progress notes from another's
        self.cells: list[dict] = []
        self.bad_cells: dict[int, str] = {}
        self.cell_results: list[dict] | None = None
        self.generation = 0
        self.restarts = 0
        self.student_seconds = 0.0  # the time spent in the student's code: as the worker reports it, and a
        # request it never answered (a timeout, a death) up to then (_ran_until_now)
        self.startup_seconds = 0.0  # waiting for a sandbox to finish starting (numpy, IPython imported in it)
        self.timeouts = 0  # requests the student's code did not answer in time
        self.kills = 0  # children that died or broke the protocol and were killed
        self.faults: list[_Fault] = []  # the grader's functions that raised during the current request
        self.overruns = 0  # calls stopped for going past a callback limit
        self._answering = False  # a function of the grader's is running for the student's code
        self._used: dict[int | None, list] = {}  # per call of the current request: [callbacks, their seconds]
        self._callback_thread: _CallbackThread | None = None
        self._cap: int | None = None  # the address space the grader's functions run under, this request

    # -- the zygote ---------------------------------------------------------------
    def prestart(self) -> None:
        """Launch the zygote without waiting for it; the first request waits."""
        if self.proc is None:
            self._start_zygote(wait=False)

    def _start_zygote(self, wait: bool = True) -> None:
        self.adopt(*start_zygote(self.limits, self.sandboxed))
        if wait:
            self._wait_ready()

    def adopt(self, proc, control: socket.socket, cgroup) -> None:
        """Use a zygote started elsewhere (:func:`~gradekit.sandbox.bwrap.start_zygote`; a pool's
        coordinator starts them early, see :mod:`gradekit.sandbox.early`), still booting."""
        self.proc, self.cgroup = proc, cgroup
        self.control = control
        self.control_channel = P.Channel(control)
        self.booting = True

    def _wait_ready(self) -> None:
        from gradekit.timeline import mark

        self.booting = False
        mark("grading", "sandbox wait")
        waited = time.monotonic()
        try:
            reply = self._read_control(self.limits.cell_timeout)
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

    def _read_control(self, timeout: float) -> dict:
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
        self._end_child(kill=False)
        proc, self.proc = self.proc, None
        if self.control is not None:
            self.control.close()
            self.control = self.control_channel = None
        if proc is not None:
            end_sandbox(proc, self.cgroup)
        self.cgroup = None

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(self, *exc) -> None:
        self.shutdown()

    # -- the child ------------------------------------------------------------------
    def _spawn(self) -> None:
        """A fresh child for the current submission; a zygote that fails is replaced once."""
        try:
            self._spawn_once()
        except SandboxCrashed:
            self.shutdown()
            self._spawn_once()

    def _spawn_once(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            self.shutdown()
            self._start_zygote()
        elif self.booting:
            self._wait_ready()
        assert self.control is not None  # a running zygote's (adopt sets them together)
        mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        progress = _progress_file()
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

    def end_child(self) -> None:
        """End the current submission's child (if any); the zygote stays warm for the next."""
        self._end_child(kill=True)

    def _end_child(self, kill: bool) -> int | None:
        """End the current child (``kill``: by the zygote's SIGKILL, not only by closing its
        socket); wait until the zygote has cleaned up after it; return its exit status."""
        child, self.child, self.channel = self.child, None, None
        self.cell_results = None
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
        reply = self._read_control(5.0)
        if reply.get("op") != "idle":
            self.shutdown()
            return None
        status = reply.get("status")
        return status if isinstance(status, int) else None

    # -- requests -------------------------------------------------------------
    def _exchange(
        self,
        header: dict,
        values: dict,
        timeout: float,
        callbacks: Mapping[str, Callable] | None = None,
        progress: Callable[[int], None] | None = None,
    ) -> tuple[dict, Any]:
        self._not_answering()
        callbacks = dict(callbacks or {})
        frame = self._frame(header, values, callbacks)
        if self.child is None:
            self._ensure_cells()
        channel = self.channel
        assert channel is not None  # _ensure_cells spawned a child
        sent = time.monotonic()
        channel.deadline = sent + timeout
        try:
            channel.write(frame)
            while True:
                reply, blobs = P.read_frame(channel)
                if reply.get("op") == "callback":
                    self._answer_callback(channel, reply, blobs, callbacks or {})
                    continue
                if reply.get("op") == "progress":
                    if progress is not None and isinstance(reply.get("index"), int):
                        progress(reply["index"])
                    continue
                value = P.decode(reply.get("value"), blobs, self._wrap) if "value" in reply else None
                seconds = reply.get("seconds")
                if isinstance(seconds, (int, float)) and 0 <= seconds <= timeout:
                    self.student_seconds += seconds
                return reply, value
        except TimeoutError:
            self.timeouts += 1
            self._ran_until_now(sent, timeout)
            self._end_child(kill=True)
            raise SandboxTimeout(_("no answer within {seconds:g} s (endless loop?)").format(seconds=timeout)) from None
        except (EOFError, OSError):
            self.kills += 1
            self._ran_until_now(sent, timeout)
            code = self._end_child(kill=True)
            raise SandboxCrashed(CodeFailure.CRASHED, _exit_reason(code)) from None
        except P.ProtocolError as exc:
            self.kills += 1
            self._end_child(kill=True)
            raise SandboxCrashed(CodeFailure.PROTOCOL, str(exc)) from None
        except _Overrun as over:
            self.overruns += 1
            self._end_child(kill=True)
            raise CallbackOverrun(over.message) from None

    def _not_answering(self) -> None:
        if self._answering:
            raise BoundaryError(
                "a function the grader gave the student's code calls the student's code itself (while the "
                "student's code is running); pass the student's function instead (student.f), or call it "
                "before and pass what it returned"
            )

    @staticmethod
    def _frame(header: dict, values: dict, callbacks: dict[str, Callable]) -> bytes:
        """A request's frame, its values encoded -- the grader's functions among them entered in
        ``callbacks`` -- or the BoundaryError of a value that cannot cross."""
        blobs: list[bytes] = []
        header = dict(header)
        special = _special(callbacks)
        try:
            for key, value in values.items():
                header[key] = P.encode(value, blobs, special=special)
        except P.ProtocolError as exc:
            raise BoundaryError(_cannot_cross(exc)) from None
        header["blobs"] = [len(b) for b in blobs]
        data = P._json(header).encode()
        return b"".join((P._SIZE.pack(len(data)), data, *blobs))

    def _answer_callback(self, channel, request: dict, blobs: list[bytes], callbacks: Mapping[str, Callable]) -> None:
        """Run the grader's function the student's code called, on the plain data it was given, and
        answer with its result, or with what it raised (noted in :attr:`faults`). Only a function
        the grader put in ``callbacks`` runs; the student's objects are refused as arguments."""
        name = request.get("name")
        call = request.get("call") if type(request.get("call")) is int else None
        function = callbacks.get(name) if type(name) is str else None
        if function is None:  # only a forged request names what the grader did not give
            P.send(channel, {"ok": False, "error": {"type": "LookupError", "message": "no such function"}})
            return
        shown = str(getattr(function, "__name__", None) or name)[:100]
        limits = self.limits
        used = self._used.setdefault(call, [0, 0.0])
        used[0] += 1
        if used[0] > limits.callback_calls:
            raise _Overrun(
                _(
                    "it called the grader's `{function}` more than {limit} times in one call (an endless loop? "
                    "the limit is callback_calls)"
                ).format(function=shown, limit=limits.callback_calls),
                call,
            )
        args = P.decode(request.get("args", {"$list": []}), blobs)
        kwargs = P.decode(request.get("kwargs", {"$dict": {}}), blobs)
        if type(args) is not list or type(kwargs) is not dict:
            raise P.ProtocolError("bad callback arguments")
        size = _weight(args) + _weight(kwargs)
        if size > limits.callback_size * (1 << 20):
            raise _Overrun(
                _(
                    "it passed the grader's `{function}` {size:.1f} MiB of arguments in one call, more than "
                    "the {limit:g} MiB allowed (the limit is callback_size)"
                ).format(function=shown, size=size / (1 << 20), limit=limits.callback_size),
                call,
            )
        if _holds_handle(args) or _holds_handle(kwargs):
            message = "it takes arrays, numbers, strings, None and lists, tuples or dicts of them, not your objects"
            P.send(channel, {"ok": False, "error": {"type": "TypeError", "message": message}})
            return
        outcome = self._run_callback(function, args, kwargs, limits.callback_seconds - used[1], used)
        if outcome is None:
            raise _Overrun(
                _(
                    "the grader's `{function}` spent over {limit:g} s on what it passed in one call (the limit "
                    "is callback_seconds)"
                ).format(function=shown, limit=limits.callback_seconds),
                call,
            )
        ok, value = outcome
        if not ok and isinstance(value, MemoryError):
            raise _Overrun(
                _(
                    "the grader's `{function}` needed more than {limit} MiB for what it passed in one call (the "
                    "limit is callback_memory)"
                ).format(function=shown, limit=limits.callback_memory),
                call,
            )
        if not ok:  # what the grader's function raised: the student's code sees it
            exc = value
            grader = isinstance(exc, BoundaryError)
            self.faults.append(_Fault(call, shown, exc, grader))
            raised = {"type": "RuntimeError" if grader else type(exc).__name__[:100], "message": str(exc)[:1000]}
            P.send(channel, {"ok": False, "error": raised})
            return
        try:
            frame = self._frame({"ok": True}, {"value": value}, {})
        except BoundaryError:
            error = BoundaryError(
                f"the grader's function {shown}, called by the student's code, returned a "
                f"{type(value).__name__}, which cannot cross into the sandbox"
            )
            self.faults.append(_Fault(call, str(shown), error, True))
            P.send(channel, {"ok": False, "error": {"type": "RuntimeError", "message": "the grader's function failed"}})
            return
        channel.write(frame)

    def _run_callback(
        self, function: Callable, args: list, kwargs: dict, seconds: float, used: list
    ) -> tuple[bool, Any] | None:
        """The grader's function on the student's arguments, in the callback thread, for at most
        ``seconds`` (added to ``used``): ``(True, value)``, ``(False, what it raised)``, or None when
        it ran past them (it is left behind, told to stop)."""
        runner = self._callback_thread
        if runner is None or runner.pid != os.getpid():  # none yet, or one of the process this was forked from
            runner = self._callback_thread = _CallbackThread()
        self._answering = True
        started = time.monotonic()
        if self._cap is None:  # once a request: what this process holds hardly changes between its callbacks
            self._cap = _address_space() + (self.limits.callback_memory << 20)
        _cap_memory(self._cap)
        try:
            outcome = runner.run(function, args, kwargs, seconds)
        finally:
            _uncap_memory()
            self._answering = False
            used[1] += time.monotonic() - started
        if outcome is None:
            runner.abandon()
            self._callback_thread = None
        return outcome

    def _judged(self, error: StudentCodeError, call: int | None) -> Exception:
        """What a failed call (of a map: its ``call``-th) raises, given the grader's functions that
        raised during it: the grader's own mistake first, then the student's failure after one."""
        faults = [f for f in self.faults if f.call == call]
        for fault in faults:
            if fault.grader:
                return fault.error
        if faults and error.failure is CodeFailure.RAISED:
            return CallbackFailed(error, faults[0].name, faults[0].inner)
        return error

    def _grader_fault(self, call: int | None = None) -> None:
        """Raise the grader's own mistake during a call that returned, if there was one."""
        for fault in self.faults:
            if fault.grader and fault.call == call:
                raise fault.error

    def _wrap(self, handle: P.Handle) -> RemoteObject:
        return RemoteObject(self, handle, self.generation)

    def _unwrap(self, value: Any) -> Any:
        kind = type(value)
        if kind in LEAVES:
            return value
        if kind is list or kind is tuple:
            if all(type(v) in LEAVES for v in value):  # nothing to unwrap: the usual arguments
                return value
            return kind(self._unwrap(v) for v in value)
        if kind is dict:
            if all(type(v) in LEAVES for v in value.values()):
                return value
            return {k: self._unwrap(v) for k, v in value.items()}
        if isinstance(value, RemoteObject):
            if value._generation != self.generation:
                raise StudentCodeError(CodeFailure.LOST, "this object was lost when the student's code was restarted")
            return value._handle
        return value

    def _check(self, reply: dict) -> None:
        if not reply.get("ok"):
            raise _raised(reply)

    # -- the API the graders use -----------------------------------------------
    def run_cells(self, cells: list[dict]) -> list[dict]:
        """Run a submission's code cells (``{"id", "source"}``) in a fresh child."""
        self._end_child(kill=True)
        self.cells = list(cells)
        self.bad_cells = {}
        return self._ensure_cells()

    def _ensure_cells(self) -> list[dict]:
        """Run the cells in a fresh child, skipping any cell that hangs or kills the process.

        The worker announces each cell before running it, so when a run times
        out or the process dies the culprit is known: that cell is marked as
        failed and the others are run again without it (a few times at most).
        One endless loop at the top of a notebook then costs only what that
        cell defines.
        """
        if self.child is not None and self.cell_results is not None:
            return self.cell_results
        if self.child is not None:
            self._end_child(kill=True)
        if self.generation:
            self.restarts += 1
        for _attempt in range(MAX_BAD_CELLS + 1):
            self._spawn()
            keep = [i for i in range(len(self.cells)) if i not in self.bad_cells]
            started: list[int] = []
            try:
                reply, _ = self._exchange(
                    {"op": "run", "cells": [self.cells[i] for i in keep]},
                    {},
                    self.limits.cell_timeout,
                    progress=started.append,
                )
                cells = reply.get("cells")
                if not isinstance(cells, list) or len(cells) != len(keep):
                    raise SandboxCrashed(CodeFailure.PROTOCOL, "bad reply to run")
            except StudentCodeError as exc:
                if not started or started[-1] >= len(keep):
                    break
                culprit = keep[started[-1]]
                self.bad_cells[culprit] = f"{exc} -- this cell was skipped and the others run without it"
                continue
            by_index = dict(zip(keep, cells, strict=False))
            self.cell_results = [
                by_index[i]
                if isinstance(by_index.get(i), dict)
                else {"id": c.get("id"), "ok": False, "error": self.bad_cells.get(i, "no result"), "output": ""}
                for i, c in enumerate(self.cells)
            ]
            return self.cell_results
        # nothing could be run: a fresh child with nothing defined, so calls report missing names
        self._spawn()
        self.cell_results = [
            {
                "id": c.get("id"),
                "ok": False,
                "output": "",
                "error": self.bad_cells.get(i, "not run: the notebook kept crashing"),
            }
            for i, c in enumerate(self.cells)
        ]
        return self.cell_results

    def has(self, name: str) -> str:
        reply, _ = self._exchange({"op": "has", "name": name}, {}, self.limits.call_timeout)
        self._check(reply)
        kind = reply.get("kind")
        return kind if kind in ("function", "class", "value", "missing") else "missing"

    def get(self, name: str) -> Any:
        """The value of a variable in the student's namespace (plain data only)."""
        self._ensure_cells()
        reply, value = self._exchange({"op": "get", "name": name}, {}, self.limits.call_timeout)
        self._check(reply)
        return value

    def call(
        self,
        target: str | RemoteObject,
        args: tuple = (),
        kwargs: Mapping | None = None,
        *,
        attr: str | None = None,
        reference: Mapping[str, Callable] | None = None,
        method: bool = False,
    ) -> Any:
        """``target(*args, **kwargs)`` in the sandbox (``target.attr(...)`` with ``attr``). With
        ``method``, ``attr`` is a method :meth:`getattr` found plain (``obj._methods``): it is
        called without looking it up first, or StaleMethod is raised when it no longer is one."""
        self._not_answering()
        self._ensure_cells()
        spec = target if isinstance(target, str) else self._unwrap(target)
        header = {
            "op": "call",
            "attr": attr,
            "reference": sorted(reference) if reference else [],
            "target": spec if type(spec) is str and len(spec) <= P.MAX_STR else P.encode(spec, []),
        }
        if method:
            header["method"] = True
        values = {"args": list(self._unwrap(tuple(args))), "kwargs": self._unwrap(dict(kwargs or {}))}
        self.faults, self._used, self._cap = [], {}, None
        try:
            reply, value = self._exchange(header, values, self.limits.call_timeout, reference)
        except StudentCodeError:
            self._grader_fault()
            raise
        self._grader_fault()
        if method and reply.get("stale") is True:
            raise StaleMethod(attr)
        if not reply.get("ok"):
            raise self._judged(_raised(reply), None)
        return value

    def map(
        self,
        target: str,
        calls: Sequence[tuple[tuple, Mapping]],
        *,
        reference: Mapping[str, Callable] | None = None,
        stop_at: float | None = None,
    ) -> list[tuple[bool, Any]]:
        """Call the function ``target`` on each ``(args, kwargs)`` of ``calls``, in order, as
        :meth:`call` would one after another -- but in one request (or a few, up to
        ``protocol.MAX_CALLS`` calls or about ``FLUSH_BLOBS`` bytes of arrays each).

        Returns ``(True, value)`` or ``(False, error)`` for each call: a
        :class:`StudentCodeError` as :meth:`call` raises it (a timeout, a crash, what the code
        raised), a :class:`NotRun` for a call not made (it would have started after
        ``stop_at``, a ``time.monotonic()``; or a call before it timed out or crashed), or the
        ProtocolError of arguments that cannot cross. Every call is held to its own deadline,
        as :meth:`call` holds it. When a call hangs or kills the process, the batch stops
        there: the child is killed (or found dead), the calls before it that had not sent
        their results are made again in a fresh child, and the one that failed reports its
        failure; the calls after it are not made (``NotRun``). The arguments are plain data:
        no objects of the student's.
        """
        self._not_answering()
        results: list[tuple[bool, Any] | None] = [None] * len(calls)
        encoded: list[tuple[int, Any, Any, list[bytes]]] = []
        callbacks: dict[str, Callable] = dict(reference or {})
        special = _special(callbacks)
        for index, (args, kwargs) in enumerate(calls):
            blobs: list[bytes] = []
            try:
                args, kwargs = self._unwrap(list(args)), self._unwrap(dict(kwargs))
                tree = P.encode(args, blobs, special=special), P.encode(kwargs, blobs, special=special)
                encoded.append((index, *tree, blobs))
            except P.ProtocolError as exc:
                results[index] = (False, BoundaryError(_cannot_cross(exc)))
        todo = [item for item in encoded]
        limit = time.monotonic() + 2 * len(calls) * self.limits.call_timeout  # n calls' worth of deadlines, twice
        while todo:
            now = time.monotonic()
            if (stop_at is not None and now >= stop_at) or now >= limit:
                for index, *_ in todo:
                    results[index] = (False, NotRun("budget"))
                break
            chunk = _chunk(todo)
            done, failure = self._map_round(target, chunk, callbacks, stop_at, limit)
            for offset, result in done.items():
                results[chunk[offset][0]] = result
            if failure is None:
                todo = [item for item in todo if results[item[0]] is None]
                continue
            failed, error = failure
            if isinstance(error, NotRun):  # stopped at stop_at: this call and the rest were not made
                for index, *_ in todo:
                    if results[index] is None:
                        results[index] = (False, error)
                break
            results[chunk[failed][0]] = (False, error)
            # none after it is made now: after a timeout, none at all (as after a call that timed out);
            # after a crash, each when its result is asked for (:class:`NotRun` "later"), as a loop of
            # calls that stops at the crash would not have made them
            later = NotRun("timeout", error) if isinstance(error, SandboxTimeout) else NotRun("later")
            for index, *_ in todo:
                if index > chunk[failed][0] and results[index] is None:
                    results[index] = (False, later)
            todo = [item for item in todo if results[item[0]] is None]  # the calls before it, made again
        return cast("list[tuple[bool, Any]]", results)

    def _map_round(
        self,
        target: str,
        chunk: list[tuple[int, Any, Any, list[bytes]]],
        reference: Mapping[str, Callable],
        stop_at: float | None,
        limit: float,
    ) -> tuple[dict[int, tuple[bool, Any]], tuple[int, Exception] | None]:
        """One map request: the results it sent, by offset in ``chunk``, and (offset, error) of
        the call where it stopped short, if it did."""
        self._ensure_cells()
        channel = self.channel
        assert channel is not None  # _ensure_cells spawned a child
        self.batches += 1
        batch, timeout = self.batches, self.limits.call_timeout
        blobs: list[bytes] = []
        calls = []
        for _index, args, kwargs, own in chunk:
            shift = len(blobs)
            blobs.extend(own)
            calls.append({"args": _shifted(args, shift), "kwargs": _shifted(kwargs, shift)})
        header = {
            "op": "map",
            "target": target,
            "reference": sorted(name for name in reference if not name.startswith("#")),
            "batch": batch,
            "stop_at": None if stop_at is None else float(stop_at),
            "calls": calls,
        }
        done: dict[int, tuple[bool, Any]] = {}
        sent = time.monotonic()
        seen = [-1, sent]  # the latest progress note: (index, started)

        def renew() -> float | None:
            """A later deadline when the batch has moved on to a call the note says started later."""
            note = self._progress_note(batch, len(chunk), sent)
            if note is None or note[0] <= seen[0] or note[1] < seen[1]:
                return None
            seen[:] = note
            return min(note[1] + timeout, cap)

        cap = limit if stop_at is None else min(limit, stop_at + timeout)
        channel.deadline, channel.renew = min(sent + timeout, cap), renew
        self.faults, self._used, self._cap = [], {}, None
        try:
            P.write_frame(channel, header, blobs)
            while True:
                reply, rblobs = P.read_frame(channel)
                if reply.get("op") == "callback":
                    self._answer_callback(channel, reply, rblobs, reference)
                    continue
                entries, first = reply.get("results"), reply.get("first")
                if type(entries) is not list or first != len(done) or len(done) + len(entries) > len(chunk):
                    raise P.ProtocolError("bad reply to map")
                for entry in entries:
                    done[len(done)] = self._map_result(entry, rblobs, timeout, len(done))
                if reply.get("done") is True:
                    stopped = reply.get("stopped")
                    if stopped is None and len(done) == len(chunk):
                        return done, None
                    if stopped == len(done) and stop_at is not None:
                        return done, (len(done), NotRun("budget"))
                    raise P.ProtocolError("bad reply to map")
        except TimeoutError:
            self.timeouts += 1
            failed = self._failed_call(batch, len(chunk), sent, done)
            self._ran_until_now(seen[1], timeout)  # the call that hung, from when it started
            self._end_child(kill=True)
            message = _("no answer within {seconds:g} s (endless loop?)").format(seconds=timeout)
            error: StudentCodeError = SandboxTimeout(message)
        except (EOFError, OSError):
            self.kills += 1
            failed = self._failed_call(batch, len(chunk), sent, done)
            self._ran_until_now(seen[1], timeout)
            error = SandboxCrashed(CodeFailure.CRASHED, _exit_reason(self._end_child(kill=True)))
        except P.ProtocolError as exc:
            self.kills += 1
            failed = self._failed_call(batch, len(chunk), sent, done)
            self._end_child(kill=True)
            error = SandboxCrashed(CodeFailure.PROTOCOL, str(exc))
        except _Overrun as over:
            self.overruns += 1
            failed = over.call if over.call is not None and len(done) <= over.call < len(chunk) else len(done)
            self._end_child(kill=True)
            error = CallbackOverrun(over.message)
        finally:
            channel.renew = None
        return done, (None if failed >= len(chunk) else (failed, error))  # all had answered: none failed

    def _ran_until_now(self, started: float, timeout: float) -> None:
        """A request the student's code never answered (it hung until the deadline, or its process died):
        its time is the student's code's too, up to the deadline -- no reply carries it (an endless loop
        stopped at 10 s is 10 s of the student's, not the grader's)."""
        self.student_seconds += min(timeout, max(0.0, time.monotonic() - started))

    def _map_result(self, entry: Any, blobs: list[bytes], timeout: float, offset: int) -> tuple[bool, Any]:
        if type(entry) is not dict or type(entry.get("ok")) is not bool:
            raise P.ProtocolError("bad result in a reply to map")
        if not entry["ok"]:
            return False, self._judged(_raised(entry), offset)
        for fault in self.faults:
            if fault.grader and fault.call == offset:
                return False, fault.error
        value = P.decode(entry.get("value"), blobs, self._wrap)
        seconds = entry.get("seconds")
        if isinstance(seconds, (int, float)) and 0 <= seconds <= timeout:
            self.student_seconds += seconds
        return True, value

    def _progress_note(self, batch: int, calls: int, sent: float) -> tuple[int, float] | None:
        """(index, started) of the call this batch's child says it has started, if it says so
        believably: of this batch, of one of its calls, started since the batch was sent and
        not in the future. A note being written is read again."""
        if self.progress is None:
            return None
        for _attempt in range(3):
            try:
                note = P.read_progress(os.pread(self.progress, P.PROGRESS.size, 0))
            except OSError:
                return None
            if note is not None:
                break
            time.sleep(0.001)
        else:
            return None
        got, index, started = note
        if got != batch or not 0 <= index < calls or not sent <= started <= time.monotonic():
            return None
        return index, started

    def _failed_call(self, batch: int, calls: int, sent: float, done: Mapping) -> int:
        """Which call of a batch that stopped short hung or crashed: the one its progress note
        names, if it is one that had not answered; else the first that had not."""
        note = self._progress_note(batch, calls, sent)
        if note is not None and note[0] >= len(done):
            return note[0]
        return len(done)

    def holds(self, obj: RemoteObject) -> bool:
        """Whether ``obj`` lives in the running child (not lost with an earlier one, nor with
        one that has just died)."""
        return self.child is not None and self.cell_results is not None and obj._generation == self.generation

    def getattr(self, obj: RemoteObject, name: str) -> Any:
        header = {"op": "getattr", "target": P.encode(self._unwrap(obj), []), "attr": name}
        reply, value = self._exchange(header, {}, self.limits.call_timeout)
        self._check(reply)
        if reply.get("method") is True and isinstance(value, RemoteObject):
            obj._methods.add(name)
        return value

    def length(self, obj: RemoteObject) -> Any:
        header = {"op": "len", "target": P.encode(self._unwrap(obj), [])}
        reply, value = self._exchange(header, {}, self.limits.call_timeout)
        self._check(reply)
        return value


def _chunk(todo: list[tuple[int, Any, Any, list[bytes]]]) -> list[tuple[int, Any, Any, list[bytes]]]:
    """The first calls of ``todo`` that go in one map request: at most MAX_CALLS, and no more
    than about FLUSH_BLOBS bytes of arrays (at least one call, whatever its size)."""
    chunk: list[tuple[int, Any, Any, list[bytes]]] = []
    size = 0
    for item in todo[: P.MAX_CALLS]:
        size += sum(len(b) for b in item[3])
        if chunk and size > P.FLUSH_BLOBS:
            break
        chunk.append(item)
    return chunk


def _shifted(tree: Any, shift: int) -> Any:
    """An encoded value whose arrays are ``shift`` places later in the frame's blobs."""
    if not shift or type(tree) is not dict:
        return tree
    if "$nd" in tree:
        return {"$nd": tree["$nd"] + shift}
    return {key: _shifted_items(value, shift) for key, value in tree.items()}


def _shifted_items(value: Any, shift: int) -> Any:
    if type(value) is list:
        return [_shifted(v, shift) for v in value]
    if type(value) is dict:
        return {k: _shifted(v, shift) for k, v in value.items()}
    return value


def _raised(reply: dict) -> StudentCodeError:
    """The error a reply (or one result of a map) reports: what the student's code raised."""
    err = reply.get("error") or {}
    if not isinstance(err, dict):
        err = {"type": "Error", "message": str(err)}
    where = cast(list, err.get("where")) if isinstance(err.get("where"), list) else []
    function = err.get("function")
    return StudentCodeError(
        CodeFailure.RAISED,
        str(err.get("message", ""))[:2000],
        [str(w)[:200] for w in where[:5]],
        exc_type=str(err.get("type", "Error"))[:100],
        function=function if isinstance(function, str) and function.isidentifier() else None,
    )


def _cannot_cross(exc: P.ProtocolError) -> str:
    return (
        f"an argument the grader passes to the student's code: {exc} (what crosses: numeric arrays, numbers, "
        "strings, None, lists, tuples and dicts of them, the student's functions and objects, and the grader's "
        "functions)"
    )


def _special(callbacks: dict[str, Callable]) -> Callable[[Any], dict | None]:
    """How the grader's side encodes what is not plain data: the student's function by its name,
    an object of the student's by its handle (see :meth:`Sandbox._unwrap`), a function of the
    grader's as a callback key entered in ``callbacks`` (one key per function a request passes)."""
    keys: dict[int, str] = {}

    def special(value: Any) -> dict | None:
        if isinstance(value, StudentName):
            return {"$fn": value.name}
        if isinstance(value, Callback):
            key = keys.get(id(value.function))
            if key is None:
                key = keys[id(value.function)] = f"#{len(keys)}"
                callbacks[key] = value.function
            return {"$cb": key, "name": value.name}
        return None

    return special


def _holds_handle(value: Any, depth: int = 0) -> bool:
    """Whether a decoded value holds an object of the student's (a handle), at any depth."""
    if isinstance(value, P.Handle):
        return True
    if depth < P.MAX_DEPTH and type(value) in (list, tuple):
        return any(_holds_handle(v, depth + 1) for v in value)
    if depth < P.MAX_DEPTH and type(value) is dict:
        return any(_holds_handle(v, depth + 1) for v in value.values())
    return False


def _progress_file() -> int:
    """A child's progress file: a memfd of one note, sealed so that the child can neither grow
    nor shrink it (the grader reads it with pread, never through a mapping it could truncate)."""
    fd = os.memfd_create("gradekit-progress", os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
    os.ftruncate(fd, os.sysconf("SC_PAGE_SIZE"))
    fcntl.fcntl(fd, fcntl.F_ADD_SEALS, fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW | fcntl.F_SEAL_SEAL)
    return fd


def _exit_reason(code: int | None) -> str:
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
