"""Wanted vs last wanted: an outbox row for each difference.

For each LMS course (a context whose launches gave an AGS line-items URL), each assignment and each of
its students with an LMS user who is a learner there (Brightspace, and the spec, take no scores for
anyone else): :func:`gradekit.lti.want.scores` says what the LMS should hold; when
that differs from what was last put in the outbox (``lti_wanted``'s digest), a new row goes in with
the timestamp of now, and an unsent row for the same student is superseded (the LMS needs only the
newest). Two processes reconciling at once put in one row: the change of ``lti_wanted`` is
conditional on what was read (a row another process changed first is left to it).
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass

from sqlalchemy import and_, insert, select, update
from sqlalchemy.exc import IntegrityError

from gradekit.lti import claims, store, want


@dataclass(frozen=True)
class Reconciled:
    queued: int  # new outbox rows
    unmapped: tuple[str, ...]  # students with a score and no LMS user in any course (not launched, not in a roster)
    next_due: dt.datetime | None  # the earliest due date still ahead: reconcile again then


def reconcile(course, assignments: list[str], now: dt.datetime | None = None) -> Reconciled:
    now = now or dt.datetime.now(dt.UTC).replace(tzinfo=None)
    db = store.engine(course)
    with db.connect() as conn:
        linked = (
            conn.execute(select(store.contexts.c.key).where(store.contexts.c.lineitems_url.isnot(None))).scalars().all()
        )
        people = conn.execute(
            select(store.people.c.context_key, store.people.c.student, store.people.c.sub, store.people.c.roles).where(
                store.people.c.student.isnot(None), store.people.c.status == "Active"
            )
        ).all()
    subs: dict[str, list[tuple[str, str]]] = {}
    for key, student, sub, roles in people:
        if key in linked and claims.learns(json.loads(roles or "[]")):  # LMSs take scores for learners only
            subs.setdefault(student, []).append((key, sub))
    queued, unmapped, ahead = 0, set(), []
    for assignment in assignments:
        wanted, due = want.scores(course, assignment, now)
        if due is not None and due > now:
            ahead.append(due)
        for score in wanted:
            targets = subs.get(score.student, [])
            if not targets:
                unmapped.add(score.student)
            for key, sub in targets:
                queued += _enqueue(db, key, score, sub, now)
    return Reconciled(queued, tuple(sorted(unmapped)), min(ahead) if ahead else None)


def _enqueue(db, key: str, score: want.Score, sub: str, now: dt.datetime) -> int:
    """One outbox row if ``score`` differs from what was last wanted for it; 1 if one went in."""
    timestamp = want.iso(dt.datetime.now(dt.UTC))  # the moment it was wanted: kept for every resend
    body = score.body(sub, timestamp)
    digest = store.digest(body)
    w = store.wanted.c
    where = and_(w.context_key == key, w.assignment == score.assignment, w.student == score.student)
    with db.begin() as conn:
        held = conn.execute(select(w.digest).where(where)).scalar_one_or_none()
        if held == digest:
            return 0
        try:
            if held is None:
                conn.execute(
                    insert(store.wanted).values(
                        context_key=key,
                        assignment=score.assignment,
                        student=score.student,
                        digest=digest,
                        timestamp=timestamp,
                    )
                )
            else:
                changed = conn.execute(
                    update(store.wanted).where(where, w.digest == held).values(digest=digest, timestamp=timestamp)
                ).rowcount
                if changed != 1:
                    return 0  # another process changed it first: its row stands
        except IntegrityError:
            return 0
        o = store.outbox.c
        conn.execute(
            update(store.outbox)
            .where(
                o.context_key == key, o.assignment == score.assignment, o.student == score.student, o.state == "pending"
            )
            .values(state="superseded")
        )
        stamp = store.now()
        conn.execute(
            insert(store.outbox).values(
                context_key=key,
                assignment=score.assignment,
                student=score.student,
                body=json.dumps(body),
                state="pending",
                tries=0,
                next_at=stamp,
                error=None,
                created=stamp,
                sent=None,
            )
        )
    return 1
