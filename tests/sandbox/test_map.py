"""gradekit.sandbox.client.Sandbox.map: many calls of one function in one request, in bubblewrap.

A batch must answer as the same calls one after another would: each call within
its own deadline, a crash or a hang costing that call only, the budget's end
stopping the calls that would start after it -- and the protocol's limits kept
(requests split, replies in parts, a student's forged frames or progress notes
bounded).
"""

from __future__ import annotations

import textwrap
import time

import numpy as np
import pytest

from gradekit.errors import BoundaryError, CodeFailure
from gradekit.sandbox import protocol as P
from gradekit.sandbox.bwrap import bwrap_path
from gradekit.sandbox.client import NotRun, Sandbox, SandboxCrashed, SandboxTimeout, StudentCodeError
from gradekit.sandbox.limits import Limits

pytestmark = pytest.mark.skipif(bwrap_path() is None, reason="bubblewrap is not installed")

CODE = textwrap.dedent('''
    import os, socket, struct, time
    import numpy as np

    calls = []

    def f(x, scale=2):
        calls.append(x)
        tag = x if isinstance(x, str) else None
        if tag == "hang":
            while True:
                pass
        if tag == "die":
            os._exit(3)
        if tag == "raise":
            raise ValueError("no " + str(len(calls)))
        if tag == "slow":
            time.sleep(0.6)
            return "slow"
        if tag == "object":
            return object()
        if tag == "long":
            return "x" * 200_000
        return x * scale

    def made():
        return list(calls)

    def big(n):
        return np.ones(n, dtype=np.uint8)

    def garble():
        """Write a frame's worth of garbage on every socket this process holds."""
        for fd in range(3, 64):
            try:
                if socket.socket(fileno=os.dup(fd)).type == socket.SOCK_STREAM:
                    os.write(fd, struct.pack(">I", 5) + b"{nope")
            except OSError:
                pass
        return "garbled"

    def forge_and_hang(n):
        """Hang, writing a fresh progress note for call after call, as if the batch moved on."""
        import mmap, sys
        frame, note = sys._getframe(), None
        while frame is not None and note is None:
            note = frame.f_locals.get("progress")
            frame = frame.f_back
        assert isinstance(note, mmap.mmap)
        batch = struct.unpack_from("<q", note)[0]
        while True:
            index = n - 1
            struct.pack_into("<qqdq", note, 0, batch, index, time.monotonic(), batch ^ index)
            time.sleep(0.05)
''')


def _sandbox(**limits) -> Sandbox:
    sb = Sandbox(Limits(**({"call_timeout": 1.0, "cell_timeout": 10.0} | limits)))
    results = sb.run_cells([{"id": "code", "source": CODE}])
    assert all(r["ok"] for r in results), results
    return sb


@pytest.fixture
def sb():
    sandbox = _sandbox()
    yield sandbox
    sandbox.shutdown()


def _values(outcomes):
    return [value if ok else type(value).__name__ for ok, value in outcomes]


def test_the_results_of_the_calls_in_order_in_one_request(sb):
    before = sb.batches
    outcomes = sb.map("f", [((1,), {}), ((2,), {"scale": 10}), ((np.arange(3),), {})])
    assert sb.batches == before + 1
    assert [ok for ok, _ in outcomes] == [True, True, True]
    assert outcomes[0][1] == 2 and outcomes[1][1] == 20
    assert outcomes[2][1].tolist() == [0, 2, 4]
    made = sb.call("made")
    assert made[:2] == [1, 2] and made[2].tolist() == [0, 1, 2] and len(made) == 3
    assert sb.map("f", []) == []


def test_a_call_that_raises_costs_only_its_result(sb):
    outcomes = sb.map("f", [((1,), {}), (("raise",), {}), ((3,), {})])
    assert _values(outcomes) == [2, "StudentCodeError", 6]
    error = outcomes[1][1]
    assert error.failure is CodeFailure.RAISED and error.exc_type == "ValueError" and error.message == "no 2"
    assert error.where and "in f" in error.where[-1]
    assert sb.call("made") == [1, "raise", 3]  # one process: the state goes on, as with single calls
    assert sb.kills == 0 and sb.timeouts == 0


def test_what_cannot_cross_costs_only_its_result(sb):
    outcomes = sb.map("f", [(("long",), {}), ((object(),), {}), ((4,), {}), (("object",), {})])
    assert not outcomes[0][0] and outcomes[0][1].exc_type == "UnsendableValue"
    assert not outcomes[1][0] and isinstance(outcomes[1][1], BoundaryError)  # never sent: the grader's mistake
    assert outcomes[2] == (True, 8)
    assert outcomes[3][0] and repr(outcomes[3][1]) == "<student object object>"  # stays behind, a handle
    assert sb.call("made") == ["long", 4, "object"]


def test_a_crash_inside_a_batch_costs_that_call_and_makes_none_after_it(sb):
    outcomes = sb.map("f", [((1,), {}), ((2,), {}), (("die",), {}), ((3,), {}), ((4,), {})])
    assert _values(outcomes)[:2] == [2, 4]
    crash = outcomes[2][1]
    assert isinstance(crash, SandboxCrashed) and crash.failure is CodeFailure.CRASHED
    assert "status 3" in crash.message
    assert [type(v).__name__ for _, v in outcomes[3:]] == ["NotRun", "NotRun"]
    assert all(v.why == "later" for _, v in outcomes[3:])
    assert sb.kills == 1
    # the calls before the crash were made again in a fresh process; those after it, not at all
    assert sb.call("made") == [1, 2]


