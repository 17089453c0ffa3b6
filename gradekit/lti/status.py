"""``gradekit lti status``: what the outbox holds -- pending (and when next), failed (and why), sent."""

from __future__ import annotations

import time

from sqlalchemy import func, select

from gradekit.lti import store


def lines(course) -> list[str]:
    o = store.outbox.c
    out = []
    with store.engine(course).connect() as conn:
        counts = dict(conn.execute(select(o.state, func.count()).group_by(o.state)).all())
        contexts = conn.execute(select(func.count()).select_from(store.contexts)).scalar_one()
        items = conn.execute(
            select(func.count()).select_from(store.lineitems).where(store.lineitems.c.url.isnot(None))
        ).scalar_one()
        pending = conn.execute(
            select(o.student, o.assignment, o.tries, o.next_at, o.error).where(o.state == "pending").order_by(o.id)
        ).all()
        failed = conn.execute(select(o.student, o.assignment, o.error).where(o.state == "failed").order_by(o.id)).all()
    out.append(
        f"{contexts} LMS course(s), {items} line item(s); scores: {counts.get('sent', 0)} sent, "
        f"{counts.get('pending', 0)} pending, {counts.get('failed', 0)} failed, "
        f"{counts.get('superseded', 0)} superseded by a newer one before they went"
    )
    now = time.time()
    for student, assignment, tries, next_at, error in pending:
        when = "now" if next_at <= now else f"in {next_at - now:.0f} s"
        why = f" (after {tries} tr{'y' if tries == 1 else 'ies'}: {error})" if tries else ""
        out.append(f"pending {student} {assignment}: {when}{why}")
    for student, assignment, error in failed:
        out.append(f"failed {student} {assignment}: {error} (gradekit lti sync sends it again)")
    return out
