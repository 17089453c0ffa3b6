"""A request's round trip to the submission's child: sent, answered or failed, and counted.

:class:`RoundTrips` writes one request on the child's socket and reads frames until its
reply (:mod:`gradekit.sandbox.framing`), answering the student's code's callbacks on the way
(:mod:`gradekit.sandbox.callbacks`). Every request has a deadline; a ``map``'s calls each
have their own, moved on as the child's progress notes say a later call has started. A
request that fails is the student's failure, and the child is killed:

    no reply in time                     SandboxTimeout      counted in ``timeouts``
    the child died (the socket closed)   SandboxCrashed      counted in ``kills``
    a frame that breaks the protocol     SandboxCrashed      counted in ``kills``
    past a limit on the callbacks        CallbackOverrun     counted in ``overruns``

The time the student's code takes is counted too (``student_seconds``): as each reply
says, and, for a request it never answered, up to the deadline.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any

from gradekit.errors import CallbackOverrun, CodeFailure, SandboxCrashed, SandboxTimeout, StudentCodeError
from gradekit.i18n.text import _
from gradekit.sandbox import framing
from gradekit.sandbox import protocol as P
from gradekit.sandbox.callbacks import Callbacks, Overrun
from gradekit.sandbox.framing import Encoded, raised
from gradekit.sandbox.limits import Limits
from gradekit.sandbox.process import SandboxProcess, exit_reason

# how a failed request ends: the child stopped answering, died, broke the protocol or overran a callback limit
FAILURES = (TimeoutError, EOFError, OSError, P.ProtocolError, Overrun)


class NotRun(Exception):
    """A call of a :meth:`~gradekit.sandbox.client.Sandbox.map` that was not made: ``"budget"``
    (it would have started after ``stop_at``), ``"timeout"`` (an earlier call of the same batch
    timed out: ``cause``) or ``"later"`` (an earlier call crashed: make it again when its result
    is wanted)."""

    def __init__(self, why: str, cause: SandboxTimeout | None = None):
        super().__init__(why)
        self.why, self.cause = why, cause


class RoundTrips:
    """The requests to a sandbox's current child, and what they cost (see the module's docstring)."""

    def __init__(self, process: SandboxProcess, callbacks: Callbacks, limits: Limits):
        self.process, self.callbacks, self.limits = process, callbacks, limits
        self.batches = 0  # map requests sent, to tell one batch's progress notes from another's
        self.student_seconds = 0.0  # the time spent in the student's code: as the worker reports it, and a
        # request it never answered (a timeout, a death) up to then (_ran_until_now)
        self.timeouts = 0  # requests the student's code did not answer in time
        self.kills = 0  # children that died or broke the protocol and were killed
        self.overruns = 0  # calls stopped for going past a callback limit

    def exchange(
        self,
        request: bytes,
        timeout: float,
        functions: Mapping[str, Callable],
        wrap: Callable[[P.Handle], Any],
        progress: Callable[[int], None] | None = None,
    ) -> tuple[dict, Any]:
        """Send a request (its frame) to the child and read its reply, with the value it carries
        decoded (a handle in it by ``wrap``); the grader's ``functions`` answer its callbacks, and
        the cells' progress goes to ``progress``. A failure is raised as the student's."""
        channel = self.process.channel
        assert channel is not None  # the caller has a child

        sent = time.monotonic()
        channel.deadline = sent + timeout
        try:
            channel.write(request)
            told = progress if progress is not None else framing.no_progress
            reply, blobs = framing.next_reply(channel, self.callbacks.answer, functions, told)
            value = P.decode(reply.get("value"), blobs, wrap) if "value" in reply else None
        except FAILURES as exc:
            raise self._failure(exc, sent, timeout) from None
        seconds = reply.get("seconds")
        if isinstance(seconds, (int, float)) and 0 <= seconds <= timeout:
            self.student_seconds += seconds
        return reply, value

    def map_round(
        self,
        target: str,
        chunk: list[Encoded],
        functions: Mapping[str, Callable],
        wrap: Callable[[P.Handle], Any],
        stop_at: float | None,
        limit: float,
    ) -> tuple[dict[int, tuple[bool, Any]], tuple[int, Exception] | None]:
        """One map request of ``chunk``'s calls: the results it sent, by offset in ``chunk``, and
        (offset, error) of the call where it stopped short, if it did."""
        channel = self.process.channel
        assert channel is not None  # the caller has a child
        self.batches += 1
        batch, timeout = self.batches, self.limits.call_timeout
        header, blobs = framing.map_request(target, chunk, functions, batch, stop_at)
        done: dict[int, tuple[bool, Any]] = {}
        sent = time.monotonic()
        seen = [-1, sent]  # the latest progress note: (index, started)

        def renew() -> float | None:
            """A later deadline when the batch has moved on to a call the note says started later."""
            note = framing.progress_note(self.process.progress, batch, len(chunk), sent)
            if note is None or note[0] <= seen[0] or note[1] < seen[1]:
                return None
            seen[:] = note
            return min(note[1] + timeout, cap)

        cap = limit if stop_at is None else min(limit, stop_at + timeout)
        channel.deadline, channel.renew = min(sent + timeout, cap), renew
        self.callbacks.begin()
        try:
            P.write_frame(channel, header, blobs)
            while True:
                reply, rblobs = framing.next_reply(channel, self.callbacks.answer, functions)
                for entry in framing.map_entries(reply, len(done), len(chunk)):
                    done[len(done)] = self._map_result(entry, rblobs, timeout, len(done), wrap)
                if reply.get("done") is True:
                    stopped = reply.get("stopped")
                    if stopped is None and len(done) == len(chunk):
                        return done, None
                    if stopped == len(done) and stop_at is not None:
                        return done, (len(done), NotRun("budget"))
                    raise P.ProtocolError("bad reply to map")
        except FAILURES as exc:
            if isinstance(exc, Overrun):
                failed = exc.call if exc.call is not None and len(done) <= exc.call < len(chunk) else len(done)
            else:  # read before the child, and its progress file, are gone
                failed = framing.failed_call(self.process.progress, batch, len(chunk), sent, len(done))
            error = self._failure(exc, seen[1], timeout)  # a call that hung: from when it started
        finally:
            channel.renew = None
        return done, (None if failed >= len(chunk) else (failed, error))  # all had answered: none failed

    def _map_result(
        self, entry: Any, blobs: list[bytes], timeout: float, offset: int, wrap: Callable[[P.Handle], Any]
    ) -> tuple[bool, Any]:
        if type(entry) is not dict or type(entry.get("ok")) is not bool:
            raise P.ProtocolError("bad result in a reply to map")
        if not entry["ok"]:
            return False, self.callbacks.judged(raised(entry), offset)
        if self.callbacks.faults:  # the grader's own mistake in this call, if any
            fault = self.callbacks.grader_fault(offset)
            if fault is not None:
                return False, fault
        value = P.decode(entry.get("value"), blobs, wrap)
        seconds = entry.get("seconds")
        if isinstance(seconds, (int, float)) and 0 <= seconds <= timeout:
            self.student_seconds += seconds
        return True, value

    def _failure(self, exc: Exception, started: float, timeout: float) -> StudentCodeError:
        """A request that failed (``exc``, one of FAILURES), as the student's failure: counted, the
        child ended -- killed -- and the time the student's code took until then counted as theirs."""
        if isinstance(exc, TimeoutError):
            self.timeouts += 1
            self._ran_until_now(started, timeout)
            self.process.end_child(kill=True)
            return SandboxTimeout(_("no answer within {seconds:g} s (endless loop?)").format(seconds=timeout))
        if isinstance(exc, P.ProtocolError):
            self.kills += 1
            self.process.end_child(kill=True)
            return SandboxCrashed(CodeFailure.PROTOCOL, str(exc))
        if isinstance(exc, Overrun):
            self.overruns += 1
            self.process.end_child(kill=True)
            return CallbackOverrun(exc.message)
        self.kills += 1  # EOFError, OSError: the child died
        self._ran_until_now(started, timeout)
        return SandboxCrashed(CodeFailure.CRASHED, exit_reason(self.process.end_child(kill=True)))

    def _ran_until_now(self, started: float, timeout: float) -> None:
        """A request the student's code never answered (it hung until the deadline, or its process died):
        its time is the student's code's too, up to the deadline -- no reply carries it (an endless loop
        stopped at 10 s is 10 s of the student's, not the grader's)."""
        self.student_seconds += min(timeout, max(0.0, time.monotonic() - started))
