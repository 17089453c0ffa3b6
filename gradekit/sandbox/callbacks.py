"""The grader's functions the student's code calls back: run here, on plain data, within limits.

A function of the grader's passed to the student's code (:class:`~gradekit.sandbox.crossing.Callback`:
a reference function, a deliberately wrong one), or a reference standing in for a function of
the student's (``reference=``), stays in the grader's process: the student's code gets a stub
whose calls come back here as callback requests. :class:`Callbacks` answers them: it runs the
grader's function on the plain data a request carries -- never an object or a function of the
student's: those are refused as a TypeError in the student's code -- and nothing else (a request
that names anything the grader did not give is refused). Their limits, per call of the
student's code:

    callback_calls     how many calls it makes back
    callback_size      how large their arguments are (:func:`weight`)
    callback_seconds   how long the grader's functions spend on them in all: they run in a
                       thread of their own (:class:`CallbackThread`), and one still running
                       then is left behind, told to stop
    callback_memory    the memory one may take beyond what this process holds: the process's
                       address space is capped while it runs (:mod:`gradekit.sandbox.memory`)

Past a limit the student's call is stopped (:class:`Overrun`, which the sandbox turns into
:class:`~gradekit.errors.CallbackOverrun`, the student's failure). The grader's own mistakes --
a function of its own that calls the student's code, a result that cannot go back -- are
:class:`~gradekit.errors.BoundaryError`, never a failure of the student's (:class:`Fault`).
"""

from __future__ import annotations

import contextvars
import ctypes
import math
import os
import queue
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from gradekit.errors import BoundaryError, CallbackFailed, CodeFailure, StudentCodeError
from gradekit.i18n.text import _
from gradekit.sandbox import protocol as P
from gradekit.sandbox.crossing import holds_handle
from gradekit.sandbox.framing import frame
from gradekit.sandbox.limits import Limits
from gradekit.sandbox.memory import ADDRESS_SPACE, address_space


class Fault:
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


class Overrun(Exception):
    """The student's code went past a limit on the grader's functions (in the ``call``-th call of a
    map, None for a single call): its call is stopped, its child killed."""

    def __init__(self, message: str, call: int | None):
        super().__init__(message)
        self.message, self.call = message, call


