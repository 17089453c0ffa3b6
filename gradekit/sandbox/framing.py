"""A request's frames on the trusted side: how it is written, and how its reply is read.

A request goes to the submission's child as one frame (:mod:`gradekit.sandbox.protocol`),
its values encoded -- what stands for the student's and the grader's functions and objects
as :mod:`gradekit.sandbox.crossing` says. Its reply may come after frames of two other
kinds, which :func:`next_reply` handles on the way: a callback (the student's code calling a
function of the grader's; answered, see :mod:`gradekit.sandbox.callbacks`) and, while cells
run, the index of the cell that starts. A ``map`` (many calls of one function) goes in
requests of at most ``MAX_CALLS`` calls and about ``FLUSH_BLOBS`` bytes of arrays
(:func:`chunk`, :func:`map_request`), and its results come back in parts
(:func:`map_entries`).

While a map runs, the child notes the call it has started in a progress file, a memfd the
grader made and sealed (:func:`progress_file`, read by :func:`progress_note`): the grader
holds each call to its own deadline without being woken once a call. The student's code can
write there too, so a note is believed only as far as it shortens nothing.
"""

from __future__ import annotations

import fcntl
import os
import time
from collections.abc import Callable, Mapping
from typing import Any, cast

from gradekit.errors import BoundaryError, CodeFailure, StudentCodeError
from gradekit.sandbox import protocol as P
from gradekit.sandbox.crossing import cannot_cross, special

# one call of a map, encoded: (its index among the map's calls, args, kwargs, its arrays)
Encoded = tuple[int, Any, Any, list[bytes]]


def frame(header: dict, values: dict, callbacks: dict[str, Callable]) -> bytes:
    """A request's frame, its values encoded -- the grader's functions among them entered in
    ``callbacks`` -- or the BoundaryError of a value that cannot cross."""
    blobs: list[bytes] = []
    header = dict(header)
    encoded = special(callbacks)
    try:
        for key, value in values.items():
            header[key] = P.encode(value, blobs, special=encoded)
    except P.ProtocolError as exc:
        raise BoundaryError(cannot_cross(exc)) from None
    return P.pack(header, blobs)


def next_reply(
    channel: P.Channel,
    answer: Callable[[P.Channel, dict, list[bytes], Mapping[str, Callable]], None],
    functions: Mapping[str, Callable],
    progress: Callable[[int], None] | None = None,
) -> tuple[dict, list[bytes]]:
    """The next frame of a request's reply: the callbacks before it answered (``answer``, with the
    grader's ``functions``) and, given ``progress``, the cells' progress told to it (without it a
    progress frame is a reply)."""
    while True:
        reply, blobs = P.read_frame(channel)
        op = reply.get("op")
        if op == "callback":
            answer(channel, reply, blobs, functions)
        elif op == "progress" and progress is not None:
            index = reply.get("index")
            if isinstance(index, int):
                progress(index)
        else:
            return reply, blobs


def no_progress(index: int) -> None:
    """A request's ``progress`` when no one is told: its progress frames are skipped."""


def raised(reply: dict) -> StudentCodeError:
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


# -- a map -------------------------------------------------------------------------------------


def chunk(todo: list[Encoded]) -> list[Encoded]:
    """The first calls of ``todo`` that go in one map request: at most MAX_CALLS, and no more
    than about FLUSH_BLOBS bytes of arrays (at least one call, whatever its size)."""
    calls: list[Encoded] = []
    size = 0
    for item in todo[: P.MAX_CALLS]:
        size += sum(len(b) for b in item[3])
        if calls and size > P.FLUSH_BLOBS:
            break
        calls.append(item)
    return calls


def map_request(
    target: str, calls: list[Encoded], reference: Mapping[str, Callable], batch: int, stop_at: float | None
) -> tuple[dict, list[bytes]]:
    """The header and arrays of one map request: ``calls`` of ``target``, the grader's functions
    among their arguments numbered anew in this request's arrays."""
    blobs: list[bytes] = []
    encoded = []
    for _index, args, kwargs, own in calls:
        shift = len(blobs)
        blobs.extend(own)
        encoded.append({"args": _shifted(args, shift), "kwargs": _shifted(kwargs, shift)})
    header = {
        "op": "map",
        "target": target,
        "reference": sorted(name for name in reference if not name.startswith("#")),
        "batch": batch,
        "stop_at": None if stop_at is None else float(stop_at),
        "calls": encoded,
    }
    return header, blobs


def map_entries(reply: dict, answered: int, calls: int) -> list:
    """The results a part of a map's reply carries, checked: it goes on from the ``answered``
    calls before it, within the request's ``calls``."""
    entries, first = reply.get("results"), reply.get("first")
    if type(entries) is not list or first != answered or answered + len(entries) > calls:
        raise P.ProtocolError("bad reply to map")
    return entries


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


# -- a map's progress ---------------------------------------------------------------------------


def progress_file() -> int:
    """A child's progress file: a memfd of one note, sealed so that the child can neither grow
    nor shrink it (the grader reads it with pread, never through a mapping it could truncate)."""
    fd = os.memfd_create("gradekit-progress", os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
    os.ftruncate(fd, os.sysconf("SC_PAGE_SIZE"))
    fcntl.fcntl(fd, fcntl.F_ADD_SEALS, fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW | fcntl.F_SEAL_SEAL)
    return fd


def progress_note(progress: int | None, batch: int, calls: int, sent: float) -> tuple[int, float] | None:
    """(index, started) of the call this batch's child says it has started, if it says so
    believably: of this batch, of one of its calls, started since the batch was sent and
    not in the future. A note being written is read again."""
    if progress is None:
        return None
    for _attempt in range(3):
        try:
            note = P.read_progress(os.pread(progress, P.PROGRESS.size, 0))
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


def failed_call(progress: int | None, batch: int, calls: int, sent: float, answered: int) -> int:
    """Which call of a batch that stopped short hung or crashed: the one its progress note
    names, if it is one that had not answered; else the first that had not."""
    note = progress_note(progress, batch, calls, sent)
    if note is not None and note[0] >= answered:
        return note[0]
    return answered
