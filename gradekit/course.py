"""The course directory: nbgrader's layout, its config, and the course secret.

The course root is the current directory, as in nbgrader: it holds
``nbgrader_config.py``, ``source/<assignment>/``, ``autograder/<assignment>/``
(hidden graders), ``solutions/<assignment>/`` (reference code) and the
generated ``release/``, ``submitted/``, ``autograded/`` and ``feedback/``.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import secrets
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gradekit.errors import CourseError, UsageError
from gradekit.untrusted import require_id

SECRET_ENV = "GRADEKIT_SECRET"
SECRET_FILE = Path(".gradekit") / "secret"
SECRET_CHECK = Path(".gradekit") / "secret.check"  # which secret the notebooks were generated with


def _secret_digest(value: bytes) -> str:
    """A keyed digest that tells secrets apart without revealing one."""
    import hashlib
    import hmac

    return hmac.new(
        value, b"gradekit: the secret this course's notebooks were generated with", hashlib.sha256
    ).hexdigest()


__all__ = ["Course", "require_id", "load_config", "keep_out_of_git"]


def keep_out_of_git(directory: Path, made_by: str) -> None:
    """A ``.gitignore`` in ``directory`` that keeps it all out of git, itself included: for a folder
    of students' work or answers that a command made where its user said (``--keep DIR``), which no
    course's own .gitignore can name in advance."""
    (directory / ".gitignore").write_text(
        f"# made by `{made_by}`: what it holds (answers, students' work) stays out of git\n*\n", encoding="utf-8"
    )


def _settings_class():
    """``c.Gradekit.*`` in nbgrader_config.py: gradekit's own configurable (built on first use,
    so that importing this module does not import traitlets)."""
    global _Settings
    if _Settings is not None:
        return _Settings
    from traitlets import Bool, Enum, Float, List, Unicode

    Configurable: Any = _traitlets_config("configurable").Configurable

    namespace: dict[str, Any] = dict(
        __doc__="gradekit's settings for a course, read from ``c.Gradekit`` in nbgrader_config.py.",
        language=Unicode("en", help="The language students read when languages.csv names none").tag(config=True),
        stages=List(
            Unicode(), default_value=[], help="The grading stages, as import paths (empty: gradekit's default list)"
        ).tag(config=True),
        unanswered_free_text_zero=Bool(
            False,
            help="Give a free-text answer left untouched 0 points automatically instead of waiting for a manual grade",
        ).tag(config=True),
        identities=Unicode(
            "",
            help="Who is who in the exchange: a CSV of account,student_id (relative to the course); empty: the "
            "Unix account's name is the student id, as in nbgrader",
        ).tag(config=True),
        timestamp_tolerance=Float(
            60.0,
            help="Seconds a submission's timestamp.txt may differ from when it really arrived before it is "
            "reported (the time it arrived counts)",
        ).tag(config=True),
        staff_group=Unicode(
            "",
            help="The Unix group of the instructors and TAs, who read the exchange's inbound folder (empty: the "
            "instructor's own group)",
        ).tag(config=True),
        exchange=Enum(
            ["filesystem", "hub"],
            default_value="filesystem",
            help="How assignments go out and hand-ins come in: 'filesystem' (nbgrader's exchange folders, a Unix "
            "account per student) or 'hub' (gradekit's hub exchange service: students known by their hub login; "
            "c.GradekitHubExchange.url and token_file say where it is)",
        ).tag(config=True),
    )
    namespace.update(_assignment_traits())  # the settings an assignment may override (gradekit.settings.KEYS)
    Gradekit = type("Gradekit", (Configurable,), namespace)
    _Settings = Gradekit
    return Gradekit


_Settings: type | None = None


