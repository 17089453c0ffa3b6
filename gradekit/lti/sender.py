"""The outbox, sent: each pending row in turn, with backoff, and nothing sent twice.

A row is sent as it was put in: its body carries the timestamp of the moment it was wanted, so that a
resend after a lost answer (a timeout, a ``kill -9`` between the LMS's 200 and the row marked sent)
is the same score to the LMS, which keeps one (the AGS spec: a score no newer than the last applied
is not applied again; Canvas takes an equal timestamp as the same score). A row is marked sent only
after the LMS said 2xx.

    retry           a timeout, a refused connection, 408, 429, 5xx: tried again after ``Backoff``
                    (doubling from ``first`` to ``cap`` seconds); when one send succeeds again, every
                    row waiting on a retry is due at once (the LMS is back)
    failed          any other refusal (400 a timestamp older than the LMS's last, 403 not a learner,
                    422): kept with the LMS's one line, shown by ``gradekit lti status``; ``gradekit lti
                    sync`` puts them back in the queue

Line items are found or made just before the first score of an (LMS course, assignment) goes
(:func:`lineitem`): looked up by resource id and tag, made only by the process that holds its row in
``lti_lineitem``, so that retries, restarts, deep links and two processes make one.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass

from sqlalchemy import and_, insert, select, update
from sqlalchemy.exc import IntegrityError

from gradekit.errors import LMSUnavailable
from gradekit.lti import store
from gradekit.lti.services import Connector, lms_error, tag_of

CLAIM_STALE = 60.0  # seconds: a line item's claim older than this was left by a process that died
BATCH = 50  # rows read at a time


@dataclass(frozen=True)
class Backoff:
    first: float = 1.0  # seconds before the first retry
    cap: float = 60.0  # the longest wait between tries

    def delay(self, tries: int) -> float:
        base = min(self.cap, self.first * 2 ** max(0, tries - 1))
        return base * random.uniform(0.8, 1.0)


@dataclass(frozen=True)
class Sent:
    sent: int
    retrying: int
    failed: int
    lines: tuple[str, ...]  # one per failure or retry, for the log


def send_due(course, connector: Connector, backoff: Backoff = Backoff(), limit: int = 10_000) -> Sent:
    """Send every pending row that is due, oldest first; stop early at an LMS that does not answer."""
    db = store.engine(course)
    o = store.outbox.c
    sent = retrying = failed = 0
    lines: list[str] = []
    down = False
    while not down and sent + failed + retrying < limit:
        with db.connect() as conn:
            rows = conn.execute(
                select(o.id, o.context_key, o.assignment, o.student, o.body, o.tries)
                .where(o.state == "pending", o.next_at <= store.now())
                .order_by(o.id)
                .limit(BATCH)
            ).all()
        if not rows:
            break
        for row in rows:
            try:
                url = lineitem(course, connector, row.context_key, row.assignment)
                connector.post_score(url, json.loads(row.body))
            except LMSUnavailable as exc:
                tries = row.tries + 1
                if exc.retry:
                    wait = backoff.delay(tries)
                    _mark(db, row.id, tries=tries, next_at=store.now() + wait, error=str(exc))
                    retrying += 1
                    lines.append(f"LTI: {row.student} {row.assignment}: {exc}; try {tries + 1} in {wait:.1f} s")
                    if exc.status is None or exc.status >= 500:
                        down = True  # the rest would wait on it too: try them after their own backoff
                        _defer_others(db, row.id, wait)
                        break
                else:
                    _mark(db, row.id, tries=tries, state="failed", error=str(exc))
                    failed += 1
                    lines.append(f"LTI: {row.student} {row.assignment} not sent: {exc}")
                continue
            first_after_retry = row.tries > 0
            _mark(db, row.id, tries=row.tries + 1, state="sent", sent=store.now(), error=None)
            sent += 1
            if first_after_retry:
                with db.begin() as conn:  # the LMS is back: what waits on a retry goes now
                    conn.execute(update(store.outbox).where(o.state == "pending", o.tries > 0).values(next_at=0.0))
    return Sent(sent, retrying, failed, tuple(lines))


def _mark(db, row_id: int, **values) -> None:
    with db.begin() as conn:
        conn.execute(
            update(store.outbox).where(store.outbox.c.id == row_id, store.outbox.c.state == "pending").values(**values)
        )


def _defer_others(db, row_id: int, wait: float) -> None:
    o = store.outbox.c
    with db.begin() as conn:
        conn.execute(
            update(store.outbox)
            .where(o.state == "pending", o.id != row_id, o.next_at < store.now() + wait)
            .values(next_at=store.now() + wait)
        )


def lineitem(course, connector: Connector, key: str, assignment: str, label: str = "") -> str:
    """The URL of the line item of ``assignment`` in the LMS course ``key``: the one stored, else the
    one the LMS has with its resource id and tag, else a new one -- made by one process only."""
    from gradekit.lti.want import read, source_maximum

    db = store.engine(course)
    li = store.lineitems.c
    where = and_(li.context_key == key, li.assignment == assignment)
    with db.begin() as conn:
        row = conn.execute(select(li.url, li.claimed).where(where)).first()
        if row is not None and row.url:
            return row.url
        stamp = store.now()
        if row is None:
            try:
                conn.execute(
                    insert(store.lineitems).values(context_key=key, assignment=assignment, url=None, claimed=stamp)
                )
            except IntegrityError:
                raise lms_error(f"another process is making the line item of {assignment}", True) from None
        elif stamp - row.claimed < CLAIM_STALE:
            raise lms_error(f"another process is making the line item of {assignment}", True)
        elif (
            conn.execute(update(store.lineitems).where(where, li.claimed == row.claimed).values(claimed=stamp)).rowcount
            != 1
        ):
            raise lms_error(f"another process is making the line item of {assignment}", True)
    with db.connect() as conn:
        found = conn.execute(select(store.contexts.c.lineitems_url).where(store.contexts.c.key == key)).scalar_one()
    tag = tag_of(course, assignment)
    try:
        item = connector.find_lineitem(found, assignment, tag)
        if item is None:
            _due, maximum, _held = read(course, assignment)
            maximum = maximum or source_maximum(course, assignment)  # added to the LMS before generate
            if not maximum > 0:
                raise lms_error(f"{assignment} has no points in source/{assignment}/: no line item made for it", False)
            item = connector.create_lineitem(found, label or assignment, maximum, assignment, tag)
    except LMSUnavailable:
        with db.begin() as conn:  # let the next try have it at once
            conn.execute(update(store.lineitems).where(where, li.url.is_(None)).values(claimed=0.0))
        raise
    with db.begin() as conn:
        conn.execute(update(store.lineitems).where(where).values(url=item.url))
    return item.url
