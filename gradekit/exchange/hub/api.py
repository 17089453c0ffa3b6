"""What the hub exchange's handlers share: its log, who may call it, and how a refusal is answered.

say(line)  one line of the service's log, with the time
Handler    a request from a caller the hub knows who may use the service: the course in the path
           must be the service's; a student's reads (GET) are counted per minute, and past
           ``Limits.reads_per_minute`` refused without a question to the hub; a request refused as
           it comes in is answered once its body is in (read and dropped); an instructor's body is
           kept (a release, feedback pages); a refusal is one line with its wire.Status

The limits (what a hand-in may hold, how often a student may try and read) are the wire's
(gradekit.exchange.hub.wire.Limits): the students' submit checks them too.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import json
import sys
from typing import Any, NoReturn

from tornado import web

from gradekit.exchange.hub.gate import SLOW_DOWN, Gate
from gradekit.exchange.hub.store import Store, now
from gradekit.exchange.hub.wire import Limits, Status
from gradekit.web.auth import CallerAPI, instructor_scope


def say(line: str) -> None:
    print(f"{now():%H:%M:%S} {line}", file=sys.stdout, flush=True)


def _refusal_first(method):
    """``method``, unless the request was refused when it came in: then that refusal (held a while first
    when it is a flooder's: gate.Gate.slow)."""

    @functools.wraps(method)
    async def handle(self, *args, **kwargs):
        if self._refusal is not None:
            if self._slowed is not None:
                try:
                    await asyncio.sleep(SLOW_DOWN)
                finally:
                    self.let_go()
            raise self._refusal
        result = method(self, *args, **kwargs)
        if inspect.isawaitable(result):
            result = await result
        return result

    return handle


@web.stream_request_body
class Handler(CallerAPI):
    """Any caller the hub knows who may use the service; the course in the path must be ours.

    Every request's body streams in after the caller is let in (tornado would otherwise read it
    whole before anything is asked): kept for an instructor (a release, feedback), dropped for anyone
    else, whose requests carry none. A request refused as it comes in (:meth:`let_in`) is answered
    once its body is in, read to its end and dropped, however large, even an empty one: answered
    before, the connection would be closed under it, and the hub's proxy -- which keeps its
    connections to the service for the next requests, anyone's, and answers 503 on one it finds
    closed, or under a body it is still sending -- would give its own error instead of the line. A
    body still arriving after the server's body timeout is cut off. One that must end the
    connection (too many uploads at once) says ``Connection: close``."""

    fresh = True  # ask the hub every time: a revoked token is refused at once
    _kept: list[bytes] | None = None  # the body, for a caller who may send one
    _received = 0
    _refusal: web.HTTPError | None = None  # why the request was refused as it came in
    _close_now = False  # refused without reading its body (its sender has too many arriving)
    _slowed: tuple[Gate, str] | None = None  # a refusal past a rate held before it is answered (gate, user)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for name in ("get", "put", "post", "delete", "patch"):
            if name in cls.__dict__:
                setattr(cls, name, _refusal_first(cls.__dict__[name]))

    def let_go(self) -> None:
        """A refusal held (gate.Gate.slow) is no longer."""
        if self._slowed is not None:
            gate, user = self._slowed
            self._slowed = None
            gate.let_go(user)

    def on_finish(self) -> None:
        self.let_go()

    def on_connection_close(self) -> None:
        self.let_go()

    async def prepare(self) -> None:
        try:
            await self.let_in()
        except web.HTTPError as exc:
            length = self.request.headers.get("Content-Length", "0")
            if self._close_now or not length.isdigit():
                self.let_go()
                # answered now, its body unread: the connection ends with the answer, which says so, and
                # the hub's proxy sends nothing more on it
                self.after = {**self.after, "Connection": "close"}
                raise
            self._refusal, self._kept = exc, None

    async def let_in(self) -> None:
        """Who calls (the hub says), and whether they may use the service: a refusal raised here is
        answered once the request's body is in. A student's read past their rate is refused, without
        a question to the hub when their token was seen in the last minute."""
        reading = self.request.method == "GET"
        token = (self.hub_auth.get_token(self, in_cookie=False) or "") if reading else ""
        known = self.reads.known(token) if reading else None
        if known is not None:
            self._too_many_reads(known, self.reads.wait(known))
        await super().prepare()
        if reading and not self.instructor:
            assert self.caller is not None
            user = self.caller.name
            wait = self.reads.wait(user)
            if wait:
                self._too_many_reads(user, wait)
            self.reads.tried(user)  # a refused read is not counted: the rate lets them in again on time
            self.reads.saw(token, user)

    @property
    def reads(self) -> Gate:
        return self.settings["gradekit_reads"]

    def _too_many_reads(self, user: str, wait: int) -> NoReturn:
        self.over_rate(
            user,
            wait,
            f"too many requests: the limit is {self.limits.reads_per_minute} a minute to list, fetch and read "
            f"feedback: try again in {wait} s (your hand-ins are all kept)",
            self.reads,
            "reads",
        )

    def over_rate(self, user: str, wait: int, line: str, gate: Gate, why: str) -> NoReturn:
        """Refuse ``user``, over a rate of ``gate``'s, for ``wait`` s (429, Retry-After); logged the first
        time a minute for ``why``."""
        self.after = {"Retry-After": str(wait)}
        if gate.slow(user):
            self._slowed = (gate, user)
        loud = gate.loud(user, why)
        self.refuse(Status.TOO_MANY, line, who=user, log=loud, note=" (more of these this minute are not logged)")

    def data_received(self, chunk: bytes) -> None:
        self._received += len(chunk)
        if self._kept is not None and self._received <= self.limits.drained:
            self._kept.append(chunk)

    @property
    def body(self) -> bytes:
        """The request's body, as an instructor sent it."""
        if self._received > self.limits.drained:
            self.refuse(Status.TOO_LARGE, f"the body is over {self.limits.drained >> 20} MiB")
        return b"".join(self._kept or [])

    @property
    def store(self) -> Store:
        return self.settings["gradekit_store"]

    @property
    def limits(self) -> Limits:
        return self.settings["gradekit_limits"]

    async def admit(self) -> None:
        await super().admit()
        assert self.caller is not None
        service = self.settings["gradekit_service"]
        if not (self.caller.may(f"access:services!service={service}") or self.instructor):
            self.refuse(Status.FORBIDDEN, f"{self.caller.name}'s token may not use the service {service}")
        if self.instructor:
            self._kept = []

    @property
    def instructor(self) -> bool:
        assert self.caller is not None
        return self.caller.instructs(self.course_id)

    after: dict[str, str] = {}  # headers for a refusal (tornado clears the others when it sends an error)

    def log_exception(self, typ, value, tb) -> None:
        if not isinstance(value, web.HTTPError):  # a refusal said its own line (refuse): no second one
            super().log_exception(typ, value, tb)

    def write_error(self, status_code: int, **kwargs: Any) -> None:
        for name, value in self.after.items():
            self.set_header(name, value)
        super().write_error(status_code, **kwargs)

    def refuse(self, status: Status, line: str, who: str = "", log: bool = True, note: str = "") -> NoReturn:
        who = who or (self.caller.name if self.caller is not None else "?")
        if log:
            say(f"refused {who}: {self.request.method} {self.request.path}: {line}{note}")
        raise web.HTTPError(int(status), line)

    def check_course(self, course: str) -> None:
        if course != self.course_id:
            self.refuse(Status.NOT_FOUND, f"this hub exchange serves {self.course_id}, not {course}")

    def require_instructor(self, what: str) -> None:
        if not self.instructor:
            assert self.caller is not None
            self.refuse(
                Status.FORBIDDEN,
                f"{self.caller.name} may not {what}: only the instructors of {self.course_id} may "
                f"(their token carries {instructor_scope(self.course_id)})",
            )

    def whose(self, what: str) -> str:
        """The user a student's request is for: the caller; another user's (?user=) only for an instructor."""
        assert self.caller is not None
        user = self.get_argument("user", self.caller.name)
        if user != self.caller.name and not self.instructor:
            self.refuse(
                Status.FORBIDDEN, f"{self.caller.name} may not read {user}'s {what}: a student reads only their own"
            )
        return user

    def send_json(self, value: Any, status: Status = Status.OK) -> None:
        self.set_status(int(status))
        self.set_header("Content-Type", "application/json; charset=utf-8")
        self.finish(json.dumps(value, ensure_ascii=False))

    def send_zip(self, data: bytes) -> None:
        self.set_header("Content-Type", "application/zip")
        self.finish(data)
