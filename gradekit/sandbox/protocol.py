"""The narrow protocol between the trusted grader and the sandboxed student code.

Only plain data crosses: JSON for structure and numbers, ``.npy`` bytes read
with ``allow_pickle=False`` for arrays. Never pickle. A frame is::

    4-byte big-endian header length | JSON header | blob 0 | blob 1 | ...

where ``header["blobs"]`` lists the byte length of each blob. Values inside a
header are JSON trees in which these objects are special:

    {"$nd": i}                 array i, stored as .npy in blob i
    {"$tuple": [...]}          a tuple
    {"$list": [...]}           a list
    {"$dict": {...}}           a dict with string keys
    {"$obj": id, "type": t}    a handle to an object that stays in the sandbox
    {"$float": "nan"|"inf"|"-inf"}

Two more go one way only, from the grader to the sandbox, as arguments of a call
(the grader's decoder refuses them: nothing the sandbox sends can name a function
for the grader to run):

    {"$fn": name}              the student's own function ``name`` (their namespace's)
    {"$cb": key, "name": n}    a function of the grader's: calling it in the sandbox sends
                               ``{"op": "callback", "name": key}`` and waits for the grader's
                               answer (the grader runs its own function on plain data)

This module is imported on both sides, and inside the sandbox it is loaded
from a read-only bind mount without the rest of gradekit: it may only import
the standard library and numpy.
"""

from __future__ import annotations

import io
import json
import math
import re
import select
import struct
import time
from collections.abc import Callable, Sequence
from typing import cast

import numpy as np

MAX_HEADER = 4 << 20  # 4 MiB of JSON
MAX_BLOBS = 64 << 20  # 64 MiB of arrays per frame
MAX_DEPTH = 16
MAX_ITEMS = 1_000_000
MAX_STR = 100_000
MAX_CALLS = 1000  # calls in one ``map`` request
FLUSH_BLOBS = 8 << 20  # a ``map`` reply is sent in parts of about this many bytes of arrays
NUMERIC_KINDS = "biuf"


class ProtocolError(Exception):
    """A frame or value that breaks the protocol's rules."""


class Handle:
    """A reference to an object living on the other side (only ids cross)."""

    __slots__ = ("id", "type")

    def __init__(self, id: int, type: str = "object") -> None:
        self.id = id
        self.type = type


# -- frames -----------------------------------------------------------------

_ENCODER = json.JSONEncoder(separators=(",", ":"))
_DECODER = json.JSONDecoder()
try:  # json's C encoder, built once: JSONEncoder.encode builds one per call (a third of a frame's cost);
    # no circular-reference markers: a header comes from encode(), whose depth is bounded
    from json.encoder import c_make_encoder as _c_make_encoder  # type: ignore[attr-defined]  # not in typeshed
    from json.encoder import encode_basestring_ascii as _ascii

    _C_ENCODE = (
        _c_make_encoder(None, _ENCODER.default, _ascii, None, ":", ",", False, False, True)
        if _c_make_encoder is not None and _ascii is not None
        else None
    )
except ImportError:  # pragma: no cover - a Python without the _json accelerator
    _C_ENCODE = None


def _json(header: dict) -> str:
    """``_ENCODER.encode(header)``: the same text."""
    if _C_ENCODE is None:
        return _ENCODER.encode(header)
    return "".join(_C_ENCODE(header, 0))


def pack(header: dict, blobs: Sequence[bytes] = ()) -> bytes:
    """A frame's bytes: ``header`` (the caller's own copy: its ``blobs`` are set here), then the blobs."""
    header["blobs"] = [len(b) for b in blobs]
    data = _json(header).encode()
    return b"".join((_SIZE.pack(len(data)), data, *blobs))


def write_frame(fh, header: dict, blobs: Sequence[bytes] = ()) -> None:
    fh.write(pack(dict(header), blobs))
    fh.flush()


