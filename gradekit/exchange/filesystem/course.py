"""The filesystem exchange: nbgrader's exchange folders, with gradekit's modes and its judge of hand-ins.

    releases out    gradekit.exchange.filesystem.release.GradekitReleaseAssignment: outbound/<a>/<student>/, that
                    student's alone (an ACL entry, or chowned to them)
    hand-ins in     inbound/<student>+<a>+<time>+<random>/, read as gradekit.exchange.filesystem.inbound reads them: the
                    account that owns the folder is who handed it in, its latest change time is when
                    (``c.GradekitCollect.trust_names``: the name says who, for one account that simulates a
                    class); watched through inotify, or polled (gradekit.exchange.filesystem.watch)
    feedback back   feedback/<hash>.html, the hash nbgrader's fetch_feedback looks for (layout.feedback_name
                    of the hand-in's submission_secret.txt), readable by its student alone
                    (layout.release_pages; gradekit.service.delivery is what releases through it)
    listing         what the modes let a student see: their own folder of outbound/, their own hand-ins
                    (the ledger's), their own feedback

Who may read what is :mod:`gradekit.exchange.filesystem.layout`.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from gradekit.exchange.base import CourseExchange, Events, Listed, Released
from gradekit.exchange.filesystem import layout

if TYPE_CHECKING:  # pragma: no cover
    from gradekit.exchange.handin import Handin
    from gradekit.exchange.identity import Identities

QUIET = 5.0  # seconds after its last change a folder with nbgrader's final mode missing is taken as complete


class FilesystemExchange(CourseExchange):
    """nbgrader's exchange folders (see the module's docstring)."""

    kind = "filesystem"
    label = "nbgrader exchange"

    def __init__(self, course, here: Path | None = None):
        super().__init__(course)
        self.here = here or layout.course_exchange(course)  # <Exchange.root>/<course>/
        self.inbound = self.here / "inbound"
        self.feedback_dir = self.here / "feedback"
        self.trust_names = bool((course.config or {}).get("GradekitCollect", {}).get("trust_names", False))
        self.incomplete: dict[str, float] = {}  # a folder still being written: name -> first seen
        self._identities: Identities | None = None

    @property
    def identities(self) -> Identities:
        if self._identities is None:
            from gradekit.exchange.identity import Identities

            self._identities = Identities.of(self.course)
        return self._identities

    # -- releases out ---------------------------------------------------------------------------
    def publish(self, assignment: str, force: bool = False, student: str | None = None) -> Released:
        from gradekit.exchange.filesystem.release import GradekitReleaseAssignment
        from gradekit.exchange.filesystem.steps import run_step

        overrides: dict[str, bool | str] = {"ExchangeReleaseAssignment.force": force}
        if student:
            overrides["CourseDirectory.student_id"] = student
        step = run_step(GradekitReleaseAssignment, self.course.root, assignment, **overrides)
        return Released(dict(step.protection))

    def released(self) -> list[str]:
        outbound = self.here / "outbound"
        return sorted(p.name for p in outbound.iterdir() if p.is_dir()) if outbound.is_dir() else []

    # -- hand-ins in ----------------------------------------------------------------------------
    def ready(self, wait: float = 0.0) -> str | None:
        if not self.inbound.is_dir():
            return (
                f"no exchange for {self.course.course_id} at {self.inbound.parent}: release an assignment "
                "first (gradekit release ASSIGNMENT)"
            )
        return None

    def where(self, poll: float = 0.0) -> str:
        return f"watching {self.inbound} ({f'polling every {poll:g} s' if poll else 'inotify'})"

    def events(self, poll: float = 0.0) -> Events:
        from gradekit.exchange.filesystem.watch import Watcher

        return Watcher(self.inbound, poll)

    def look(self, names: list[str] | None, assignments: list[str]) -> list[Handin]:
        from gradekit.exchange.filesystem.inbound import parse_name, read_handin

        if names is None:
            try:
                names = sorted(os.listdir(self.inbound))
            except OSError:
                names = []
        out = []
        for name in list(dict.fromkeys([*names, *self.incomplete])):
            parsed = parse_name(name)
            if parsed is None or parsed[1] not in assignments:
                continue
            if not self._complete(name):
                self.incomplete.setdefault(name, time.monotonic())
                continue
            self.incomplete.pop(name, None)
            out.append(read_handin(self.inbound, name, self.identities, trust_names=self.trust_names))
        return out

    def _complete(self, name: str) -> bool:
        """Whether nbgrader's submit has finished writing the folder: its last step gives the folder
        group permissions (gradekit's 0770, nbgrader's 0777); one without them counts once it has
        been quiet for a while (a submit that died half-way, another tool)."""
        try:
            st = os.lstat(self.inbound / name)
        except OSError:
            return True  # gone, or not readable: judged (and refused) as it is
        return bool(st.st_mode & 0o070) or time.time() - st.st_ctime >= QUIET

    # -- feedback back --------------------------------------------------------------------------
    def give_feedback(self, student: str, assignment: str, submission: Path, pages: dict[str, str]) -> bool:
        return layout.give_feedback(self.course, self.feedback_dir, student, submission, pages)

    def feedback_given(self, assignment: str, submissions: Mapping[str, Path]) -> set[str]:
        given = set()
        for student, submission in submissions.items():
            secret = layout.read_submission_secret(submission)
            notebooks = sorted(p.stem for p in submission.glob("*.ipynb"))
            if secret and any((self.feedback_dir / layout.feedback_name(secret, nb)).exists() for nb in notebooks):
                given.add(student)
        return given

    # -- what a student may list ----------------------------------------------------------------
    def listing(self, student: str) -> list[Listed]:
        from gradekit.exchange.ledger import LEDGER, Ledger

        out = []
        if not (self.course.root / LEDGER).exists():
            return [Listed(a, (self.here / "outbound" / a / student).is_dir()) for a in self.released()]
        with Ledger(self.course) as ledger:
            for assignment in self.released():
                mine = [e for e in ledger.entries(assignment, student) if e.accepted]
                with_feedback = []
                for entry in mine:
                    files = ledger.kept(entry)
                    secret = files.get("submission_secret.txt", b"").decode("utf-8", "replace")
                    names = [layout.feedback_name(secret, Path(p).stem) for p in files if p.endswith(".ipynb")]
                    if secret and names and all((self.feedback_dir / n).exists() for n in names):
                        with_feedback.append(entry.ref.place)
                out.append(
                    Listed(
                        assignment,
                        (self.here / "outbound" / assignment / student).is_dir(),
                        tuple(e.ref.place for e in mine),
                        tuple(with_feedback),
                    )
                )
        return out
