"""The hub exchange's door for hand-ins: how often a student may try, and how many they may send at once.

Every hand-in a student sends counts toward their rate, refused or not (under a classmate's name,
too large, not a zip, a zip bomb): a student who floods the exchange is refused after
``Limits.per_minute`` tries in a minute, in one line with the seconds to wait, before anything of
theirs is read, recorded or written to the log -- past that, the service asks nothing of the hub
and of its database for them, and logs one line a minute. A student sends at most
``Limits.at_once`` hand-ins at the same time; a body is never held in memory past a small buffer
(:class:`Spool`: on disk, in the service's own folder). The class is unharmed: one student's
limits are theirs alone.

    Gate(limits)
      .wait(user, accepted)        seconds ``user`` must wait before trying again (0: they may try now);
                                   ``accepted``: their accepted hand-ins of the last minute, from the
                                   records (what a service started again still knows)
      .tried(user)                 count one try
      .known(token)                the user a token was last seen for, when that user must wait now
                                   (a refusal needs no question to the hub); .saw(token, user)
      .loud(user, why)             whether a refusal of ``user`` for ``why`` is logged (the first one a minute)
      .slow(user) / .let_go(user)  whether this refusal past the rate is held SLOW_DOWN s before it is answered:
                                   past SLOW_AFTER refusals a minute, SLOWED_AT_ONCE at a time -- a flood
                                   through the hub's proxy, answered as fast as it asks, took cores from the
                                   class's grading; held, a flooder's thread asks once a second
      .take(user) / .give(user)    one upload more / less in flight; take is False at the limit
      .take(user, refused=True)    one refused upload more read to its end (so that its sender reads
                                   its one line through the hub's proxy); False past REFUSED_AT_ONCE
"""

from __future__ import annotations

import hashlib
import tempfile
import time
from collections import deque
from pathlib import Path

WINDOW = 60.0  # seconds: the rate is per minute
SPOOL = 1 << 20  # bytes of a body kept in memory; the rest goes to a file of the service's
TOKENS = 10_000  # tokens remembered for early refusals, at most
REFUSED_AT_ONCE = 8  # a student's refused uploads read to their end at the same time; past it, cut off at once
SLOW_AFTER = 30  # refusals past a rate a student gets a minute at once; each one after that waits SLOW_DOWN
SLOW_DOWN = 1.0  # seconds a flooder's refusal is held before it is answered (no work meanwhile)
SLOWED_AT_ONCE = 4  # a student's refusals held at the same time; past it, answered at once


