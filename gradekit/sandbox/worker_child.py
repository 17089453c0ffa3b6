"""The untrusted side's child: one submission's requests answered, inside the sandbox.

The zygote (:mod:`worker`) forks a :class:`Child` per submission; it talks to the trusted
grader over a socket of its own using :mod:`protocol`, and the student's prints go elsewhere
(:class:`CappedWriter`) so they can never be mistaken for a frame. A child runs the student's
code, so nothing it sends is trusted: the grader treats every answer as hostile input. Like
:mod:`worker`, this module is loaded inside the sandbox without the rest of gradekit: it
imports the standard library only.

Requests to a child (``op``), each a step of :class:`Child`:
    run      {"cells": [{"id", "source"}]}     -> {"cells": [{"id", "ok", "error", "output"}]}
    has      {"name"}                         -> {"kind": "function"|"class"|"value"|"missing"}
    get      {"name"}                         -> {"value"}: a variable the student set
    call     {"target", "attr"?, "method"?, "args", "kwargs", "reference"?: [names]}
             (``method``: attr was a plain method when looked up; -> {"stale": true} if no longer)
    map      {"target", "attr"?, "calls": [{"args", "kwargs"}], "reference"?, "batch", "stop_at"?}
             -> {"results": [...], "first", "done", "stopped"} in one or more parts: the calls
             one after another, each result {"ok", "value", "seconds"} or {"ok": false, "error"},
             none started at or after ``stop_at`` (time.monotonic())
    getattr  {"target", "attr"}                -> {"value", "method"}: whether it is a plain method
    len      {"target"}
    exit     {}                               -> the child exits
While a ``call`` or a ``map`` runs, the worker may send ``{"op": "callback", "name",
"args", "kwargs", "call"?}`` -- for a name listed in ``reference`` (the student's own
function of that name replaced by the reference's), or the key of a ``$cb`` argument (a
function of the grader's, passed to the student's code) -- and waits for the grader's
answer ``{"ok", "value"}`` or ``{"ok": false, "error": {"type", "message"}}``, which the
student's code sees as the function's result or as the exception it raised. The grader
runs only its own functions there, on plain data. A ``$fn`` argument is the student's own
function of that name, looked up here. While a ``map`` runs, the child notes the call
it has started in the progress file the grader passed with its socket (see
``protocol.write_progress``): the grader holds each call to its own deadline
without being woken once a call.
"""

import sys
import time
import traceback

MAX_OUTPUT = 20_000


class CappedWriter:
    """A text stream that keeps the first MAX_OUTPUT characters and counts the rest."""

    def __init__(self):
        self.parts, self.size, self.dropped = [], 0, 0

    def write(self, text):
        text = str(text)
        room = MAX_OUTPUT - self.size
        if room > 0:
            self.parts.append(text[:room])
        self.size += min(len(text), max(room, 0))
        self.dropped += max(len(text) - max(room, 0), 0)
        return len(text)

    def flush(self):
        pass

    def isatty(self):
        return False

    def take(self):
        if not self.parts and not self.dropped:  # nothing printed: the usual case
            return ""
        text = "".join(self.parts)
        if self.dropped:
            text += f"\n[... {self.dropped} more characters of output dropped]"
        self.parts, self.size, self.dropped = [], 0, 0
        return text