def _assignment_traits() -> dict[str, Any]:
    """c.Gradekit's traits for the keys of gradekit.settings that a course sets a default for."""
    from traitlets import Float, Int, List, Unicode

    from gradekit.settings import KEYS

    make = {"choice": Unicode, "count": Int, "int": Int, "seconds": Float, "positive": Float}
    traits = {}
    for key in KEYS:
        if key.course:
            text = key.help + (f"; an assignment sets its own in [{key.section}] of its assignment.toml")
            if key.kind == "names":
                trait = List(Unicode(), default_value=list(key.default), help=text)
            else:
                trait = make[key.kind](key.default, help=text)
            traits[key.name] = trait.tag(config=True)
    return traits


# c.Gradekit keys that are no longer the course's: each names where it went
MOVED = {
    "choice_cells": "choice_cells in [grading]",
    "hidden_until_due": "hidden_until_due in [serve]",
    "assignments": "the limits in [limits]",
}


def _traitlets_config(module: str):
    """``traitlets.config.<module>`` without the package's ``__init__``, which imports the whole
    Application machinery (logging.config, argparse helpers): a course's config needs only the
    loader and Configurable (see :mod:`gradekit.imports`)."""
    from gradekit.imports import without_package_init

    return without_package_init("traitlets.config", f"traitlets.config.{module}")


def load_config(root: str | os.PathLike, **overrides):
    """The course's nbgrader_config.py as a traitlets Config, with ``{"Class.trait": value}``
    overrides: the one loader of a course's configuration (:meth:`Course.load` keeps what it
    loaded as :attr:`Course.config`). A config that does not load is a CourseError."""
    loader = _traitlets_config("loader")
    try:
        # a logger of our own: traitlets' default one imports its Application machinery
        config = loader.PyFileConfigLoader(
            "nbgrader_config.py", path=str(root), log=logging.getLogger("gradekit")
        ).load_config()
    except Exception as exc:  # a syntax error in the instructor's config
        raise CourseError(f"nbgrader_config.py does not load: {exc}") from None
    if overrides:
        extra = loader.Config()
        for key, value in overrides.items():
            section, trait = key.split(".", 1)
            extra[section][trait] = value
        config.merge(extra)
    return config


def _require_known_settings(config) -> None:
    """Every ``c.Gradekit.<key>`` of nbgrader_config.py is one of its settings: a CourseError of one
    line for one that moved to the assignments' files, or that is not a setting at all."""
    given = list((config.get("Gradekit") or {}).keys())
    known = sorted(_settings_class().class_traits(config=True))
    for name in given:
        if name in MOVED:
            raise CourseError(
                f"nbgrader_config.py: c.Gradekit.{name} is an assignment's setting now: put {MOVED[name]} of "
                f"source/<assignment>/assignment.toml (cell and notebook names are each assignment's own)"
            )
        if name not in known:
            raise CourseError(
                f"nbgrader_config.py: c.Gradekit.{name} is not a setting (c.Gradekit's settings: {', '.join(known)})"
            )


