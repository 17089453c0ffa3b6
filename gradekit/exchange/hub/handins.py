"""Hand-ins in: a student's hand-in as the hub user whose token sent it, and the course's look at them.

POST handins/<assignment>   a hand-in of <assignment> (its name may be digits) as the caller:
                            admitted before its body is read (gradekit.exchange.hub.gate: the caller's
                            rate, refused tries included, and how many of theirs are arriving;
                            whom it is for, its key, its announced size, its release), its body
                            spooled, then unpacked within the limits and stored
GET  handins/<number>       (instructors) one hand-in's files
GET  handins?after=N&wait=S (instructors) the hand-ins after number N, waiting up to S s for one
PUT/DELETE/PATCH            refused: nobody replaces or deletes a hand-in
"""

from __future__ import annotations

import datetime as dt
from typing import NoReturn

from tornado import locks

from gradekit.exchange.hub.api import Handler, say
from gradekit.exchange.hub.gate import Gate, Spool
from gradekit.exchange.hub.store import Record, now, when
from gradekit.exchange.hub.wire import KEY, KEY_HEADER, STOPPING, Status


class HandinsHandler(Handler):
    """GET (instructors): the hand-ins after a number, waiting for one."""

    async def get(self, course: str) -> None:
        self.check_course(course)
        self.require_instructor("list the hand-ins")
        after = int(self.get_argument("after", "0") or 0)
        wait = min(float(self.get_argument("wait", "0") or 0), 60.0)
        deadline = now() + dt.timedelta(seconds=wait)
        arrived: locks.Condition = self.settings["gradekit_arrived"]
        stopping, polls = self.settings["gradekit_stopping"], self.settings["gradekit_polls"]
        polls.add(self)
        try:
            while True:
                found = self.store.handins(self.course_id, after)
                if found or now() >= deadline or stopping.is_set():  # the service stopping: answer now
                    break
                await arrived.wait(timeout=dt.timedelta(seconds=min(1.0, (deadline - now()).total_seconds())))
        finally:
            polls.discard(self)
        given = self.store.feedback([h.id for h in found], with_html=False)
        answer = {"handins": [h.meta(sorted(given.get(h.id, {}))).to_json() for h in found]}
        self.send_json({**answer, STOPPING: True} if stopping.is_set() else answer)


