"""One queue per student, served in turn: a class's hand-ins graded fairly, a flood throttled.

At most one of a student's hand-ins is graded at a time, and the students take
turns (whoever has waited longest goes first), so a student who floods inbound/
waits behind their own hand-ins, not the class behind them. Under a minimum
interval between graded hand-ins (the policy's ``min_interval``) only a
student's newest waiting hand-in is kept: an older one still waiting is
superseded -- received, recorded, never graded.
"""

from __future__ import annotations

import datetime as dt
from collections import OrderedDict, deque
from collections.abc import Container
from dataclasses import dataclass, field

from gradekit.exchange.ledger import Entry


@dataclass
class Waiting:
    key: tuple[str, str]  # (assignment, student)
    entry: Entry  # the hand-in, as the ledger holds it
    not_before: dt.datetime  # the policy's earliest time to grade it


@dataclass
class Queues:
    newest_only: bool | frozenset[str] = False  # the policy throttles (all, or these assignments): keep a
    # student's newest waiting hand-in alone
    waiting: OrderedDict[tuple[str, str], deque[Waiting]] = field(default_factory=OrderedDict)
    busy: set[tuple[str, str]] = field(default_factory=set)

    def put(self, item: Waiting) -> list[Entry]:
        """Queue ``item``; the entries it supersedes (the student's older waiting ones, when throttled)."""
        queue = self.waiting.setdefault(item.key, deque())
        throttled = self.newest_only is True or (
            not isinstance(self.newest_only, bool) and item.key[0] in self.newest_only
        )
        superseded = [w.entry for w in queue] if throttled else []
        if throttled:
            queue.clear()
        queue.append(item)
        return superseded

    def ready(self, now: dt.datetime, skip: Container[tuple[str, str]] = ()) -> list[Waiting]:
        """The hand-ins to grade now, one per student who has none in grading (nor in ``skip``:
        being graded otherwise, a regrade), longest waiting first."""
        out = []
        for key, queue in list(self.waiting.items()):
            if key in self.busy or key in skip or not queue or queue[0].not_before > now:
                continue
            out.append(queue.popleft())
            self.busy.add(key)
            self.waiting.move_to_end(key)  # took a turn: to the back of the line
            if not queue:
                del self.waiting[key]
        return out

    def done(self, key: tuple[str, str]) -> None:
        self.busy.discard(key)

    def __len__(self) -> int:
        return sum(len(q) for q in self.waiting.values()) + len(self.busy)