@dataclass(frozen=True)
class Course:
    """A course directory and the settings nbgrader_config.py gives it."""

    root: Path
    course_id: str
    db_url: str
    settings: Any = field(default=None, compare=False, repr=False)  # c.Gradekit (see _settings_class)
    config: Any = field(default=None, compare=False, repr=False)  # all of nbgrader_config.py (load_config)
    _assignment_settings: dict = field(default_factory=dict, compare=False, repr=False)  # settings_of's

    @property
    def limits(self):
        """The sandbox limits this course sets (``c.Gradekit.cell_timeout`` and the others)."""
        return self.limits_for(None)

    def limits_for(self, assignment: str | None):
        """The limits for ``assignment``: the course's, with its assignment.toml's [limits] on top."""
        if assignment is None:
            from gradekit.settings import AssignmentSettings

            return AssignmentSettings("", self._defaults()).limits
        return self.settings_of(assignment).limits

    def settings_of(self, assignment: str):
        """``assignment``'s settings (:class:`gradekit.settings.AssignmentSettings`): its
        source/<assignment>/assignment.toml over the course's defaults; read once."""
        found = self._assignment_settings.get(assignment)
        return found if found is not None else self.reread_settings(assignment)

    def reread_settings(self, assignment: str):
        """``assignment``'s settings read again from its file (``gradekit serve``, after it changed):
        what :meth:`settings_of` gives from now on. A file that no longer reads raises its
        CourseError and leaves the settings read before in place."""
        from gradekit import settings

        own = [name for name in _settings_class().class_traits(config=True) if name not in settings.BY_NAME]
        found = settings.load(self.root, require_id("assignment", assignment), self._defaults(), own)
        self._assignment_settings[assignment] = found
        return found

    def _defaults(self) -> dict[str, Any]:
        from gradekit import settings

        return settings.course_defaults(self.settings or _settings_class()())

    @classmethod
    def load(cls, root: str | os.PathLike = ".") -> Course:
        root = Path(root).resolve()
        config_file = root / "nbgrader_config.py"
        if not config_file.is_file():
            above = next(
                (
                    p
                    for p in Path(root).resolve().parents
                    if (p / "nbgrader_config.py").is_file() and (p / "source").is_dir()
                ),
                None,
            )
            hint = (
                f"; did you mean the course in {above}? Run gradekit there, or give --course {above}"
                if above
                else "; run gradekit in the course directory, or give --course DIR"
            )
            raise UsageError(f"{root} is not a course directory: no nbgrader_config.py{hint}")
        config = load_config(root)
        cd = config.get("CourseDirectory", {})
        course_id = str(cd.get("course_id", "") or "course")
        db_url = str(cd.get("db_url", "") or f"sqlite:///{root / 'gradebook.db'}")
        if db_url.startswith("sqlite:///") and not db_url.startswith("sqlite:////"):
            # nbgrader resolves relative sqlite paths against the course root
            db_url = f"sqlite:///{root / db_url[len('sqlite:///') :]}"
        _require_known_settings(config)
        try:
            settings = _settings_class()(config=config)
        except Exception as exc:  # a TraitError: a setting of the wrong type
            raise CourseError(f"nbgrader_config.py: {str(exc).splitlines()[0]}") from None
        from gradekit.settings import course_defaults

        course_defaults(settings)  # a CourseError naming the setting whose value is out of range
        return cls(root=root, course_id=course_id, db_url=db_url, settings=settings, config=config)

    # -- directories -------------------------------------------------------
    def source_dir(self, assignment: str) -> Path:
        return self.root / "source" / require_id("assignment", assignment)

    def graders_dir(self, assignment: str) -> Path:
        return self.root / "autograder" / assignment

    def solutions_dir(self, assignment: str) -> Path:
        return self.root / "solutions" / assignment

    def release_dir(self, student: str, assignment: str) -> Path:
        return self.root / "release" / require_id("student", student) / assignment

    def submitted_dir(self, student: str, assignment: str) -> Path:
        return self.root / "submitted" / require_id("student", student) / assignment

    def autograded_dir(self, student: str, assignment: str) -> Path:
        return self.root / "autograded" / require_id("student", student) / assignment

    def feedback_dir(self, student: str, assignment: str) -> Path:
        return self.root / "feedback" / require_id("student", student) / assignment

    def assignments(self) -> list[str]:
        base = self.root / "source"
        return sorted(p.name for p in base.iterdir() if p.is_dir()) if base.is_dir() else []

    def source_of(self, assignment: str) -> Path:
        """``source/<assignment>/``; a UsageError naming the known ones when there is none."""
        directory = self.source_dir(assignment)
        if not directory.is_dir():
            raise UsageError(f"unknown assignment {assignment!r} (known: {', '.join(self.assignments()) or 'none'})")
        self.settings_of(assignment)  # its settings file, checked before anything of it is used
        return directory

    # -- one grading run at a time ----------------------------------------------
    @contextlib.contextmanager
    def lock(self, name: str, wait: float = 0.0) -> Iterator[None]:
        """An exclusive lock on this course for ``name``; a second run fails at once, or after
        ``wait`` seconds of trying (a service taking over from one that is stopping)."""
        import time

        path = self.root / ".gradekit" / f"{name}.lock"
        path.parent.mkdir(mode=0o700, exist_ok=True)
        deadline = time.monotonic() + wait
        with open(path, "a+") as fh:
            while True:
                try:
                    fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() < deadline:
                        time.sleep(0.2)
                        continue
                    fh.seek(0)
                    holder = fh.read().strip() or "another process"
                    raise UsageError(
                        f"another `gradekit {name}` is running on this course ({holder}); wait for it to finish"
                    ) from None
            fh.seek(0)
            fh.truncate()
            fh.write(f"pid {os.getpid()}")
            fh.flush()
            try:
                yield
            finally:
                fh.seek(0)
                fh.truncate()
                fcntl.flock(fh, fcntl.LOCK_UN)

    # -- the secret ----------------------------------------------------------
    def secret(self) -> bytes:
        """The course secret: $GRADEKIT_SECRET, else .gradekit/secret (made on first use).

        Once notebooks have been generated with it (:meth:`pin_secret`), another secret
        -- a forgotten $GRADEKIT_SECRET, a lost .gradekit/secret -- is a CourseError: with
        it, every student would be graded against numbers they never saw."""
        env = os.environ.get(SECRET_ENV)
        path = self.root / SECRET_FILE
        if env:
            value = env.encode()
        else:
            if not path.exists():
                if (self.root / SECRET_CHECK).exists():
                    raise CourseError(
                        f"no course secret: ${SECRET_ENV} is not set and {SECRET_FILE} does not exist, but this "
                        f"course's notebooks were generated with one; set ${SECRET_ENV} to it (a new secret "
                        f"would give every student other numbers than those they were handed; to start over "
                        f"with new numbers for everyone, delete {SECRET_CHECK} and generate again)"
                    )
                path.parent.mkdir(mode=0o700, exist_ok=True)
                fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
                with os.fdopen(fd, "w") as fh:
                    fh.write(secrets.token_hex(32))
            value = path.read_text().strip().encode()
            if not value:
                raise CourseError(
                    f"{path} is empty: put the course secret back in it"
                    + ("" if (self.root / SECRET_CHECK).exists() else ", or delete it to make a new one")
                )
        self._check_secret(value, env)
        return value

    def pin_secret(self, value: bytes) -> None:
        """Note which secret the course's notebooks are generated with (not the secret itself:
        a keyed digest of it), once; :meth:`secret` refuses any other from then on."""
        check = self.root / SECRET_CHECK
        if not check.exists():
            check.parent.mkdir(mode=0o700, exist_ok=True)
            temporary = check.with_name(f".{check.name}.{os.getpid()}")
            temporary.write_text(_secret_digest(value) + "\n")
            try:
                os.link(temporary, check)  # whole or not at all; of two first generates, one wins
            except FileExistsError:
                pass
            finally:
                temporary.unlink()
        self._check_secret(value, os.environ.get(SECRET_ENV))  # one that lost a race to another secret stops

    def _check_secret(self, value: bytes, env: str | None) -> None:
        try:
            pinned = (self.root / SECRET_CHECK).read_text().strip()
        except OSError:
            return
        if pinned != _secret_digest(value):
            where = f"${SECRET_ENV}" if env else str(SECRET_FILE)
            other = (
                f" (is ${SECRET_ENV} another course's? unset it to use {SECRET_FILE})"
                if env and (self.root / SECRET_FILE).exists()
                else ""
            )
            raise CourseError(
                f"the course secret ({where}) is not the one this course's notebooks were generated with "
                f"({SECRET_CHECK}){other}: every student would be graded against other numbers than theirs. Use "
                f"that secret; or, to start over with new numbers for everyone, delete {SECRET_CHECK} and generate "
                f"again"
            )