class Child:
    """One submission's child: it answers requests on ``channel`` until it closes, running the
    student's code in ``shell``; ``progress``: where a ``map`` notes the call it has started."""

    def __init__(self, channel, shell, P, progress=None):
        self.channel, self.shell, self.P, self.progress = channel, shell, P, progress
        self.ns = shell.user_ns
        self.writer = CappedWriter()
        self.table = {}  # the student's objects the grader holds a handle to, by id
        self.current = None  # the index of the map's call being made (None in a single call)
        self.steps = {
            "call": self.call,  # the most common first
            "getattr": self.call,
            "len": self.call,
            "run": self.run,
            "has": self.has,
            "get": self.get,
            "map": self.map,
        }

    def answer_until_closed(self):
        """The child's loop: each request read, answered by its step; what the student's code
        raised is the answer, and the loop goes on."""
        P, channel, steps = self.P, self.channel, self.steps
        sys.stdout = sys.stderr = self.writer
        while True:
            try:
                header, blobs = P.read_frame(channel)
            except (EOFError, OSError):
                return
            op = header.get("op")
            if op == "exit":
                return
            started = time.perf_counter()
            try:
                step = steps.get(op) if type(op) is str else None
                if step is None:
                    self.reply({"ok": False, "error": {"type": "ProtocolError", "message": f"unknown op {op!r}"}})
                else:
                    step(header, blobs, started)
            except P.ProtocolError as exc:
                self.reply({"ok": False, "error": {"type": "ProtocolError", "message": str(exc)}})
            except BaseException as exc:  # the student's code raised: report it, keep serving
                self.writer.take()
                self.reply({"ok": False, "error": self.error_of(exc)})

    # -- the steps --------------------------------------------------------------------------
    def call(self, header, blobs, started):
        """``call``, ``getattr`` and ``len`` of a target: a name of the student's, or an object's handle."""
        op = header.get("op")
        target = self.target_of(header.get("target"))
        if op == "len":
            self.reply({"ok": True}, {"value": len(target)})
            return
        attr = header.get("attr")
        if attr is not None:
            attr = str(attr)
            if op == "getattr":
                method = _plain_method(target, attr)
                self.reply({"ok": True, "method": method}, {"value": getattr(target, attr)})
                return
            if header.get("method") is True and not _plain_method(target, attr):
                self.reply({"ok": False, "stale": True})  # no longer what the grader was told
                return
            target = getattr(target, attr)
        elif op == "getattr":
            self.reply({"ok": True, "method": False}, {"value": target})
            return
        args, kwargs = self.arguments(header, blobs)
        names = header.get("reference")
        if not names:
            value = target(*args, **kwargs)
        else:
            names = [n for n in names if isinstance(n, str)]
            saved = self.saved(names)
            try:
                for n in names:
                    self.ns[n] = self.stub(n)
                value = target(*args, **kwargs)
            finally:
                self.restore(names, saved)
        self.writer.take()
        self.reply({"ok": True, "seconds": time.perf_counter() - started}, {"value": value})

    def run(self, header, blobs, started):
        """The cells, one after another, each announced first (a cell that hangs or kills the
        child is known to the grader), its output kept with its result."""
        results = []
        for index, cell in enumerate(header.get("cells", [])):
            self.P.write_frame(self.channel, {"op": "progress", "index": index})
            try:
                res = self.shell.run_cell(cell.get("source", ""), store_history=False)
                err = res.error_before_exec or res.error_in_exec
                entry = {
                    "id": cell.get("id"),
                    "ok": err is None,
                    "error": None if err is None else _one_line(err),
                }
            except BaseException as exc:  # SystemExit, KeyboardInterrupt raised oddly
                entry = {"id": cell.get("id"), "ok": False, "error": _one_line(exc)}
            entry["output"] = self.writer.take()
            results.append(entry)
        self.reply({"ok": True, "cells": results, "seconds": time.perf_counter() - started})

    def has(self, header, blobs, started):
        ns, name = self.ns, header.get("name")
        if name not in ns:
            kind = "missing"
        elif isinstance(ns[name], type):
            kind = "class"
        elif callable(ns[name]):
            kind = "function"
        else:
            kind = "value"
        self.reply({"ok": True, "kind": kind})

    def get(self, header, blobs, started):
        name = header.get("name")
        if not isinstance(name, str) or name not in self.ns:
            raise NameError(f"name '{name}' is not defined")
        self.reply({"ok": True}, {"value": self.ns[name]})

    def map(self, header, blobs, started):
        """The calls of a ``map``, one after another, as ``call`` runs each; the results go back
        in parts of about FLUSH_BLOBS bytes, the last one ``done``."""
        P, progress = self.P, self.progress
        calls, batch, stop_at = header.get("calls"), header.get("batch"), header.get("stop_at")
        if type(calls) is not list or len(calls) > P.MAX_CALLS or type(batch) is not int:
            raise P.ProtocolError("bad map request")
        if stop_at is not None and type(stop_at) is not float:
            raise P.ProtocolError("bad map request")
        spec, attr = header.get("target"), header.get("attr")
        names = [n for n in header.get("reference", []) if isinstance(n, str)]
        saved = self.saved(names)
        stubs = {n: self.stub(n) for n in names}
        results: list[dict] = []
        out: list[bytes] = []  # the arrays of the results not sent yet
        size, first = 0, 0  # their bytes, the index of the first of them
        stopped = None
        try:
            for index, call in enumerate(calls):
                now = time.monotonic()
                if stop_at is not None and now >= stop_at:
                    stopped = index
                    break
                if progress is not None:
                    P.write_progress(progress, batch, index, now)
                mark = len(out)
                results.append(self.map_call(index, call, spec, attr, blobs, stubs, out))
                size += sum(len(b) for b in out[mark:])
                if size >= P.FLUSH_BLOBS:
                    P.write_frame(self.channel, {"results": results, "first": first, "done": False}, out)
                    first += len(results)
                    results, out, size = [], [], 0
        finally:
            self.current = None
            self.restore(names, saved)
        P.write_frame(self.channel, {"results": results, "first": first, "done": True, "stopped": stopped}, out)

    def map_call(self, index, call, spec, attr, blobs, stubs, out):
        """One call of a map, made as ``call`` makes one: its result (its value's arrays added to
        ``out``), or what it raised -- the map goes on."""
        P = self.P
        started, mark = time.perf_counter(), len(out)
        try:
            if type(call) is not dict:
                raise P.ProtocolError("bad call")
            target = self.target_of(spec)
            if attr is not None:
                target = getattr(target, str(attr))
            self.current = index
            args, kwargs = self.arguments(call, blobs)
            self.ns.update(stubs)
            value = target(*args, **kwargs)
            self.writer.take()
            seconds = time.perf_counter() - started
            try:
                return {"ok": True, "value": P.encode(value, out, self.keep), "seconds": seconds}
            except P.ProtocolError as exc:
                del out[mark:]
                return {"ok": False, "error": {"type": "UnsendableValue", "message": str(exc)}}
        except P.ProtocolError as exc:
            return {"ok": False, "error": {"type": "ProtocolError", "message": str(exc)}}
        except BaseException as exc:  # the student's code raised: this call's result, go on
            self.writer.take()
            return {"ok": False, "error": self.error_of(exc)}

    # -- what the steps share ---------------------------------------------------------------
    def reply(self, header, values=None):
        try:
            self.P.send(self.channel, header, values, keep=self.keep)
        except self.P.ProtocolError as exc:
            self.P.send(self.channel, {"ok": False, "error": {"type": "UnsendableValue", "message": str(exc)}})

    def keep(self, obj):
        """A handle's id for an object of the student's that goes to the grader (kept alive here)."""
        self.table[id(obj)] = obj
        return id(obj)

    def resolve(self, handle):
        """The object a handle from the grader stands for."""
        if handle.id not in self.table:
            raise self.P.ProtocolError("unknown handle")
        return self.table[handle.id]

    def target_of(self, spec):
        """What a request calls: the student's name, or an object of theirs by its handle."""
        value = self.P.decode(spec, [], self.resolve)
        if isinstance(value, str):
            if value not in self.ns:
                raise NameError(f"name '{value}' is not defined")
            return self.ns[value]
        return value

    def arguments(self, request, blobs):
        """A call's args and kwargs, decoded: handles resolved, functions looked up or stubbed."""
        decode, resolve, functions = self.P.decode, self.resolve, self.functions
        args = decode(request.get("args", {"$list": []}), blobs, resolve, functions=functions)
        kwargs = decode(request.get("kwargs", {"$dict": {}}), blobs, resolve, functions=functions)
        return args, kwargs

    def functions(self, tree):
        """A ``$fn`` argument: the student's function of that name; a ``$cb``: the grader's, as a stub."""
        if "$fn" in tree:
            name = tree["$fn"]
            if name not in self.ns:
                raise NameError(f"name '{name}' is not defined")
            return self.ns[name]
        return self.stub(tree["$cb"], tree["name"])

    def stub(self, name, shown=None):
        """A function of the grader's, as the student's code calls it: each call a callback."""
        P, channel, child = self.P, self.channel, self

        def grader_function(*args, **kwargs):
            header = {"op": "callback", "name": name}
            if child.current is not None:
                header["call"] = child.current
            P.send(channel, header, {"args": list(args), "kwargs": kwargs}, keep=child.keep)
            answer, blobs = P.read_frame(channel)
            if answer.get("ok"):
                return P.decode(answer.get("value"), blobs, child.resolve)
            raise _callback_error(answer.get("error"), shown or name)

        grader_function.__name__ = grader_function.__qualname__ = str(shown or name)[:100]
        return grader_function

    def saved(self, names):
        """What the student's namespace holds under ``names``, before stubs take their place."""
        return {n: self.ns[n] for n in names if n in self.ns}

    def restore(self, names, saved):
        """The student's namespace as it was before the stubs (a name it lacked, removed)."""
        for n in names:
            if n in saved:
                self.ns[n] = saved[n]
            else:
                self.ns.pop(n, None)

    def error_of(self, exc):
        """What the student's code raised, as the grader reads it: its type, message, and where
        in the student's cells (the last three lines, and the function it was raised in)."""
        tb = traceback.extract_tb(exc.__traceback__)
        where = [f"line {f.lineno} in {f.name}" for f in tb if _students_frame(f.filename)]
        mine = [f.name for f in tb if _students_frame(f.filename)]
        error = {"type": type(exc).__name__[:100], "message": str(exc)[:2000], "where": where[-3:]}
        if mine:
            error["function"] = str(mine[-1])[:100]  # the student's function it was raised in
        return error