class Channel:
    """Frame I/O on a connected socket, with buffered reads.

    The other side writes a frame with one ``sendall``, so it usually arrives
    whole: reading it costs one ``recv`` (plus one ``select`` when a deadline
    is set) instead of one per field. Unread bytes stay in the buffer for the
    next frame, so keep one Channel per socket for the socket's lifetime.
    ``deadline`` (a ``time.monotonic()`` value, or None to block) bounds every
    wait; a read past it raises TimeoutError, unless ``renew`` (when set) returns
    a later deadline to wait until instead.
    """

    CHUNK = 1 << 16

    def __init__(self, sock) -> None:
        self.sock = sock
        self.deadline: float | None = None
        self.renew: Callable[[], float | None] | None = None
        self._buf = b""
        self._pos = 0

    def read(self, n: int) -> bytes:
        if self._pos >= len(self._buf):
            if self.deadline is not None:
                self._wait()
            self._buf = self.sock.recv(min(max(n, self.CHUNK), 1 << 20))
            self._pos = 0
        chunk = self._buf[self._pos : self._pos + n] if self._pos or len(self._buf) > n else self._buf
        self._pos += len(chunk)
        return chunk

    def write(self, data: bytes) -> None:
        self.sock.sendall(data)

    def flush(self) -> None:
        pass

    def read_frame(self) -> tuple[dict, list[bytes]]:
        """One frame, checked as :func:`read_frame` checks it, parsed in the buffer."""
        have = len(self._buf) - self._pos
        if have < 4:
            self._fill(4, have)
        (size,) = _SIZE.unpack_from(self._buf, self._pos)
        if size > MAX_HEADER:
            raise ProtocolError(f"header of {size} bytes is over the limit")
        end = self._pos + 4 + size
        if len(self._buf) < end:
            self._fill(4 + size, len(self._buf) - self._pos)
            end = 4 + size
        try:
            header = _DECODER.decode(self._buf[end - size : end].decode())
        except ValueError as exc:
            raise ProtocolError(f"header is not JSON: {exc}") from None
        self._pos = end
        sizes = _blob_sizes(header)
        if not sizes:
            return header, []
        total = sum(sizes)
        if len(self._buf) - end < total:
            self._fill(total, len(self._buf) - end)
        pos, buf, blobs = self._pos, self._buf, []
        for size in sizes:
            blobs.append(buf[pos : pos + size])
            pos += size
        self._pos = pos
        return header, blobs

    def _wait(self) -> None:
        """Until the socket can be read; TimeoutError once the deadline (renewed or not) has passed."""
        deadline = cast(float, self.deadline)
        while True:
            left = deadline - time.monotonic()
            if left > 0 and select.select([self.sock], [], [], left)[0]:
                return
            later = self.renew() if self.renew is not None else None
            if later is None or later <= deadline:
                raise TimeoutError
            self.deadline = deadline = later

    def _fill(self, n: int, have: int) -> None:
        """Read until at least ``n`` bytes are unread (``have`` are), keeping them from ``_pos`` = 0."""
        parts = [self._buf[self._pos :]] if have else []
        while have < n:
            if self.deadline is not None:
                self._wait()
            data = self.sock.recv(min(max(n - have, self.CHUNK), 1 << 20))
            if not data:
                raise EOFError("the other side closed the channel")
            parts.append(data)
            have += len(data)
        self._buf, self._pos = (parts[0] if len(parts) == 1 else b"".join(parts)), 0


_SIZE = struct.Struct(">I")


def _blob_sizes(header) -> list[int]:
    if not isinstance(header, dict):
        raise ProtocolError("header is not an object")
    sizes = header.get("blobs", [])
    if not isinstance(sizes, list) or not all(isinstance(s, int) and s >= 0 for s in sizes):
        raise ProtocolError("bad blob list")
    if sum(sizes) > MAX_BLOBS:
        raise ProtocolError(f"{sum(sizes)} bytes of arrays is over the limit")
    return sizes


def read_exact(fh, n: int) -> bytes:
    chunks, got = [], 0
    while got < n:
        chunk = fh.read(n - got)
        if not chunk:
            raise EOFError("the other side closed the channel")
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def read_frame(fh) -> tuple[dict, list[bytes]]:
    if type(fh) is Channel:
        return fh.read_frame()
    (size,) = struct.unpack(">I", read_exact(fh, 4))
    if size > MAX_HEADER:
        raise ProtocolError(f"header of {size} bytes is over the limit")
    try:
        header = _DECODER.decode(read_exact(fh, size).decode())
    except ValueError as exc:
        raise ProtocolError(f"header is not JSON: {exc}") from None
    return header, [read_exact(fh, s) for s in _blob_sizes(header)]


# -- values -----------------------------------------------------------------


