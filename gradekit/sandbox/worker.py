"""The untrusted side: runs a submission's cells and answers calls, inside the sandbox.

Started as ``python -I worker.py --contained`` inside bubblewrap (or, with
--no-sandbox, as a plain child process), it imports numpy and IPython once and
then forks a child per submission (see :func:`main`). Each child talks to the
trusted grader over a socket of its own using :mod:`protocol`; the student's
prints go elsewhere so they can never be mistaken for a frame. A child runs
the student's code, so nothing it sends is trusted: the grader treats every
answer as hostile input.

Requests to a child (``op``):
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

import os
import signal
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


def _quiet_std_streams():
    """Point fds 0/1/2 at /dev/null: the student's prints can never look like a frame."""
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.close(null)


def main():
    """The zygote: import once, then fork one child per submission.

    The grader talks to the zygote over a control socket (fd 0). For each
    submission it sends ``spawn`` with a fresh socket (SCM_RIGHTS); the zygote
    forks a child that serves that socket only -- it closes the control
    socket before any student code runs -- and waits for it while listening
    for ``kill``. When the child is gone the zygote kills whatever it left
    behind (``kill(-1)`` inside the sandbox's pid namespace), wipes /tmp and
    answers ``idle``. So nothing of one submission survives into the next,
    and a student's processes never hold the control channel.
    """
    import select
    import shutil
    import socket

    contained = "--contained" in sys.argv
    control = socket.socket(fileno=os.dup(0))
    _quiet_std_streams()
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import protocol as P

    os.environ.setdefault("MPLBACKEND", "Agg")
    import numpy  # noqa: F401  (ready before student code, as in a notebook kernel)
    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance(colors="nocolor", history_length=0, cache_size=0)
    assert shell.history_manager is not None  # InteractiveShell.instance() made one
    shell.history_manager.enabled = False
    _skip_token_transforms_on_plain_python(shell)
    # the first run_cell costs ~0.2 s of lazy set-up: pay it here, once, not in every child
    shell.run_cell("import numpy as np\n_ = np.zeros(1).sum()", store_history=False)
    shell.reset(new_session=False)
    if contained:
        # children run as the same uid: make the zygote impossible for them to ptrace
        import ctypes

        ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE = 0
    channel = P.Channel(control)
    P.write_frame(channel, {"op": "ready"})
    while True:
        try:
            data, fds, _, _ = socket.recv_fds(control, 1 << 16, 2)  # the child's socket, its progress file
        except OSError:
            return
        if not data:
            return
        if not fds:
            continue
        work = os.path.join("/tmp", "work")
        os.makedirs(work, exist_ok=True)
        pid = _fork(contained)
        if pid is None:  # the process limit is exhausted even after a clean-up: report, carry on
            for fd in fds:
                os.close(fd)
            P.write_frame(channel, {"op": "idle", "status": -1})
            continue
        if pid == 0:
            try:
                control.close()
                os.setsid()
                os.chdir(work)
                serve(P.Channel(socket.socket(fileno=fds[0])), shell, P, _progress_map(fds[1:]))
            finally:
                os._exit(0)
        for fd in fds:
            os.close(fd)
        pidfd = os.pidfd_open(pid)
        killed = False
        watched: list[socket.socket | int] = [control, pidfd]
        while True:
            ready, _, _ = select.select(watched, [], [])
            if pidfd in ready:
                break
            msg = control.recv(1 << 16)
            if not msg:
                os.kill(pid, signal.SIGKILL)
                return
            if b"kill" in msg and not killed:
                killed = True
                os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
        os.close(pidfd)
        if contained:
            _kill_everything_else()
        else:
            try:
                os.killpg(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        for entry in os.listdir("/tmp") if contained else [work]:
            path = os.path.join("/tmp", entry) if contained else entry
            _wipe(path, shutil)
        code = os.waitstatus_to_exitcode(status)
        P.write_frame(channel, {"op": "idle", "status": code})


def _progress_map(fds):
    """The progress file (a memfd of the grader's), mapped; None without one."""
    if not fds:
        return None
    import mmap

    try:
        return mmap.mmap(fds[0], mmap.PAGESIZE)
    except (OSError, ValueError):
        return None
    finally:
        os.close(fds[0])


def _skip_token_transforms_on_plain_python(shell):
    """Let IPython re-tokenize a cell for its magics only when the cell is not plain Python.

    IPython's token transforms (``%magic``, ``a = %magic``, ``a = !cmd``,
    ``!cmd``, ``obj?``) all rewrite text that Python cannot parse, so on a
    cell that parses they change nothing -- yet tokenizing it in Python costs
    most of a cell's run time (about 0.7 ms a cell). A cell that does not
    parse still goes through every transform, as in a notebook.
    """
    import ast

    manager = shell.input_transformer_manager
    token_transforms = manager.do_token_transforms

    def do_token_transforms(lines):
        try:
            ast.parse("".join(lines))
        except Exception:  # noqa: BLE001 - SyntaxError, and whatever else: let IPython decide
            return token_transforms(lines)
        return lines

    manager.do_token_transforms = do_token_transforms


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


def _kill_everything_else():
    """SIGKILL every process in this pid namespace but its init and this one, until none is left.

    One kill(-1) can miss children forked while it runs (a fork loop), so repeat
    until the kernel finds nothing to signal.
    """
    for _ in range(200):
        try:
            os.kill(-1, signal.SIGKILL)
        except ProcessLookupError:
            return
        time.sleep(0.005)


def _fork(contained):
    """fork(), after clearing leftovers if the process limit is in the way; None if it stays full."""
    for attempt in range(5):
        try:
            return os.fork()
        except BlockingIOError:  # EAGAIN: the pids limit
            if contained:
                _kill_everything_else()
            time.sleep(0.05 * (attempt + 1))
    return None


def _wipe(path, shutil):
    def unlock(func, target, _exc):
        try:
            os.chmod(os.path.dirname(target), 0o700)
            os.chmod(target, 0o700)
            func(target)
        except OSError:
            pass

    try:
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path, onerror=unlock)
        else:
            os.unlink(path)
    except OSError:
        pass