def _plain_method(obj, name):
    """Whether ``obj.name`` is a function of ``obj``'s class, bound to it: found in a class's
    dict, not an instance attribute, with no ``__getattribute__`` of the class's own in the
    way. Then the grader may call the method again without first looking it up (``method``
    in a call): the worker looks again at the call, and says ``stale`` if it no longer is."""
    import types

    try:
        cls = type(obj)
        if isinstance(obj, type) or cls.__getattribute__ is not object.__getattribute__:
            return False
        for klass in type.__dict__["__mro__"].__get__(cls):
            found = type.__dict__["__dict__"].__get__(klass)
            if name in found:
                if type(found[name]) is not types.FunctionType:
                    return False
                break
        else:
            return False
        try:
            own = object.__getattribute__(obj, "__dict__")
        except AttributeError:  # __slots__
            return True
        return type(own) is dict and name not in own
    except Exception:  # noqa: BLE001 - whatever the student's class does: not plain
        return False


def _students_frame(filename):
    """Whether a traceback frame is of a notebook cell's code (the student's, or a locked cell's)."""
    return filename.startswith("<ipython-input") or filename.startswith("/tmp/ipykernel") or "ipython-input" in filename


# the exceptions a function of the grader's raises as themselves in the student's code (any other as RuntimeError)
_PASSED_ON = (
    "ArithmeticError",
    "AssertionError",
    "FloatingPointError",
    "IndexError",
    "KeyError",
    "LookupError",
    "OverflowError",
    "RuntimeError",
    "TypeError",
    "ValueError",
    "ZeroDivisionError",
)


def _callback_error(error, name):
    """The exception a function of the grader's raised, as the student's code sees it: the same
    built-in type (a few plain ones; RuntimeError for any other), saying whose function it was."""
    import builtins

    if not isinstance(error, dict):
        error = {"type": "RuntimeError", "message": str(error)[:500]}
    kind = str(error.get("type", "RuntimeError"))
    message = str(error.get("message", ""))[:1000]
    cls = getattr(builtins, kind) if kind in _PASSED_ON else RuntimeError
    text = f"in the grader's {name}: {kind}: {message}" if message else f"in the grader's {name}: {kind}"
    return cls(text)


def _one_line(exc):
    """``Type: message``, or just ``Type`` when the message is empty (``raise NotImplementedError()``)."""
    text = str(exc)[:500]
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