def encode(value, blobs: list[bytes], keep=None, _depth: int = 0, special=None):
    """Turn a value into a JSON tree plus blobs. ``keep(obj) -> id`` stores anything else (the
    sandbox's side); ``special(obj) -> tree | None`` encodes what the grader's side may send besides
    plain data (the student's functions and objects, the grader's functions: ``$fn``, ``$obj``,
    ``$cb``), None for anything that cannot cross."""
    if _depth > MAX_DEPTH:
        raise ProtocolError("value nested too deeply")
    kind = type(value)
    # the exact built-in types first: nearly everything that crosses is one of these
    if kind is np.ndarray:
        return _encode_array(value, blobs)
    if kind is float:
        return value if math.isfinite(value) else {"$float": repr(value)}
    if kind is int:
        if abs(value) >= 2**63:
            raise ProtocolError("integer too large")
        return value
    if value is None or kind is bool:
        return value
    if kind is tuple or kind is list:
        if len(value) > MAX_ITEMS:
            raise ProtocolError("sequence too long")
        return {"$tuple" if kind is tuple else "$list": [encode(v, blobs, keep, _depth + 1, special) for v in value]}
    if kind is dict and all(type(k) is str for k in value):
        return {"$dict": {k: encode(v, blobs, keep, _depth + 1, special) for k, v in value.items()}}
    # then subclasses, numpy scalars and handles
    if isinstance(value, str):
        if len(value) > MAX_STR:
            raise ProtocolError("string too long")
        return value
    if isinstance(value, Handle):
        return {"$obj": value.id, "type": value.type}
    if isinstance(value, np.generic) and type(value).__module__ == "numpy":
        if value.dtype.kind in NUMERIC_KINDS:
            return encode(value.item(), blobs, keep, _depth + 1)
    if isinstance(value, np.ndarray):
        return _encode_array(np.array(value, copy=True, subok=False), blobs)  # a plain ndarray, whatever came in
    if special is not None:
        tree = special(value)
        if tree is not None:
            return tree
    if keep is not None:
        return {"$obj": keep(value), "type": type(value).__name__[:100]}
    raise ProtocolError(f"a value of type {type(value).__name__} cannot cross the sandbox boundary")


def _encode_array(arr: np.ndarray, blobs: list[bytes]) -> dict:
    if arr.dtype.kind not in NUMERIC_KINDS:
        raise ProtocolError(f"arrays of dtype {arr.dtype} cannot cross")
    if arr.nbytes > MAX_BLOBS:
        raise ProtocolError("array too large")
    blobs.append(npy_bytes(arr))
    return {"$nd": len(blobs) - 1}


def decode(tree, blobs: list[bytes], resolve=None, _depth: int = 0, functions=None):
    """Inverse of :func:`encode`; arrays are loaded with ``allow_pickle=False``. ``functions(tree)``
    turns a ``$fn`` or ``$cb`` into a callable (the sandbox's side only: without it, as on the
    grader's side, either is a ProtocolError)."""
    if _depth > MAX_DEPTH:
        raise ProtocolError("value nested too deeply")
    kind = type(tree)
    if kind is not dict:
        if tree is None or kind in (bool, str, int, float):
            return tree
        if isinstance(tree, list):
            raise ProtocolError("bare JSON list")
        raise ProtocolError("malformed value")
    if len(tree) not in (1, 2):
        raise ProtocolError("malformed value")
    if "$nd" in tree:
        index = tree["$nd"]
        if type(index) is not int or not 0 <= index < len(blobs):
            raise ProtocolError("bad array reference")
        arr = npy_array(blobs[index])
        if type(arr) is not np.ndarray or arr.dtype.kind not in NUMERIC_KINDS or arr.dtype.hasobject:
            raise ProtocolError("array of a forbidden dtype")
        return arr
    items = tree.get("$tuple", tree.get("$list"))
    if items is not None or "$tuple" in tree or "$list" in tree:
        if type(items) is not list or len(items) > MAX_ITEMS:
            raise ProtocolError("bad sequence")
        out = [decode(v, blobs, resolve, _depth + 1, functions) for v in items]
        return tuple(out) if "$tuple" in tree else out
    if "$float" in tree:
        if tree["$float"] not in ("nan", "inf", "-inf"):
            raise ProtocolError("bad float")
        return float(tree["$float"])
    if "$dict" in tree:
        items = tree["$dict"]
        if type(items) is not dict:
            raise ProtocolError("bad dict")
        return {str(k): decode(v, blobs, resolve, _depth + 1, functions) for k, v in items.items()}
    if "$obj" in tree:
        if type(tree["$obj"]) is not int:
            raise ProtocolError("bad handle")
        handle = Handle(tree["$obj"], str(tree.get("type", "object"))[:100])
        return resolve(handle) if resolve is not None else handle
    if functions is not None and (
        (type(tree.get("$fn")) is str and len(tree) == 1)
        or (type(tree.get("$cb")) is str and type(tree.get("name")) is str and len(tree) == 2)
    ):
        return functions(tree)
    raise ProtocolError("unknown value tag")