class Gate:
    """Per student: the tries of the last minute, and the uploads in flight (see the module's docstring)."""

    def __init__(self, per_minute: int, at_once: int, clock=time.monotonic):
        self.per_minute, self.at_once, self.clock = per_minute, at_once, clock
        self._tries: dict[str, deque[float]] = {}
        self._sending: dict[str, int] = {}
        self._refused: dict[str, int] = {}  # refused uploads being read to their end
        self._quiet: dict[tuple[str, str], float] = {}  # (user, why) -> until when such refusals are not logged
        self._refusals: dict[str, deque[float]] = {}  # user -> when their refusals past the rate were
        self._held: dict[str, int] = {}  # user -> their refusals being held now
        self._tokens: dict[str, tuple[str, float]] = {}  # sha256 of a token -> (user, when seen)

    def _window(self, user: str) -> deque[float]:
        tries = self._tries.setdefault(user, deque())
        now = self.clock()
        while tries and now - tries[0] >= WINDOW:
            tries.popleft()
        if not tries:
            del self._tries[user]
            return deque()
        return tries

    def wait(self, user: str, accepted: list[float] | None = None) -> int:
        """Seconds before ``user`` may try again (0: now). ``accepted``: how many seconds ago each of
        their accepted hand-ins of the last minute arrived, as the records say (each of them was a
        try too: the larger count of the two holds)."""
        now = self.clock()
        longest = 0
        for ages in ([now - t for t in self._window(user)], list(accepted or ())):
            if len(ages) >= self.per_minute:
                ages.sort(reverse=True)
                oldest = ages[len(ages) - self.per_minute]  # the last try that has to leave the window
                longest = max(longest, max(1, int(WINDOW - oldest) + 1))
        return longest

    def tried(self, user: str) -> None:
        self._tries.setdefault(user, deque()).append(self.clock())

    def loud(self, user: str, why: str = "") -> bool:
        """Whether this refusal of ``user`` (for the reason ``why``) is logged: the first one a minute."""
        now = self.clock()
        if self._quiet.get((user, why), 0.0) > now:
            return False
        self._quiet[(user, why)] = now + WINDOW
        return True

    def slow(self, user: str) -> bool:
        """Whether this refusal of ``user``'s past the rate is held (see the module's docstring); one held is
        counted until :meth:`let_go`."""
        now = self.clock()
        times = self._refusals.setdefault(user, deque())
        while times and now - times[0] >= WINDOW:
            times.popleft()
        times.append(now)
        if len(times) <= SLOW_AFTER or self._held.get(user, 0) >= SLOWED_AT_ONCE:
            return False
        self._held[user] = self._held.get(user, 0) + 1
        return True

    def let_go(self, user: str) -> None:
        left = self._held.get(user, 0) - 1
        if left > 0:
            self._held[user] = left
        else:
            self._held.pop(user, None)

    # -- tokens: a refusal without asking the hub -------------------------------------------------
    @staticmethod
    def _digest(token: str) -> str:
        return hashlib.sha256(token.encode()).hexdigest()

    def saw(self, token: str, user: str) -> None:
        if not token:
            return
        if len(self._tokens) >= TOKENS:
            now = self.clock()
            self._tokens = {k: v for k, v in self._tokens.items() if now - v[1] < WINDOW}
            if len(self._tokens) >= TOKENS:
                self._tokens.clear()
        self._tokens[self._digest(token)] = (user, self.clock())

    def known(self, token: str) -> str | None:
        """The user ``token`` was seen for in the last minute, if that user must wait now: a refusal
        grants nothing, so it needs no question to the hub (a token revoked since is refused too)."""
        if not token:
            return None
        seen = self._tokens.get(self._digest(token))
        if seen is None or self.clock() - seen[1] >= WINDOW:
            return None
        return seen[0] if self.wait(seen[0]) else None

    # -- uploads in flight ------------------------------------------------------------------------
    def take(self, user: str, refused: bool = False) -> bool:
        counts, limit = (self._refused, REFUSED_AT_ONCE) if refused else (self._sending, self.at_once)
        if counts.get(user, 0) >= limit:
            return False
        counts[user] = counts.get(user, 0) + 1
        return True

    def give(self, user: str, refused: bool = False) -> None:
        counts = self._refused if refused else self._sending
        left = counts.get(user, 0) - 1
        if left > 0:
            counts[user] = left
        else:
            counts.pop(user, None)

    def sending(self, user: str) -> int:
        return self._sending.get(user, 0)


class Spool:
    """A request's body as it streams in: the first SPOOL bytes in memory, the rest in an unnamed
    file in ``folder`` (the service's own, 0700), nothing kept past ``cap`` bytes (only counted)."""

    def __init__(self, folder: Path, cap: int):
        folder.mkdir(mode=0o700, exist_ok=True)
        self.file = tempfile.SpooledTemporaryFile(max_size=SPOOL, mode="w+b", dir=str(folder))
        self.cap, self.size = cap, 0

    def write(self, chunk: bytes) -> None:
        room = self.cap - self.size
        if room > 0:
            self.file.write(chunk[:room])
        self.size += len(chunk)

    @property
    def over(self) -> bool:
        return self.size > self.cap

    def read(self) -> bytes:
        self.file.seek(0)
        return self.file.read()

    def close(self) -> None:
        self.file.close()
