"""Launches into the course's tables: the LMS course and its service URLs, and who the person is."""

from __future__ import annotations

import json

from sqlalchemy import and_, insert, select, update

from gradekit.lti import claims, spool, store
from gradekit.lti.platform import folder


def ingest(course) -> int:
    """Every launch the hub recorded, into the course's tables; each file deleted once it is in."""
    count = 0
    for path in spool.pending(folder(course)):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            path.unlink(missing_ok=True)
            continue
        record(course, data.get("claims") or {}, str(data.get("username") or ""))
        path.unlink(missing_ok=True)
        count += 1
    return count


def record(course, token: dict, username: str) -> str | None:
    """One launch's context and person; returns the context's key (None: a launch without a context)."""
    context = token.get(claims.CONTEXT) or {}
    if not context.get("id"):
        return None
    key = store.context_key(token.get("iss", ""), token.get(claims.DEPLOYMENT_ID, ""), context["id"])
    ags = token.get(claims.AGS_ENDPOINT) or {}
    nrps = token.get(claims.NRPS) or {}
    values = {
        "issuer": token.get("iss", ""),
        "deployment_id": token.get(claims.DEPLOYMENT_ID, ""),
        "context_id": context["id"],
        "title": context.get("title") or context.get("label") or "",
        "updated": store.now(),
    }
    if ags.get("lineitems") and claims.SCOPE_SCORE in (ags.get("scope") or []):
        values["lineitems_url"] = ags["lineitems"]
    if nrps.get("context_memberships_url"):
        values["memberships_url"] = nrps["context_memberships_url"]
    person = claims.Member(
        sub=str(token.get("sub", "")),
        username=username,
        roles=tuple(token.get(claims.ROLES) or ()),
        name=token.get("name") or "",
        email=token.get("email") or "",
    )
    db = store.engine(course)
    upsert(db, store.contexts, {"key": key}, values)
    if person.sub:
        save_person(db, key, person)
    return key


def save_person(db, key: str, member: claims.Member) -> None:
    values = {
        "student": member.username or None,
        "roles": json.dumps(list(member.roles)),
        "name": member.name or " ".join(p for p in (member.given_name, member.family_name) if p),
        "email": member.email,
        "status": member.status,
        "updated": store.now(),
    }
    if not member.username:
        values.pop("student")  # a launch gave it before: keep it
    upsert(db, store.people, {"context_key": key, "sub": member.sub}, values)


def upsert(db, table, keys: dict, values: dict) -> None:
    where = and_(*(table.c[k] == v for k, v in keys.items()))
    with db.begin() as conn:
        if conn.execute(update(table).where(where).values(**values)).rowcount == 0:
            if conn.execute(select(*[table.c[k] for k in keys]).where(where)).first() is None:
                conn.execute(insert(table).values(**keys, **values))