def test_a_timeout_inside_a_batch_stops_it_at_that_call(sb):
    started = time.monotonic()
    outcomes = sb.map("f", [((1,), {}), (("hang",), {}), ((3,), {}), (("hang",), {})])
    elapsed = time.monotonic() - started
    assert outcomes[0] == (True, 2)
    timeout = outcomes[1][1]
    assert isinstance(timeout, SandboxTimeout) and timeout.failure is CodeFailure.TIMEOUT
    assert "1 s" in timeout.message
    assert [(v.why, v.cause) for _, v in outcomes[2:]] == [("timeout", timeout), ("timeout", timeout)]
    assert sb.timeouts == 1 and sb.kills == 0
    assert 1.0 <= elapsed < 1.9  # one deadline, counted once
    assert sb.call("made") == [1]


def test_each_call_of_a_batch_has_a_deadline_of_its_own(sb):
    started = time.monotonic()
    outcomes = sb.map("f", [(("slow",), {})] * 3 + [((5,), {})])
    assert _values(outcomes) == ["slow", "slow", "slow", 10]  # 1.8 s in all, each within its 1 s
    assert time.monotonic() - started >= 1.8 and sb.timeouts == 0
    # ... and a call that hangs after them is stopped 1 s after it started, not after the batch did
    started = time.monotonic()
    outcomes = sb.map("f", [(("slow",), {}), (("slow",), {}), (("hang",), {})])
    elapsed = time.monotonic() - started
    assert _values(outcomes) == ["slow", "slow", "SandboxTimeout"]
    assert 2.2 <= elapsed < 4.5


def test_no_call_starts_after_the_budget(sb):
    started = time.monotonic()
    outcomes = sb.map("f", [(("slow",), {})] * 4, stop_at=started + 1.0)
    assert _values(outcomes) == ["slow", "slow", "NotRun", "NotRun"]
    assert [v.why for _, v in outcomes[2:]] == ["budget", "budget"]
    assert time.monotonic() - started < 1.6
    assert _values(sb.map("f", [((1,), {})], stop_at=time.monotonic() - 1)) == ["NotRun"]


def test_a_long_batch_is_split_into_requests(sb, monkeypatch):
    monkeypatch.setattr(P, "MAX_CALLS", 100)
    before = sb.batches
    outcomes = sb.map("f", [((i,), {}) for i in range(250)])
    assert [v for _, v in outcomes] == [2 * i for i in range(250)]
    assert sb.batches - before == 3


def test_large_arguments_and_results_travel_in_parts(sb):
    mib = 1 << 20
    before = sb.batches
    outcomes = sb.map("f", [((np.ones(6 * mib, dtype=np.uint8),), {"scale": 1})] * 3)  # 18 MiB of arguments
    assert all(ok and value.shape == (6 * mib,) for ok, value in outcomes)
    assert sb.batches - before >= 2  # about FLUSH_BLOBS (8 MiB) of arrays a request
    # results over FLUSH_BLOBS come back in several frames, whatever one frame's limit
    outcomes = sb.map("big", [((5 * mib,), {})] * 16)  # 80 MiB: more than a frame may hold (64 MiB)
    assert all(ok and value.nbytes == 5 * mib for ok, value in outcomes)


def test_garbage_from_the_students_code_is_a_crash_of_that_call(sb):
    outcomes = sb.map("f", [((1,), {}), ((2,), {})])
    assert _values(outcomes) == [2, 4]
    outcomes = sb.map("garble", [((), {})])
    assert not outcomes[0][0] and outcomes[0][1].failure is CodeFailure.PROTOCOL
    assert sb.kills == 1
    assert sb.call("f", (5,)) == 10  # a fresh process answers


def test_forged_progress_notes_do_not_stretch_a_batch():
    sb = _sandbox()
    try:
        started = time.monotonic()
        outcomes = sb.map("forge_and_hang", [((2,), {}), ((2,), {})])
        elapsed = time.monotonic() - started
        assert _values(outcomes) == ["SandboxTimeout", "SandboxTimeout"]
        assert elapsed < 2 * 2 * sb.limits.call_timeout + 0.5  # at most two deadlines a call
        assert sb.call("f", (1,)) == 2
    finally:
        sb.shutdown()


def test_progress_notes():
    note = bytearray(P.PROGRESS.size)
    P.write_progress(note, 7, 3, 12.5)
    assert P.read_progress(bytes(note)) == (7, 3, 12.5)
    assert P.read_progress(b"") is None
    note[8] ^= 1  # the index changed under the check
    assert P.read_progress(bytes(note)) is None


def test_a_request_over_the_limit_is_refused_by_the_worker(sb):
    """The worker holds MAX_CALLS itself, whatever a grader sends: a bad request is a protocol error."""
    sb._ensure_cells()
    channel = sb.channel
    channel.deadline = time.monotonic() + 5
    P.write_frame(channel, {"op": "map", "target": "f", "batch": 1, "calls": [{"args": {"$list": [1]}}] * 1001})
    reply, _ = P.read_frame(channel)
    assert reply["ok"] is False and reply["error"]["type"] == "ProtocolError"
    assert sb.call("f", (2,)) == 4


def test_objects_cannot_be_arguments(sb):
    obj = sb.call("f", ("object",))
    outcomes = sb.map("f", [((obj,), {})])
    assert not outcomes[0][0] and isinstance(outcomes[0][1], (P.ProtocolError, StudentCodeError))
    assert isinstance(NotRun("later"), Exception)