class HandinHandler(Handler):
    """POST <assignment>: a hand-in of it as the caller; GET <number> (instructors): one hand-in's files.
    Nobody replaces or deletes a hand-in.

    A hand-in is admitted before its body is read (gradekit.exchange.hub.gate): the caller's rate, refused
    tries included, how many of theirs are arriving, then who it is for, its key, its announced size
    and its release; its body then streams into a Spool, never held whole in memory while it
    arrives. A refused one's body is dropped as it arrives, and the refusal answered at its end."""

    _spool: Spool | None = None
    _slot: str | None = None  # the user whose upload this request counts as, while it arrives
    _drained: str | None = None  # the user whose refused upload this request is, read to its end
    _again: Record | None = None  # the hand-in this one is sent again (its key's)

    @property
    def gate(self) -> Gate:
        return self.settings["gradekit_gate"]

    async def let_in(self) -> None:
        token = ""
        if self.request.method == "POST":
            token = self.hub_auth.get_token(self, in_cookie=False) or ""
            known = self.gate.known(token)
            if known is not None:  # over their rate: refused without asking the hub
                self._hold(known)
                self._over(known, self.gate.wait(known))
        await super().let_in()
        if self.request.method == "POST":
            assert self.caller is not None
            self.gate.saw(token, self.caller.name)
            self._admit(self.path_args[1])

    def _hold(self, user: str) -> None:
        """One of ``user``'s hand-ins at once, admitted or refused (a refusal is answered once its body is
        in: it holds the connection meanwhile); past ``Limits.at_once`` refused, its body read to its end
        for a few more (gate.REFUSED_AT_ONCE), then cut off at once."""
        if self._slot is not None:
            return
        if not self.gate.take(user):
            if self.gate.take(user, refused=True):
                self._drained = user
            else:
                self._close_now = True
            self.refuse(
                Status.TOO_MANY,
                f"{self.gate.sending(user)} hand-ins of yours are arriving already, the limit is "
                f"{self.limits.at_once} at once: wait for them, then hand in again",
                who=user,
                log=self.gate.loud(user, "at once"),
                note=" (more of these this minute are not logged)",
            )
        self._slot = user

    def _over(self, user: str, wait: int) -> NoReturn:
        line = (
            f"too many hand-ins: the limit is {self.limits.per_minute} a minute, refused ones included: "
            f"hand in again in {wait} s (your earlier hand-ins are all kept)"
        )
        self.over_rate(user, wait, line, self.gate, "rate")

    def _admit(self, assignment: str) -> None:
        """Refuse a hand-in that may not be sent now, before its body is read (see the class's docstring)."""
        from gradekit.untrusted import is_valid_id

        assert self.caller is not None
        user = self.caller.name
        self.check_course(self.path_args[0])
        if self.caller.kind != "user":
            self.refuse(Status.FORBIDDEN, f"{user} is a service: only a hub user hands in")
        since = now() - dt.timedelta(seconds=60)
        ages = [(now() - when(t)).total_seconds() for t in self.store.recent(self.course_id, user, since)]
        wait = self.gate.wait(user, ages)
        if wait:
            self._over(user, wait)
        self.gate.tried(user)  # every try counts from here on, refused or not
        self._hold(user)
        if not is_valid_id(assignment):
            self.refuse(Status.BAD_REQUEST, f"invalid assignment id {assignment!r}")
        key = self.request.headers.get(KEY_HEADER, "")
        if not KEY.match(key):
            self.refuse(
                Status.BAD_REQUEST, f"a hand-in needs an {KEY_HEADER} header of 8 to 128 letters, digits, _ and -"
            )
        named = self.get_argument("user", user)
        if named != user:
            self.store.handin(
                self.course_id,
                assignment,
                user,
                key,
                None,
                named=named,
                kind="impersonation",
                problem=f"handed in under another student's name: named for {named}, handed in by the hub user {user}",
            )
            self.settings["gradekit_arrived"].notify_all()
            self.refuse(
                Status.FORBIDDEN, f"{user} may not hand in as {named}: a hand-in counts for whoever's token sent it"
            )
        self._again = self.store.by_key(self.course_id, user, key)
        if self._again is not None:  # the answer to this hand-in was lost: it is the same one (its body dropped)
            return
        announced = int(self.request.headers.get("Content-Length") or 0)
        if announced > self.limits.max_bytes:
            self._too_large(announced)
        if not self.store.releases(self.course_id, user).get(assignment):
            self.refuse(
                Status.NOT_FOUND, f"{assignment!r} was not released to {user}: fetch it first, or ask your instructor"
            )
        self._spool = Spool(self.store.folder / "incoming", self.limits.max_bytes)

    def _too_large(self, size: int) -> NoReturn:
        self.refuse(
            Status.TOO_LARGE,
            f"the hand-in is {size / (1 << 20):.1f} MiB, over the limit of "
            f"{self.limits.max_mb:g} MiB: leave out large data files and hand in again",
        )

    def data_received(self, chunk: bytes) -> None:
        if self._spool is not None:
            self._spool.write(chunk)

    def _release(self) -> None:
        self.let_go()
        if self._slot is not None:
            self.gate.give(self._slot)
            self._slot = None
        if self._drained is not None:
            self.gate.give(self._drained, refused=True)
            self._drained = None
        if self._spool is not None:
            self._spool.close()
            self._spool = None

    def on_finish(self) -> None:
        self._release()

    def on_connection_close(self) -> None:
        self._release()

    def post(self, course: str, assignment: str) -> None:
        from gradekit.errors import SubmissionError
        from gradekit.untrusted import HandinLimits, read_handin_zip

        if self._again is not None:
            self.send_json({**self._again.meta().to_json(), "again": True})
            return
        assert self.caller is not None and self._spool is not None
        user = self.caller.name
        if self._spool.over:
            self._too_large(self._spool.size)
        key = self.request.headers[KEY_HEADER]
        try:  # the one reading of a hand-in's zip, within the one set of limits: the wire's
            files = read_handin_zip(self._spool.read(), HandinLimits(self.limits.max_bytes, self.limits.max_files))
        except SubmissionError as exc:
            self.refuse(Status(exc.status), f"hand-in refused: {exc}")
        claimed = _claimed(files.get("timestamp.txt"))
        handin, _new = self.store.handin(self.course_id, assignment, user, key, files, claimed)
        self.settings["gradekit_arrived"].notify_all()
        say(  # the store's number, the course's count: "hand-in N" is the student's Nth (serve's line, receipts)
            f"received {user} {assignment}: record {handin.id} of the exchange ({handin.nfiles} file(s), "
            f"{(handin.size or 0) / 1024:.0f} KiB, sha256 {(handin.sha256 or '')[:12]})"
        )
        self.send_json(handin.meta().to_json(), Status.CREATED)

    def get(self, course: str, number: str) -> None:
        self.check_course(course)
        self.require_instructor("read a hand-in's files")
        handin = self.store.get(self.course_id, int(number)) if number.isdigit() else None
        if handin is None or handin.blob is None:
            self.refuse(
                Status.NOT_FOUND,
                f"no record {number} of the hub exchange in {self.course_id} holds a hand-in's files (hand-ins are "
                "numbered by their records)",
            )
        self.send_zip(self.store.blob(handin.blob))

    def _never(self, course: str, number: str) -> None:
        self.check_course(course)
        self.refuse(Status.FORBIDDEN, "a hand-in is never replaced or deleted: hand in again (the latest counts)")

    put = delete = patch = _never


def _claimed(raw: bytes | None) -> dt.datetime | None:
    from gradekit.untrusted import parse_utc

    text = (raw or b"").decode("utf-8", "replace").strip()
    if not text or len(text) > 256:
        return None
    try:
        return parse_utc(text)
    except (ValueError, OverflowError):
        return None