class Callbacks:
    """The callbacks of the sandbox's current request: answered, counted against the limits, and
    the grader's functions that raised during it (:attr:`faults`)."""

    def __init__(self, limits: Limits):
        self.limits = limits
        self.faults: list[Fault] = []  # the grader's functions that raised during the current request
        self.answering = False  # a function of the grader's is running for the student's code
        self._used: dict[int | None, list] = {}  # per call of the current request: [callbacks, their seconds]
        self._cap: int | None = None  # the address space the grader's functions run under, this request
        self._thread: CallbackThread | None = None

    def begin(self) -> None:
        """A new request of the grader's: no faults, nothing used, the memory cap measured anew."""
        self.faults, self._used, self._cap = [], {}, None

    def refuse_reentry(self) -> None:
        """A BoundaryError if a function of the grader's, running for the student's code, is
        calling the student's code itself."""
        if self.answering:
            raise BoundaryError(
                "a function the grader gave the student's code calls the student's code itself (while the "
                "student's code is running); pass the student's function instead (student.f), or call it "
                "before and pass what it returned"
            )

    def answer(self, channel, request: dict, blobs: list[bytes], functions: Mapping[str, Callable]) -> None:
        """Run the grader's function the student's code called, on the plain data it was given, and
        answer with its result, or with what it raised (noted in :attr:`faults`). Only a function
        the grader put in ``functions`` runs; the student's objects are refused as arguments."""
        name = request.get("name")
        call = request.get("call") if type(request.get("call")) is int else None
        function = functions.get(name) if type(name) is str else None
        if function is None:  # only a forged request names what the grader did not give
            P.send(channel, {"ok": False, "error": {"type": "LookupError", "message": "no such function"}})
            return
        shown = str(getattr(function, "__name__", None) or name)[:100]
        limits = self.limits
        used = self._used.setdefault(call, [0, 0.0])
        used[0] += 1
        if used[0] > limits.callback_calls:
            raise Overrun(
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
        size = weight(args) + weight(kwargs)
        if size > limits.callback_size * (1 << 20):
            raise Overrun(
                _(
                    "it passed the grader's `{function}` {size:.1f} MiB of arguments in one call, more than "
                    "the {limit:g} MiB allowed (the limit is callback_size)"
                ).format(function=shown, size=size / (1 << 20), limit=limits.callback_size),
                call,
            )
        if holds_handle(args) or holds_handle(kwargs):
            message = "it takes arrays, numbers, strings, None and lists, tuples or dicts of them, not your objects"
            P.send(channel, {"ok": False, "error": {"type": "TypeError", "message": message}})
            return
        outcome = self._run(function, args, kwargs, limits.callback_seconds - used[1], used)
        if outcome is None:
            raise Overrun(
                _(
                    "the grader's `{function}` spent over {limit:g} s on what it passed in one call (the limit "
                    "is callback_seconds)"
                ).format(function=shown, limit=limits.callback_seconds),
                call,
            )
        ok, value = outcome
        if not ok and isinstance(value, MemoryError):
            raise Overrun(
                _(
                    "the grader's `{function}` needed more than {limit} MiB for what it passed in one call (the "
                    "limit is callback_memory)"
                ).format(function=shown, limit=limits.callback_memory),
                call,
            )
        if not ok:  # what the grader's function raised: the student's code sees it
            exc = value
            grader = isinstance(exc, BoundaryError)
            self.faults.append(Fault(call, shown, exc, grader))
            raised = {"type": "RuntimeError" if grader else type(exc).__name__[:100], "message": str(exc)[:1000]}
            P.send(channel, {"ok": False, "error": raised})
            return
        try:
            answer = frame({"ok": True}, {"value": value}, {})
        except BoundaryError:
            error = BoundaryError(
                f"the grader's function {shown}, called by the student's code, returned a "
                f"{type(value).__name__}, which cannot cross into the sandbox"
            )
            self.faults.append(Fault(call, str(shown), error, True))
            P.send(channel, {"ok": False, "error": {"type": "RuntimeError", "message": "the grader's function failed"}})
            return
        channel.write(answer)

    def _run(self, function: Callable, args: list, kwargs: dict, seconds: float, used: list) -> tuple[bool, Any] | None:
        """The grader's function on the student's arguments, in the callback thread, for at most
        ``seconds`` (added to ``used``), under the memory cap: ``(True, value)``, ``(False, what it
        raised)``, or None when it ran past them (it is left behind, told to stop)."""
        runner = self._thread
        if runner is None or runner.pid != os.getpid():  # none yet, or one of the process this was forked from
            runner = self._thread = CallbackThread()
        self.answering = True
        started = time.monotonic()
        if self._cap is None:  # once a request: what this process holds hardly changes between its callbacks
            self._cap = address_space() + (self.limits.callback_memory << 20)
        ADDRESS_SPACE.hold(self._cap)
        try:
            outcome = runner.run(function, args, kwargs, seconds)
        finally:
            ADDRESS_SPACE.release()
            self.answering = False
            used[1] += time.monotonic() - started
        if outcome is None:
            runner.abandon()
            self._thread = None
        return outcome

    def judged(self, error: StudentCodeError, call: int | None) -> Exception:
        """What a failed call (of a map: its ``call``-th) raises, given the grader's functions that
        raised during it: the grader's own mistake first, then the student's failure after one."""
        faults = [f for f in self.faults if f.call == call]
        for fault in faults:
            if fault.grader:
                return fault.error
        if faults and error.failure is CodeFailure.RAISED:
            return CallbackFailed(error, faults[0].name, faults[0].inner)
        return error

    def grader_fault(self, call: int | None = None) -> Exception | None:
        """The grader's own mistake during a call (of a map: its ``call``-th) that returned, if there was one."""
        for fault in self.faults:
            if fault.grader and fault.call == call:
                return fault.error
        return None


def weight(value: Any) -> int:
    """The size of a callback's arguments as ``callback_size`` counts them: an array at least 8
    bytes an element, its empty dimensions counted as 1 (a (10⁶, 0) array is no small argument to
    a function that makes a table of its rows); a number 8, a string its length."""
    kind = type(value)
    if kind is np.ndarray:
        return max(value.itemsize, 8) * math.prod(max(d, 1) for d in value.shape)
    if kind is list or kind is tuple:
        return 8 * len(value) + sum(weight(v) for v in value)
    if kind is dict:
        return sum(8 + len(str(k)) + weight(v) for k, v in value.items())
    if kind is str:
        return len(value)
    return 8


# -- the thread the grader's functions run in ---------------------------------------------------


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


class CallbackThread:
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
