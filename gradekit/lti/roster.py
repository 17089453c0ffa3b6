"""``gradekit lti roster``: the LMS course's members (NRPS) into nbgrader's gradebook and the hub.

Each member is saved with their LMS user id, roles, names and status (``lti_person``). A learner
whose username the platform's username rule gives (:func:`gradekit.lti.claims.username_of`; for a
``custom_`` claim, which NRPS does not carry, the username their own launch gave) is added to the
gradebook or updated there (names, email, ``lms_user_id``), and everyone to the hub's users; who
teaches joins the instructors group at their launch (the hub's login manages groups: its API
refuses changes to them). A member who is no longer listed is marked Inactive: nothing of
theirs leaves the gradebook (their grades stay), and no score is sent for them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from sqlalchemy import select

from gradekit.lti import claims, store
from gradekit.lti.launches import save_person


@dataclass(frozen=True)
class Synced:
    learners: tuple[str, ...]  # in the gradebook now
    teachers: tuple[str, ...]
    dropped: tuple[str, ...]  # listed before, not now: kept, grades and all
    unnamed: int  # members with no username yet (a custom claim: until their first launch)
    hub: str  # what the hub was told, in one line ("" when no hub was reachable)
    new: tuple[str, ...] = ()  # learners new to the gradebook: their notebooks are still to generate and release


def sync(course, platform, connector, hub=None) -> Synced:
    db = store.engine(course)
    with db.connect() as conn:
        contexts = conn.execute(
            select(store.contexts.c.key, store.contexts.c.memberships_url).where(
                store.contexts.c.memberships_url.isnot(None)
            )
        ).all()
    learners: dict[str, claims.Member] = {}
    teachers: set[str] = set()
    dropped: set[str] = set()
    unnamed = 0
    for key, url in contexts:
        with db.connect() as conn:
            known = {
                row.sub: row
                for row in conn.execute(
                    select(store.people.c.sub, store.people.c.student, store.people.c.status).where(
                        store.people.c.context_key == key
                    )
                )
            }
        listed = set()
        for raw in connector.members(url):
            status = str(raw.get("status") or "Active")
            sub = str(raw.get("user_id", ""))
            username = claims.username_of(raw, platform.username_claim) or (
                known[sub].student if sub in known and known[sub].student else ""
            )
            member = claims.Member(
                sub=sub,
                username=username,
                roles=tuple(raw.get("roles") or ()),
                name=str(raw.get("name") or ""),
                given_name=str(raw.get("given_name") or ""),
                family_name=str(raw.get("family_name") or ""),
                email=str(raw.get("email") or ""),
                status=status,
            )
            save_person(db, key, member)
            if status != "Active":
                continue
            listed.add(sub)
            if not username:
                unnamed += 1
            elif member.teaches:
                teachers.add(username)
            elif member.learns:
                learners[username] = member
        for sub, row in known.items():
            if sub not in listed and row.status == "Active":
                with db.begin() as conn:
                    conn.execute(
                        store.people.update()
                        .where(store.people.c.context_key == key, store.people.c.sub == sub)
                        .values(status="Inactive", updated=store.now())
                    )
                if row.student:
                    dropped.add(row.student)
    dropped -= set(learners)
    new = _into_gradebook(course, learners.values())
    told = _into_hub(course, hub, sorted(learners), sorted(teachers)) if hub else ""
    return Synced(tuple(sorted(learners)), tuple(sorted(teachers)), tuple(sorted(dropped)), unnamed, told, new)


def _into_gradebook(course, members) -> tuple[str, ...]:
    """Each member in the gradebook (added or updated); the usernames it did not hold before."""
    from gradekit.gradebook.connect import open_gradebook
    from gradekit.untrusted import is_valid_id

    members = [m for m in members if is_valid_id(m.username)]
    if not members:
        return ()
    with open_gradebook(course) as gb:
        before = {s.id for s in gb.students}
        for m in members:
            fields = {"lms_user_id": m.sub}
            if m.given_name or m.family_name:
                fields.update(first_name=m.given_name, last_name=m.family_name)
            if m.email:
                fields["email"] = m.email
            gb.update_or_create_student(m.username, **fields)
    return tuple(sorted(m.username for m in members if m.username not in before))


def _into_hub(course, hub, learners: list[str], teachers: list[str]) -> str:
    """The hub's users and its instructors group, through its REST API (``hub``: (api_url, token))."""
    import requests

    api, token = hub
    headers = {"Authorization": f"token {token}"}
    try:
        have = {u["name"] for u in requests.get(f"{api}/users", headers=headers, timeout=10).json()}
        new = [n for n in [*learners, *teachers] if n not in have]
        if new:
            requests.post(
                f"{api}/users", headers=headers, data=json.dumps({"usernames": new}), timeout=10
            ).raise_for_status()
    except (requests.RequestException, ValueError, KeyError, TypeError) as exc:
        return f"the hub was not told ({type(exc).__name__}: {str(exc)[:120]})"
    return f"the hub: {len(new)} new user(s) (who teaches joins the instructors group at their launch)"
