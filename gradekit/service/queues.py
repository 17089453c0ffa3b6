"""One queue per student, served in turn: a class's hand-ins graded fairly, a flood throttled.

A student's newest waiting hand-in is the one graded next (an older one still
waiting is superseded: received, recorded, never graded); at most one of a
student's is graded at a time; and the students take turns, oldest waiting first,
so a student who floods inbound/ waits behind their own hand-ins, not the class
behind them.
"""

from __future__ import annotations

import datetime as dt
from collections import OrderedDict
from dataclasses import dataclass, field

from gradekit.intake.ledger import Entry


@dataclass
class Waiting:
    key: tuple[str, str]  # (assignment, student)
    entry: Entry  # the hand-in, as the ledger holds it
    not_before: dt.datetime  # the policy's earliest time to grade it


@dataclass
class Queues:
    waiting: OrderedDict[tuple[str, str], Waiting] = field(default_factory=OrderedDict)
    busy: set[tuple[str, str]] = field(default_factory=set)

    def put(self, item: Waiting) -> Entry | None:
        """Queue ``item``; the entry it supersedes (the student's older waiting one), if any."""
        old = self.waiting.pop(item.key, None)
        self.waiting[item.key] = item  # to the back: others who waited longer go first
        return old.entry if old is not None else None

    def ready(self, now: dt.datetime) -> list[Waiting]:
        """The waiting hand-ins to grade now, in turn (one per student, none of a busy student's)."""
        out = [w for key, w in self.waiting.items() if key not in self.busy and w.not_before <= now]
        for w in out:
            del self.waiting[w.key]
            self.busy.add(w.key)
        return out

    def done(self, key: tuple[str, str]) -> None:
        self.busy.discard(key)

    def __len__(self) -> int:
        return len(self.waiting) + len(self.busy)