# -- .npy, the fast way ----------------------------------------------------------
# np.save/np.load parse the .npy header with ast.literal_eval: a quarter of a
# millisecond per array, and a grading run moves hundreds. The format is simple
# enough to write and read directly for the plain, C-ordered numeric arrays that
# cross here; anything else falls back to numpy's own reader (allow_pickle=False).

_NPY_MAGIC = b"\x93NUMPY\x01\x00"
_NPY_HEADER = re.compile(
    rb"\{'descr': '([<>|][biuf][0-9]{1,2})', 'fortran_order': False, "
    rb"'shape': \(((?:[0-9]+, ?)*(?:[0-9]+)?)\), \} *\n"
)


# the same few shapes cross again and again: their headers are made and parsed once
_CACHE_SIZE = 4096
_HEADER_OF: dict[tuple, bytes] = {}
_LAYOUT_OF: dict[bytes, tuple] = {}


def npy_bytes(arr: np.ndarray) -> bytes:
    """A numeric array as .npy (format 1.0) bytes, C order (``tobytes`` writes C order whatever
    the array's layout)."""
    key = (arr.dtype.str, arr.shape)
    prefix = _HEADER_OF.get(key)
    if prefix is None:
        shape = repr(tuple(int(n) for n in arr.shape))
        text = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (arr.dtype.str, shape)  # noqa: UP031 - numpy's own
        pad = 64 - (len(_NPY_MAGIC) + 2 + len(text) + 1) % 64
        header = (text + " " * (pad % 64) + "\n").encode("latin1")
        prefix = _NPY_MAGIC + struct.pack("<H", len(header)) + header
        if len(_HEADER_OF) < _CACHE_SIZE:
            _HEADER_OF[key] = prefix
    return prefix + arr.tobytes()


def npy_array(blob: bytes) -> np.ndarray:
    """Read .npy bytes: numeric dtypes only, never pickles."""
    if blob[:8] == _NPY_MAGIC and len(blob) >= 10:
        (size,) = struct.unpack("<H", blob[8:10])
        header = blob[10 : 10 + size]
        layout = _LAYOUT_OF.get(header)
        if layout is None:
            match = _NPY_HEADER.fullmatch(header)
            if match:
                dtype = np.dtype(match.group(1).decode())
                shape = tuple(int(n) for n in match.group(2).replace(b" ", b"").split(b",") if n)
                count = 1
                for n in shape:
                    count *= n
                layout = (dtype, shape, count)
                if len(_LAYOUT_OF) < _CACHE_SIZE:
                    _LAYOUT_OF[header] = layout
        if layout is not None:
            dtype, shape, count = layout
            data = blob[10 + size :]
            if len(data) != count * dtype.itemsize:
                raise ProtocolError("array data does not match its header")
            return np.frombuffer(data, dtype=dtype, count=count).reshape(shape).copy()
    try:
        return np.load(io.BytesIO(blob), allow_pickle=False)
    except Exception as exc:
        raise ProtocolError(f"bad array: {exc}") from None


def send(fh, header: dict, values: dict | None = None, keep=None) -> None:
    """Write a frame whose ``values`` entries are encoded (arrays become blobs)."""
    if not values:
        write_frame(fh, header)
        return
    blobs: list[bytes] = []
    header = dict(header)
    for key, value in values.items():
        header[key] = encode(value, blobs, keep)
    fh.write(pack(header, blobs))
    fh.flush()


# -- the progress of a ``map`` ------------------------------------------------------
# While it runs a batch of calls, the worker notes in a small shared memory file (a memfd the
# grader made, one per child) which call it has started, and when (CLOCK_MONOTONIC, the same
# clock on both sides): (batch, index, time, batch ^ index). Writing it is a memory store, so
# the grader is not woken once a call; it reads the note only when a deadline passes, to hold
# each call of the batch to a deadline of its own. The student's code can write there too: the
# grader trusts a note only as far as it shortens nothing it would otherwise allow (see
# gradekit.sandbox.framing).

PROGRESS = struct.Struct("<qqdq")


def write_progress(buf, batch: int, index: int, started: float) -> None:
    PROGRESS.pack_into(buf, 0, batch, index, started, batch ^ index)


def read_progress(data: bytes) -> tuple[int, int, float] | None:
    """(batch, index, started) from a progress note, or None when it is not one."""
    if len(data) < PROGRESS.size:
        return None
    batch, index, started, check = PROGRESS.unpack_from(data)
    if check != batch ^ index or not math.isfinite(started):
        return None
    return batch, index, started
