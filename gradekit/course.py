"""The course directory: nbgrader's layout, its config, and the course secret.

The course root is the current directory, as in nbgrader: it holds
``nbgrader_config.py``, ``source/<assignment>/``, ``autograder/<assignment>/``
(hidden graders), ``solutions/<assignment>/`` (reference code) and the
generated ``release/``, ``submitted/``, ``autograded/`` and ``feedback/``.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from .errors import CourseError

SECRET_ENV = "GRADEKIT_SECRET"
SECRET_FILE = Path(".gradekit") / "secret"
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.@+-]{0,127}$")


def check_id(kind: str, value: str) -> str:
    """Reject ids that could escape a directory or confuse a path."""
    if not _ID.match(value or "") or value in {".", ".."}:
        raise CourseError(f"invalid {kind} id {value!r}: use letters, digits and _.@+-")
    return value


@dataclass(frozen=True)
class Course:
    """A course directory and the settings nbgrader_config.py gives it."""

    root: Path
    course_id: str
    db_url: str
    # c.Gradekit.zero_unanswered: a free-text answer left as handed out scores 0 at once
    # instead of waiting for a manual grade (off by default, as in nbgrader)
    zero_unanswered: bool = False
    # c.Gradekit.choice_cells: grade ids of multiple-choice cells (one check per item, each wrong
    # option a named mistake); the class report shows how often each option was chosen
    choice_cells: tuple[str, ...] = ()

    @classmethod
    def load(cls, root: str | os.PathLike = ".") -> "Course":
        root = Path(root).resolve()
        config_file = root / "nbgrader_config.py"
        if not config_file.is_file():
            raise CourseError(f"{root} is not a course directory: no nbgrader_config.py")
        from traitlets.config.loader import PyFileConfigLoader

        try:
            config = PyFileConfigLoader("nbgrader_config.py", path=str(root)).load_config()
        except Exception as exc:  # a syntax error in the instructor's config
            raise CourseError(f"nbgrader_config.py does not load: {exc}") from None
        cd = config.get("CourseDirectory", {})
        course_id = str(cd.get("course_id", "") or "course")
        db_url = str(cd.get("db_url", "") or f"sqlite:///{root / 'gradebook.db'}")
        if db_url.startswith("sqlite:///") and not db_url.startswith("sqlite:////"):
            # nbgrader resolves relative sqlite paths against the course root
            db_url = f"sqlite:///{root / db_url[len('sqlite:///'):]}"
        gk = config.get("Gradekit", {})
        zero = gk.get("zero_unanswered", False)
        choice = gk.get("choice_cells", ())
        if not isinstance(zero, bool):
            raise CourseError(f"nbgrader_config.py: c.Gradekit.zero_unanswered must be True or False, not {zero!r}")
        if not isinstance(choice, (list, tuple)) or not all(isinstance(c, str) for c in choice):
            raise CourseError("nbgrader_config.py: c.Gradekit.choice_cells must be a list of grade ids")
        return cls(root=root, course_id=course_id, db_url=db_url, zero_unanswered=zero,
                   choice_cells=tuple(choice))

    # -- directories -------------------------------------------------------
    def source_dir(self, assignment: str) -> Path:
        return self.root / "source" / check_id("assignment", assignment)

    def graders_dir(self, assignment: str) -> Path:
        return self.root / "autograder" / assignment

    def solutions_dir(self, assignment: str) -> Path:
        return self.root / "solutions" / assignment

    def release_dir(self, student: str, assignment: str) -> Path:
        return self.root / "release" / check_id("student", student) / assignment

    def submitted_dir(self, student: str, assignment: str) -> Path:
        return self.root / "submitted" / check_id("student", student) / assignment

    def autograded_dir(self, student: str, assignment: str) -> Path:
        return self.root / "autograded" / check_id("student", student) / assignment

    def feedback_dir(self, student: str, assignment: str) -> Path:
        return self.root / "feedback" / check_id("student", student) / assignment

    def assignments(self) -> list[str]:
        base = self.root / "source"
        return sorted(p.name for p in base.iterdir() if p.is_dir()) if base.is_dir() else []

    # -- one grading run at a time ----------------------------------------------
    @contextlib.contextmanager
    def lock(self, name: str) -> Iterator[None]:
        """An exclusive lock on this course for ``name``; a second run fails at once."""
        path = self.root / ".gradekit" / f"{name}.lock"
        path.parent.mkdir(mode=0o700, exist_ok=True)
        with open(path, "a+") as fh:
            try:
                fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                fh.seek(0)
                holder = fh.read().strip() or "another process"
                raise CourseError(f"another `gradekit {name}` is running on this course ({holder}); "
                                  "wait for it to finish") from None
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
        """The course secret: $GRADEKIT_SECRET, else .gradekit/secret (made on first use)."""
        env = os.environ.get(SECRET_ENV)
        if env:
            return env.encode()
        path = self.root / SECRET_FILE
        if not path.exists():
            path.parent.mkdir(mode=0o700, exist_ok=True)
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w") as fh:
                fh.write(secrets.token_hex(32))
        value = path.read_text().strip()
        if not value:
            raise CourseError(f"{path} is empty: delete it to make a new secret")
        return value.encode()
