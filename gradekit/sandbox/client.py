"""The trusted side of the sandbox: run a submission's cells, call its functions.

A :class:`Sandbox` runs the student's code in a child of a warm zygote in bubblewrap
(:mod:`gradekit.sandbox.process`), one child per submission. Every request has a wall-clock
deadline; a child that misses it, dies, or breaks the protocol is killed, and the zygote kills
whatever it left behind. The next request forks a fresh child and re-runs the submission's
cells, so a hang or crash inside one function costs only the call that caused it.

Everything the worker sends is decoded by :mod:`~gradekit.sandbox.protocol` (arrays with
``allow_pickle=False``, numeric dtypes only) and is otherwise untrusted. What a request's
frames hold, and how its reply is read, is :mod:`~gradekit.sandbox.framing`.

Functions cross as arguments both ways, and each runs where it belongs
(:mod:`~gradekit.sandbox.crossing`): the student's function (:class:`StudentName`) runs in the
sandbox, called there by the student's other code; a function of the grader's
(:class:`Callback`) stays here, and the student's code calls it back, within limits of
its own (:mod:`~gradekit.sandbox.callbacks`; past one, the student's call is stopped:
:class:`~gradekit.errors.CallbackOverrun`). Nothing the worker sends can name anything else for
this process to run. The grader's own mistakes -- an argument that cannot cross, a function of
its own that calls the student's code, a result that cannot go back -- raise
:class:`~gradekit.errors.BoundaryError`, never a failure of the student's.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, cast

from gradekit.errors import BoundaryError, CodeFailure, SandboxCrashed, SandboxTimeout, StudentCodeError
from gradekit.sandbox import framing
from gradekit.sandbox import protocol as P
from gradekit.sandbox.callbacks import Callbacks
from gradekit.sandbox.crossing import Callback, StudentName, cannot_cross, special, unwrap
from gradekit.sandbox.framing import Encoded, raised
from gradekit.sandbox.limits import Limits
from gradekit.sandbox.process import SandboxProcess
from gradekit.sandbox.roundtrip import NotRun, RoundTrips

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


class StaleMethod(Exception):
    """A call of a method looked up earlier (``method=True``) that is no longer a plain method:
    nothing was called; look it up again."""


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


class RemoteMethod:
    def __init__(self, obj: RemoteObject, name: str):
        self.obj, self.name = obj, name

    def __call__(self, *args, **kwargs):
        return self.obj._sandbox.call(self.obj, args, kwargs, attr=self.name)


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
        self.process = SandboxProcess(self.limits, sandboxed)
        self.callbacks = Callbacks(self.limits)
        self.trips = RoundTrips(self.process, self.callbacks, self.limits)
        self.cells: list[dict] = []
        self.bad_cells: dict[int, str] = {}
        self.restarts = 0

    # -- its processes (gradekit.sandbox.process) -----------------------------------------
    @property
    def proc(self):
        return self.process.proc

    @property
    def channel(self) -> P.Channel | None:
        return self.process.channel

    @property
    def generation(self) -> int:
        return self.process.generation

    @property
    def startup_seconds(self) -> float:
        """Seconds spent waiting for a sandbox to finish starting (numpy, IPython imported in it)."""
        return self.process.startup_seconds

    # -- what its requests cost (gradekit.sandbox.roundtrip) --------------------------------
    @property
    def student_seconds(self) -> float:
        """Seconds the student's code took: as the worker reports them, and up to the deadline for a
        request it never answered."""
        return self.trips.student_seconds

    @property
    def timeouts(self) -> int:
        """Requests the student's code did not answer in time."""
        return self.trips.timeouts

    @property
    def kills(self) -> int:
        """Children that died or broke the protocol and were killed."""
        return self.trips.kills

    @property
    def overruns(self) -> int:
        """Calls stopped for going past a callback limit."""
        return self.trips.overruns

    @property
    def batches(self) -> int:
        """Map requests sent."""
        return self.trips.batches

    def prestart(self) -> None:
        """Launch the zygote without waiting for it; the first request waits."""
        self.process.prestart()

    def adopt(self, proc, control, cgroup) -> None:
        """Use a zygote started elsewhere, still booting (see :meth:`SandboxProcess.adopt`)."""
        self.process.adopt(proc, control, cgroup)

    def shutdown(self) -> None:
        """End the whole sandbox: the zygote, its child and everything they started."""
        self.process.shutdown()

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(self, *exc) -> None:
        self.shutdown()

    def end_child(self) -> None:
        """End the current submission's child (if any); the zygote stays warm for the next."""
        self.process.end_child(kill=True)

    def holds(self, obj: RemoteObject) -> bool:
        """Whether ``obj`` lives in the running child (not lost with an earlier one, nor with
        one that has just died)."""
        return self.process.child is not None and self.process.ran is not None and obj._generation == self.generation

    # -- the API the graders use -----------------------------------------------
    def run_cells(self, cells: list[dict]) -> list[dict]:
        """Run a submission's code cells (``{"id", "source"}``) in a fresh child."""
        self.process.end_child(kill=True)
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
        process = self.process
        if process.child is not None and process.ran is not None:
            return process.ran
        if process.child is not None:
            process.end_child(kill=True)
        if process.generation:
            self.restarts += 1
        for _attempt in range(MAX_BAD_CELLS + 1):
            process.spawn()
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
            process.ran = [
                by_index[i]
                if isinstance(by_index.get(i), dict)
                else {"id": c.get("id"), "ok": False, "error": self.bad_cells.get(i, "no result"), "output": ""}
                for i, c in enumerate(self.cells)
            ]
            return process.ran
        # nothing could be run: a fresh child with nothing defined, so calls report missing names
        process.spawn()
        process.ran = [
            {
                "id": c.get("id"),
                "ok": False,
                "output": "",
                "error": self.bad_cells.get(i, "not run: the notebook kept crashing"),
            }
            for i, c in enumerate(self.cells)
        ]
        return process.ran

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
        self.callbacks.refuse_reentry()
        self._ensure_cells()
        handle_of = self._handle_of
        spec = target if isinstance(target, str) else unwrap(target, handle_of)
        header = {
            "op": "call",
            "attr": attr,
            "reference": sorted(reference) if reference else [],
            "target": spec if type(spec) is str and len(spec) <= P.MAX_STR else P.encode(spec, []),
        }
        if method:
            header["method"] = True
        values = {"args": list(unwrap(tuple(args), handle_of)), "kwargs": unwrap(dict(kwargs or {}), handle_of)}
        self.callbacks.begin()
        try:
            reply, value = self._exchange(header, values, self.limits.call_timeout, reference)
        except StudentCodeError:
            self._raise_grader_fault()
            raise
        self._raise_grader_fault()
        if method and reply.get("stale") is True:
            raise StaleMethod(attr)
        if not reply.get("ok"):
            raise self.callbacks.judged(raised(reply), None)
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
        self.callbacks.refuse_reentry()
        results: list[tuple[bool, Any] | None] = [None] * len(calls)
        encoded: list[Encoded] = []
        functions: dict[str, Callable] = dict(reference or {})  # and the grader's functions among the arguments
        encode, handle_of = special(functions), self._handle_of
        for index, (args, kwargs) in enumerate(calls):
            blobs: list[bytes] = []
            try:
                args, kwargs = unwrap(list(args), handle_of), unwrap(dict(kwargs), handle_of)
                tree = P.encode(args, blobs, special=encode), P.encode(kwargs, blobs, special=encode)
                encoded.append((index, *tree, blobs))
            except P.ProtocolError as exc:
                results[index] = (False, BoundaryError(cannot_cross(exc)))
        todo = [item for item in encoded]
        limit = time.monotonic() + 2 * len(calls) * self.limits.call_timeout  # n calls' worth of deadlines, twice
        while todo:
            now = time.monotonic()
            if (stop_at is not None and now >= stop_at) or now >= limit:
                for index, *_ in todo:
                    results[index] = (False, NotRun("budget"))
                break
            chunk = framing.chunk(todo)
            done, failure = self._map_round(target, chunk, functions, stop_at, limit)
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

    def getattr(self, obj: RemoteObject, name: str) -> Any:
        header = {"op": "getattr", "target": P.encode(unwrap(obj, self._handle_of), []), "attr": name}
        reply, value = self._exchange(header, {}, self.limits.call_timeout)
        self._check(reply)
        if reply.get("method") is True and isinstance(value, RemoteObject):
            obj._methods.add(name)
        return value

    def length(self, obj: RemoteObject) -> Any:
        header = {"op": "len", "target": P.encode(unwrap(obj, self._handle_of), [])}
        reply, value = self._exchange(header, {}, self.limits.call_timeout)
        self._check(reply)
        return value

    # -- requests (gradekit.sandbox.roundtrip) -----------------------------------------------
    def _exchange(
        self,
        header: dict,
        values: dict,
        timeout: float,
        reference: Mapping[str, Callable] | None = None,
        progress: Callable[[int], None] | None = None,
    ) -> tuple[dict, Any]:
        """One request to the child (spawned, its cells run, if there is none) and its reply, with
        the value it carries decoded; a failure of the student's code raised as the
        StudentCodeError it is (the child ended)."""
        self.callbacks.refuse_reentry()
        functions = dict(reference or {})  # and the grader's functions among the values, as they are encoded
        request = framing.frame(header, values, functions)
        if self.process.child is None:
            self._ensure_cells()
        return self.trips.exchange(request, timeout, functions, self._wrap, progress)

    def _map_round(
        self,
        target: str,
        chunk: list[Encoded],
        functions: Mapping[str, Callable],
        stop_at: float | None,
        limit: float,
    ) -> tuple[dict[int, tuple[bool, Any]], tuple[int, Exception] | None]:
        """One map request (see :meth:`RoundTrips.map_round`), in the child that has run the cells."""
        self._ensure_cells()
        return self.trips.map_round(target, chunk, functions, self._wrap, stop_at, limit)

    def _answer_callback(self, channel, request: dict, blobs: list[bytes], functions: Mapping[str, Callable]) -> None:
        """Answer a callback request of the student's code (see :meth:`Callbacks.answer`)."""
        self.callbacks.answer(channel, request, blobs, functions)

    def _raise_grader_fault(self) -> None:
        """Raise the grader's own mistake during a call that returned, if there was one."""
        fault = self.callbacks.grader_fault()
        if fault is not None:
            raise fault

    def _wrap(self, handle: P.Handle) -> RemoteObject:
        return RemoteObject(self, handle, self.generation)

    def _handle_of(self, value: Any) -> Any:
        """What crosses for an object of the student's (see crossing.unwrap): its handle, if it still
        lives in the child."""
        if isinstance(value, RemoteObject):
            if value._generation != self.generation:
                raise StudentCodeError(CodeFailure.LOST, "this object was lost when the student's code was restarted")
            return value._handle
        return value

    def _check(self, reply: dict) -> None:
        if not reply.get("ok"):
            raise raised(reply)
