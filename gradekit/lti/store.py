"""The course's LTI tables, in the course's database (the gradebook's ``db_url``: SQLite or PostgreSQL).

    lti_context     one LMS course (issuer, deployment, context id) and its service URLs (AGS line items,
                    NRPS memberships), as launches and deep links gave them
    lti_person      who is who in it: the LMS's user id (sub), the hub username, roles, names, status
                    (a student who drops is kept: status Inactive or Deleted, their grades untouched)
    lti_lineitem    one line item per (context, assignment); the row is made, unique, before the LMS
                    is asked to create one, so that two processes cannot make two
    lti_wanted      what the LMS should hold for each (context, assignment, student), as last put in
                    the outbox (its digest, and the timestamp it carries)
    lti_outbox      each score to send: its body (with its original timestamp, kept for every resend),
                    state pending -> sent | failed | superseded, tries, when next, the last error

Written through SQLAlchemy Core (nbgrader's own dependency), one short transaction at a time.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time

from sqlalchemy import (
    Column,
    Float,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
    create_engine,
    event,
)

meta = MetaData()

contexts = Table(
    "lti_context",
    meta,
    Column("key", String(64), primary_key=True),
    Column("issuer", String(512), nullable=False),
    Column("deployment_id", String(255), nullable=False),
    Column("context_id", String(255), nullable=False),
    Column("title", String(512)),
    Column("lineitems_url", String(1024)),
    Column("memberships_url", String(1024)),
    Column("updated", Float, nullable=False),
)

people = Table(
    "lti_person",
    meta,
    Column("context_key", String(64), primary_key=True),
    Column("sub", String(255), primary_key=True),
    Column("student", String(128)),
    Column("roles", Text, nullable=False),
    Column("name", String(255)),
    Column("email", String(255)),
    Column("status", String(32), nullable=False),
    Column("updated", Float, nullable=False),
)

lineitems = Table(
    "lti_lineitem",
    meta,
    Column("context_key", String(64), primary_key=True),
    Column("assignment", String(128), primary_key=True),
    Column("url", String(1024)),
    Column("claimed", Float, nullable=False),  # when a process set out to find or make it
)

wanted = Table(
    "lti_wanted",
    meta,
    Column("context_key", String(64), primary_key=True),
    Column("assignment", String(128), primary_key=True),
    Column("student", String(128), primary_key=True),
    Column("digest", String(64), nullable=False),
    Column("timestamp", String(40), nullable=False),
)

outbox = Table(
    "lti_outbox",
    meta,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("context_key", String(64), nullable=False),
    Column("assignment", String(128), nullable=False),
    Column("student", String(128), nullable=False),
    Column("body", Text, nullable=False),
    Column("state", String(16), nullable=False),  # pending, sent, failed, superseded
    Column("tries", Integer, nullable=False),
    Column("next_at", Float, nullable=False),
    Column("error", Text),
    Column("created", Float, nullable=False),
    Column("sent", Float),
    UniqueConstraint("context_key", "assignment", "student", "created", name="lti_outbox_once"),
)

_ENGINES: dict[str, object] = {}
_LOCK = threading.Lock()


def engine(course):
    """The course database's engine, its LTI tables made if missing (one per process and URL)."""
    url = course.db_url
    with _LOCK:
        found = _ENGINES.get(url)
        if found is None:
            if url.split(":", 1)[0].split("+", 1)[0] == "postgresql":
                from gradekit.extras import require

                require("postgres")
            kwargs: dict = {}
            if url.startswith("sqlite"):
                kwargs["connect_args"] = {"timeout": 30}
            found = create_engine(url, **kwargs)
            if url.startswith("sqlite"):
                event.listen(found, "connect", _sqlite_pragmas)
            meta.create_all(found, checkfirst=True)
            _ENGINES[url] = found
    return found


def _sqlite_pragmas(dbapi_connection, _record) -> None:
    dbapi_connection.execute("PRAGMA busy_timeout = 30000")


def context_key(issuer: str, deployment_id: str, context_id: str) -> str:
    return hashlib.sha256(f"{issuer}\0{deployment_id}\0{context_id}".encode()).hexdigest()[:32]


def digest(body: dict) -> str:
    """What a score says, its timestamp aside: equal digests need no new send."""
    same = {k: v for k, v in body.items() if k != "timestamp"}
    return hashlib.sha256(json.dumps(same, sort_keys=True).encode()).hexdigest()[:32]


def now() -> float:
    return time.time()
