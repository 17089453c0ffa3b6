"""The untrusted side: runs a submission's cells and answers calls, inside the sandbox.

Started as ``python -I worker.py`` inside bubblewrap (or, with --no-sandbox, as
a plain child process). It talks to the trusted grader over its original
stdin/stdout using :mod:`protocol`; the student's own prints go elsewhere so
they can never be mistaken for a frame. Everything here runs in the same
process as the student's code, so nothing here is trusted: the grader treats
every answer as hostile input.

Requests (``op``):
    run      {"cells": [{"id", "source"}]}     -> {"cells": [{"id", "ok", "error", "output"}]}
    has      {"name"}                         -> {"kind": "function"|"class"|"value"|"missing"}
    call     {"target", "attr"?, "args", "kwargs", "reference"?: [names]}
    getattr  {"target", "attr"}
    len      {"target"}
While a ``call`` runs, the worker may send ``{"op": "callback", "name", "args",
"kwargs"}`` for a name listed in ``reference``; the grader answers with the
reference implementation's result.
"""

import os
import signal
import sys
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
        text = "".join(self.parts)
        if self.dropped:
            text += f"\n[... {self.dropped} more characters of output dropped]"
        self.parts, self.size, self.dropped = [], 0, 0
        return text


def _channel():
    """Keep private copies of stdin/stdout for the protocol; point 0/1/2 elsewhere."""
    proto_in = os.fdopen(os.dup(0), "rb", buffering=0)
    proto_out = os.fdopen(os.dup(1), "wb")
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    out = os.open(os.devnull, os.O_WRONLY)
    os.dup2(out, 1)
    os.dup2(out, 2)
    return proto_in, proto_out


def main():
    proto_in, proto_out = _channel()
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import protocol as P

    writer = CappedWriter()
    sys.stdout = sys.stderr = writer
    os.environ.setdefault("MPLBACKEND", "Agg")
    import numpy  # noqa: F401  (imported before student code, as a notebook kernel would have it ready)
    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance(colors="nocolor", history_length=0, cache_size=0)
    shell.history_manager.enabled = False
    ns = shell.user_ns
    table = {}

    def keep(obj):
        table[id(obj)] = obj
        return id(obj)

    def resolve(handle):
        if handle.id not in table:
            raise P.ProtocolError("unknown handle")
        return table[handle.id]

    def reply(header, values=None):
        try:
            P.send(proto_out, header, values, keep=keep)
        except P.ProtocolError as exc:
            P.send(proto_out, {"ok": False, "error": {"type": "UnsendableValue", "message": str(exc)}})

    def error_of(exc):
        tb = traceback.extract_tb(exc.__traceback__)
        where = [f"line {f.lineno} in {f.name}" for f in tb if f.filename.startswith("<ipython-input")
                 or f.filename.startswith("/tmp/ipykernel") or "ipython-input" in f.filename][-3:]
        return {"type": type(exc).__name__[:100], "message": str(exc)[:2000], "where": where}

    def stub(name):
        def reference_helper(*args, **kwargs):
            P.send(proto_out, {"op": "callback", "name": name}, {"args": list(args), "kwargs": kwargs}, keep=keep)
            header, blobs = P.read_frame(proto_in)
            if header.get("ok"):
                return P.decode(header.get("value"), blobs, resolve)
            raise RuntimeError(str(header.get("error", "reference helper failed")))
        reference_helper.__name__ = name
        return reference_helper

    def target_of(spec):
        value = P.decode(spec, [], resolve)
        if isinstance(value, str):
            if value not in ns:
                raise NameError(f"name '{value}' is not defined")
            return ns[value]
        return value

    while True:
        try:
            header, blobs = P.read_frame(proto_in)
        except EOFError:
            return
        op = header.get("op")
        try:
            if op == "run":
                results = []
                for cell in header.get("cells", []):
                    try:
                        res = shell.run_cell(cell.get("source", ""), store_history=False)
                        err = res.error_before_exec or res.error_in_exec
                        entry = {"id": cell.get("id"), "ok": err is None,
                                 "error": None if err is None else f"{type(err).__name__}: {str(err)[:500]}"}
                    except BaseException as exc:  # SystemExit, KeyboardInterrupt raised oddly
                        entry = {"id": cell.get("id"), "ok": False, "error": f"{type(exc).__name__}: {str(exc)[:500]}"}
                    entry["output"] = writer.take()
                    results.append(entry)
                reply({"ok": True, "cells": results})
            elif op == "has":
                name = header.get("name")
                if name not in ns:
                    kind = "missing"
                elif isinstance(ns[name], type):
                    kind = "class"
                elif callable(ns[name]):
                    kind = "function"
                else:
                    kind = "value"
                reply({"ok": True, "kind": kind})
            elif op in ("call", "getattr", "len"):
                target = target_of(header.get("target"))
                if op == "len":
                    reply({"ok": True}, {"value": len(target)})
                    continue
                if header.get("attr") is not None:
                    target = getattr(target, str(header["attr"]))
                if op == "getattr":
                    reply({"ok": True}, {"value": target})
                    continue
                args = P.decode(header.get("args", {"$list": []}), blobs, resolve)
                kwargs = P.decode(header.get("kwargs", {"$dict": {}}), blobs, resolve)
                names = [n for n in header.get("reference", []) if isinstance(n, str)]
                saved = {n: ns[n] for n in names if n in ns}
                try:
                    for n in names:
                        ns[n] = stub(n)
                    value = target(*args, **kwargs)
                finally:
                    for n in names:
                        if n in saved:
                            ns[n] = saved[n]
                        else:
                            ns.pop(n, None)
                writer.take()
                reply({"ok": True}, {"value": value})
            else:
                reply({"ok": False, "error": {"type": "ProtocolError", "message": f"unknown op {op!r}"}})
        except P.ProtocolError as exc:
            reply({"ok": False, "error": {"type": "ProtocolError", "message": str(exc)}})
        except BaseException as exc:  # the student's code raised: report it, keep serving
            writer.take()
            reply({"ok": False, "error": error_of(exc)})


if __name__ == "__main__":
    main()