def serve(channel, shell, P, progress=None):
    """Run one submission: answer requests on ``channel`` until it closes (``progress``: where a
    ``map`` notes the call it has started)."""
    proto_in = proto_out = channel
    writer = CappedWriter()
    sys.stdout = sys.stderr = writer
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
        where = [f"line {f.lineno} in {f.name}" for f in tb if _students_frame(f.filename)]
        mine = [f.name for f in tb if _students_frame(f.filename)]
        error = {"type": type(exc).__name__[:100], "message": str(exc)[:2000], "where": where[-3:]}
        if mine:
            error["function"] = str(mine[-1])[:100]  # the student's function it was raised in
        return error

    current: list = [None]  # the index of the map's call being made (None in a single call)

    def stub(name, shown=None):
        """A function of the grader's, as the student's code calls it: each call a callback."""

        def grader_function(*args, **kwargs):
            header = {"op": "callback", "name": name}
            if current[0] is not None:
                header["call"] = current[0]
            P.send(proto_out, header, {"args": list(args), "kwargs": kwargs}, keep=keep)
            answer, blobs = P.read_frame(proto_in)
            if answer.get("ok"):
                return P.decode(answer.get("value"), blobs, resolve)
            raise _callback_error(answer.get("error"), shown or name)

        grader_function.__name__ = grader_function.__qualname__ = str(shown or name)[:100]
        return grader_function

    def functions(tree):
        """A ``$fn`` argument: the student's function of that name; a ``$cb``: the grader's, as a stub."""
        if "$fn" in tree:
            name = tree["$fn"]
            if name not in ns:
                raise NameError(f"name '{name}' is not defined")
            return ns[name]
        return stub(tree["$cb"], tree["name"])

    def target_of(spec):
        value = P.decode(spec, [], resolve)
        if isinstance(value, str):
            if value not in ns:
                raise NameError(f"name '{value}' is not defined")
            return ns[value]
        return value

    def run_map(header, blobs):
        """The calls of a ``map``, one after another, as ``call`` runs each; the results go back
        in parts of about FLUSH_BLOBS bytes, the last one ``done``."""
        calls, batch, stop_at = header.get("calls"), header.get("batch"), header.get("stop_at")
        if type(calls) is not list or len(calls) > P.MAX_CALLS or type(batch) is not int:
            raise P.ProtocolError("bad map request")
        if stop_at is not None and type(stop_at) is not float:
            raise P.ProtocolError("bad map request")
        spec, attr = header.get("target"), header.get("attr")
        names = [n for n in header.get("reference", []) if isinstance(n, str)]
        saved = {n: ns[n] for n in names if n in ns}
        stubs = {n: stub(n) for n in names}
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
                started, mark = time.perf_counter(), len(out)
                try:
                    if type(call) is not dict:
                        raise P.ProtocolError("bad call")
                    target = target_of(spec)
                    if attr is not None:
                        target = getattr(target, str(attr))
                    current[0] = index
                    args = P.decode(call.get("args", {"$list": []}), blobs, resolve, functions=functions)
                    kwargs = P.decode(call.get("kwargs", {"$dict": {}}), blobs, resolve, functions=functions)
                    ns.update(stubs)
                    value = target(*args, **kwargs)
                    writer.take()
                    seconds = time.perf_counter() - started
                    try:
                        entry = {"ok": True, "value": P.encode(value, out, keep), "seconds": seconds}
                    except P.ProtocolError as exc:
                        del out[mark:]
                        entry = {"ok": False, "error": {"type": "UnsendableValue", "message": str(exc)}}
                except P.ProtocolError as exc:
                    entry = {"ok": False, "error": {"type": "ProtocolError", "message": str(exc)}}
                except BaseException as exc:  # the student's code raised: this call's result, go on
                    writer.take()
                    entry = {"ok": False, "error": error_of(exc)}
                results.append(entry)
                size += sum(len(b) for b in out[mark:])
                if size >= P.FLUSH_BLOBS:
                    P.write_frame(proto_out, {"results": results, "first": first, "done": False}, out)
                    first += len(results)
                    results, out, size = [], [], 0
        finally:
            current[0] = None
            for n in names:
                if n in saved:
                    ns[n] = saved[n]
                else:
                    ns.pop(n, None)
        P.write_frame(proto_out, {"results": results, "first": first, "done": True, "stopped": stopped}, out)

    while True:
        try:
            header, blobs = P.read_frame(proto_in)
        except (EOFError, OSError):
            return
        op = header.get("op")
        if op == "exit":
            return
        started = time.perf_counter()
        try:
            if op == "call" or op == "getattr" or op == "len":  # the most common first
                target = target_of(header.get("target"))
                if op == "len":
                    reply({"ok": True}, {"value": len(target)})
                    continue
                attr = header.get("attr")
                if attr is not None:
                    attr = str(attr)
                    if op == "getattr":
                        method = _plain_method(target, attr)
                        reply({"ok": True, "method": method}, {"value": getattr(target, attr)})
                        continue
                    if header.get("method") is True and not _plain_method(target, attr):
                        reply({"ok": False, "stale": True})  # no longer what the grader was told
                        continue
                    target = getattr(target, attr)
                elif op == "getattr":
                    reply({"ok": True, "method": False}, {"value": target})
                    continue
                args = P.decode(header.get("args", {"$list": []}), blobs, resolve, functions=functions)
                kwargs = P.decode(header.get("kwargs", {"$dict": {}}), blobs, resolve, functions=functions)
                names = header.get("reference")
                if not names:
                    value = target(*args, **kwargs)
                else:
                    names = [n for n in names if isinstance(n, str)]
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
                reply({"ok": True, "seconds": time.perf_counter() - started}, {"value": value})
            elif op == "run":
                results = []
                for index, cell in enumerate(header.get("cells", [])):
                    P.write_frame(proto_out, {"op": "progress", "index": index})
                    try:
                        res = shell.run_cell(cell.get("source", ""), store_history=False)
                        err = res.error_before_exec or res.error_in_exec
                        entry = {
                            "id": cell.get("id"),
                            "ok": err is None,
                            "error": None if err is None else _one_line(err),
                        }
                    except BaseException as exc:  # SystemExit, KeyboardInterrupt raised oddly
                        entry = {"id": cell.get("id"), "ok": False, "error": _one_line(exc)}
                    entry["output"] = writer.take()
                    results.append(entry)
                reply({"ok": True, "cells": results, "seconds": time.perf_counter() - started})
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
            elif op == "get":
                name = header.get("name")
                if not isinstance(name, str) or name not in ns:
                    raise NameError(f"name '{name}' is not defined")
                reply({"ok": True}, {"value": ns[name]})
            elif op == "map":
                run_map(header, blobs)
            else:
                reply({"ok": False, "error": {"type": "ProtocolError", "message": f"unknown op {op!r}"}})
        except P.ProtocolError as exc:
            reply({"ok": False, "error": {"type": "ProtocolError", "message": str(exc)}})
        except BaseException as exc:  # the student's code raised: report it, keep serving
            writer.take()
            reply({"ok": False, "error": error_of(exc)})


if __name__ == "__main__":
    main()
