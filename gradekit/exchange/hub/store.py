"""The hub exchange's records and files: a real database, and a folder only the service's account reads.

    <store>/                        0700, the service's account's alone (no disk is shared with students)
      exchange.sqlite               the records, unless a database URL is given (PostgreSQL: the course's)
      blobs/<uuid>.zip              each release, and the files of each hand-in as they were accepted
                                    (a zip the service writes of what it read), 0600

    releases   (course, assignment, user) -> its zip, when released
    handins    a number (the order they were accepted in), course, assignment, the hub user who
               handed it in, the name a refused one claimed, the client's key (a retry with the same key
               is the same hand-in), when it was received (the service's clock), the time its
               timestamp.txt claimed, the files' SHA-256, its zip -- or why it was refused
    feedback   (hand-in, notebook) -> the page, its checksum, when it was given back

A hand-in is in the store once its zip is on disk and its row committed, and only then is the
student told it was received: a service killed in between answered nothing, and the client's retry
(with the same key) hands it in once. Nothing here is ever changed or deleted by a student.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import os
import uuid
from dataclasses import dataclass
from pathlib import Path

import sqlalchemy as sa

from gradekit.exchange.handin import files_sha256
from gradekit.exchange.hub.wire import STAMP, HandinMeta

_meta = sa.MetaData()
RELEASES = sa.Table(
    "gk_releases",
    _meta,
    sa.Column("course", sa.String(128), primary_key=True),
    sa.Column("assignment", sa.String(128), primary_key=True),
    sa.Column("user", sa.String(255), primary_key=True),
    sa.Column("blob", sa.String(64), nullable=False),
    sa.Column("released", sa.String(32), nullable=False),
)
HANDINS = sa.Table(
    "gk_handins",
    _meta,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("course", sa.String(128), nullable=False),
    sa.Column("assignment", sa.String(128), nullable=False),
    sa.Column("user", sa.String(255), nullable=False),  # the hub user whose token handed it in
    sa.Column("named", sa.String(255), nullable=False),  # whom it claimed to be for
    sa.Column("key", sa.String(128), nullable=False),
    sa.Column("received", sa.String(32), nullable=False),
    sa.Column("claimed", sa.String(32)),
    sa.Column("sha256", sa.String(64)),
    sa.Column("nfiles", sa.Integer),
    sa.Column("size", sa.Integer),
    sa.Column("blob", sa.String(64)),
    sa.Column("problem", sa.Text),
    sa.Column("kind", sa.String(32)),
    sa.UniqueConstraint("course", "user", "key", name="gk_handins_once"),
    sqlite_autoincrement=True,  # a number is never given twice, even after a hand-in that did not commit
)
FEEDBACK = sa.Table(
    "gk_feedback",
    _meta,
    sa.Column("handin", sa.Integer, sa.ForeignKey("gk_handins.id"), primary_key=True),
    sa.Column("notebook", sa.String(255), primary_key=True),
    sa.Column("html", sa.Text, nullable=False),
    sa.Column("checksum", sa.String(32), nullable=False),
    sa.Column("released", sa.String(32), nullable=False),
)


def now() -> dt.datetime:
    return dt.datetime.now(dt.UTC).replace(tzinfo=None)


def stamp(value: dt.datetime) -> str:
    return value.strftime(STAMP)


def when(text: str) -> dt.datetime:
    """The time a stamp says (naive UTC)."""
    return dt.datetime.strptime(text, STAMP)


@dataclass(frozen=True)
class Record:
    """One hand-in as the store holds it (the wire carries it as a HandinMeta)."""

    id: int
    course: str
    assignment: str
    user: str
    named: str
    key: str
    received: str
    claimed: str | None
    sha256: str | None
    nfiles: int | None
    size: int | None
    blob: str | None
    problem: str | None
    kind: str | None

    def meta(self, feedback: list[str] | None = None, checksums: dict[str, str] | None = None) -> HandinMeta:
        """It as the wire carries it; ``feedback``: the notebooks whose pages were given back (listings)."""
        return HandinMeta(
            number=self.id,
            assignment=self.assignment,
            user=self.user,
            named=self.named,
            timestamp=self.received,
            claimed=self.claimed,
            sha256=self.sha256,
            files=self.nfiles,
            problem=self.problem,
            kind=self.kind,
            feedback=None if feedback is None else tuple(feedback),
            checksums=tuple(sorted((checksums or {}).items())),
        )


def database_url(url: str, store: Path) -> str:
    """The SQLAlchemy URL of the store's records: ``url`` (postgresql:// through psycopg 3), or SQLite
    in the store."""
    if not url:
        return f"sqlite:///{store / 'exchange.sqlite'}"
    if url.startswith("postgresql://") or url.startswith("postgres://"):
        return "postgresql+psycopg://" + url.split("://", 1)[1]
    return url


class Store:
    """The records and files of one hub exchange (see the module's docstring)."""

    def __init__(self, folder: str | os.PathLike, db_url: str = ""):
        self.folder = Path(folder)
        self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        os.chmod(self.folder, 0o700)
        (self.folder / "blobs").mkdir(mode=0o700, exist_ok=True)
        url = database_url(db_url, self.folder)
        sqlite = url.startswith("sqlite")
        self.engine = sa.create_engine(url, connect_args={"timeout": 30} if sqlite else {}, pool_pre_ping=not sqlite)
        if sqlite:

            @sa.event.listens_for(self.engine, "connect")
            def _wal(conn, _record):  # readers never wait for the writer
                conn.execute("PRAGMA journal_mode=WAL")
                conn.execute("PRAGMA synchronous=FULL")

        _meta.create_all(self.engine)
        if sqlite:
            os.chmod(self.folder / "exchange.sqlite", 0o600)

    def close(self) -> None:
        self.engine.dispose()

    # -- files ------------------------------------------------------------------------------------
    def _put_blob(self, data: bytes) -> str:
        name = uuid.uuid4().hex
        path = self.folder / "blobs" / f"{name}.zip"
        tmp = path.with_suffix(".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.rename(tmp, path)
        return name

    def blob(self, name: str) -> bytes:
        return (self.folder / "blobs" / f"{name}.zip").read_bytes()

    # -- releases ---------------------------------------------------------------------------------
    def release(self, course: str, assignment: str, user: str, data: bytes, force: bool) -> bool:
        """Store ``user``'s release; False when there is one and not ``force``."""
        blob = self._put_blob(data)
        key = {"course": course, "assignment": assignment, "user": user}
        with self.engine.begin() as db:
            old = db.execute(sa.select(RELEASES.c.blob).filter_by(**key)).scalar()
            if old is not None and not force:
                os.unlink(self.folder / "blobs" / f"{blob}.zip")
                return False
            if old is not None:
                db.execute(sa.delete(RELEASES).filter_by(**key))
            db.execute(sa.insert(RELEASES).values(**key, blob=blob, released=stamp(now())))
        return True

    def released_to(self, course: str, assignment: str, user: str) -> bytes | None:
        with self.engine.connect() as db:
            blob = db.execute(
                sa.select(RELEASES.c.blob).filter_by(course=course, assignment=assignment, user=user)
            ).scalar()
        return self.blob(blob) if blob else None

    def releases(self, course: str, user: str | None = None) -> dict[str, list[str]]:
        query = sa.select(RELEASES.c.assignment, RELEASES.c.user).filter_by(course=course)
        if user is not None:
            query = query.filter_by(user=user)
        out: dict[str, list[str]] = {}
        with self.engine.connect() as db:
            for assignment, who in db.execute(query.order_by(RELEASES.c.assignment, RELEASES.c.user)):
                out.setdefault(assignment, []).append(who)
        return out

    # -- hand-ins ---------------------------------------------------------------------------------
    def handin(
        self,
        course: str,
        assignment: str,
        user: str,
        key: str,
        files: dict[str, bytes] | None,
        claimed: dt.datetime | None = None,
        named: str | None = None,
        problem: str | None = None,
        kind: str | None = None,
    ) -> tuple[Record, bool]:
        """Record a hand-in of ``files`` (as read within the limits; or a refused try, with
        ``problem``), received now; (it, whether it is new): a key this user already handed in with is
        that hand-in again."""
        from gradekit.untrusted import pack_zip

        old = self.by_key(course, user, key)
        if old is not None:
            return old, False
        blob = self._put_blob(pack_zip(files)) if files is not None and problem is None else None
        row = {
            "course": course,
            "assignment": assignment,
            "user": user,
            "named": named or user,
            "key": key,
            "received": stamp(now()),
            "claimed": stamp(claimed) if claimed else None,
            "sha256": files_sha256(files) if files is not None and problem is None else None,
            "nfiles": len(files) if files is not None else None,
            "size": sum(len(v) for v in files.values()) if files is not None else None,
            "blob": blob,
            "problem": problem,
            "kind": kind,
        }
        try:
            with self.engine.begin() as db:
                inserted = db.execute(sa.insert(HANDINS).values(**row)).inserted_primary_key
                assert inserted is not None
                new_id = inserted[0]
        except sa.exc.IntegrityError:  # the same key at the same moment: the other one won
            if blob:
                os.unlink(self.folder / "blobs" / f"{blob}.zip")
            found = self.by_key(course, user, key)
            assert found is not None
            return found, False
        return Record(id=int(new_id), **row), True  # type: ignore[arg-type]

    def by_key(self, course: str, user: str, key: str) -> Record | None:
        with self.engine.connect() as db:
            row = db.execute(sa.select(HANDINS).filter_by(course=course, user=user, key=key)).first()
        return Record(**row._mapping) if row else None

    def get(self, course: str, number: int) -> Record | None:
        with self.engine.connect() as db:
            row = db.execute(sa.select(HANDINS).filter_by(course=course, id=number)).first()
        return Record(**row._mapping) if row else None

    def handins(self, course: str, after: int = 0, user: str | None = None, assignment: str | None = None):
        query = sa.select(HANDINS).where(HANDINS.c.course == course, HANDINS.c.id > after)
        if user is not None:
            query = query.where(HANDINS.c.user == user, HANDINS.c.problem.is_(None))
        if assignment is not None:
            query = query.where(HANDINS.c.assignment == assignment)
        with self.engine.connect() as db:
            return [Record(**row._mapping) for row in db.execute(query.order_by(HANDINS.c.id))]

    def recent(self, course: str, user: str, since: dt.datetime) -> list[str]:
        """When ``user``'s accepted hand-ins since ``since`` were received, oldest first."""
        with self.engine.connect() as db:
            return list(
                db.execute(
                    sa.select(HANDINS.c.received)
                    .where(HANDINS.c.course == course, HANDINS.c.user == user, HANDINS.c.problem.is_(None))
                    .where(HANDINS.c.received >= stamp(since))
                    .order_by(HANDINS.c.received)
                ).scalars()
            )

    # -- feedback ---------------------------------------------------------------------------------
    def give_feedback(self, handin: Record, pages: dict[str, str]) -> None:
        when = stamp(now())
        with self.engine.begin() as db:
            for notebook, html in pages.items():
                db.execute(sa.delete(FEEDBACK).filter_by(handin=handin.id, notebook=notebook))
                db.execute(
                    sa.insert(FEEDBACK).values(
                        handin=handin.id,
                        notebook=notebook,
                        html=html,
                        checksum=hashlib.md5(html.encode()).hexdigest(),
                        released=when,
                    )
                )

    def feedback(self, handins: list[int], with_html: bool = True) -> dict[int, dict[str, dict]]:
        """hand-in number -> notebook -> {"checksum", "html"?}."""
        if not handins:
            return {}
        columns = [FEEDBACK.c.handin, FEEDBACK.c.notebook, FEEDBACK.c.checksum]
        if with_html:
            columns.append(FEEDBACK.c.html)
        out: dict[int, dict[str, dict]] = {}
        with self.engine.connect() as db:
            for row in db.execute(sa.select(*columns).where(FEEDBACK.c.handin.in_(handins))):
                page = {"checksum": row.checksum}
                if with_html:
                    page["html"] = row.html
                out.setdefault(row.handin, {})[row.notebook] = page
        return out
