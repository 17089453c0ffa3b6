"""Each served assignment's policy and due date, as ``gradekit serve`` holds them while it runs.

Both are read at the start and again while the service runs, for an instructor may change them
without stopping it:

    policy      the assignment's settings (gradekit.settings, gradekit.service.policy), looked at
                every SETTINGS_EVERY seconds: a changed assignment.toml applies from the next
                hand-in on, with a line saying so; a file that no longer reads leaves the policy in
                force, with a line naming what is wrong
    due date    nbgrader's, read again at most every DUE_EVERY seconds

$GRADEKIT_SERVE_LOOKS gives both intervals instead (the tests make them short).
"""

from __future__ import annotations

import datetime as dt
import os
import time
from collections.abc import Callable
from pathlib import Path

from gradekit.course import Course
from gradekit.errors import CourseFailure, UsageError
from gradekit.service.policy import Policy, due_date
from gradekit.settings import SETTINGS_FILE

SETTINGS_EVERY = 2.0  # seconds between looks at whether an assignment's settings file changed
DUE_EVERY = 5.0  # seconds a due date read stays in use before it is read again (an instructor may set it)
LOOKS_ENV = "GRADEKIT_SERVE_LOOKS"  # seconds between both looks instead, when set (the tests make it short)


def every(default: float) -> float:
    """``default``, or the seconds $GRADEKIT_SERVE_LOOKS gives instead."""
    given = os.environ.get(LOOKS_ENV)
    if not given:
        return default
    try:
        return float(given)
    except ValueError:
        raise UsageError(f"${LOOKS_ENV} is a number of seconds, not {given!r}") from None


def _stamp(path: Path) -> tuple[int, int, int] | None:
    """What tells a file changed (inode, size, modification time), or None when there is none."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_ino, st.st_size, st.st_mtime_ns


class Policies:
    """The policies and due dates of the assignments a service serves (see the module's docstring);
    ``say`` takes the service's one line per event."""

    def __init__(self, course: Course, assignments: list[str], say: Callable[[str], None]):
        self.course, self.say = course, say
        self._policies = {assignment: Policy.of(course, assignment) for assignment in assignments}
        now = time.monotonic()
        self._seen = {a: (_stamp(course.source_of(a) / SETTINGS_FILE), now) for a in assignments}
        self.settings_every, self.due_every = every(SETTINGS_EVERY), every(DUE_EVERY)
        self._dues: dict[str, tuple[dt.datetime | None, float]] = {}

    @property
    def throttled(self) -> frozenset[str]:
        """The assignments whose policy grades a student's hand-ins no closer than a time apart."""
        return frozenset(a for a, p in self._policies.items() if p.min_interval > 0)

    def of(self, assignment: str) -> Policy:
        """``assignment``'s policy as it stands now (its settings file read again if it changed)."""
        stamp, looked = self._seen[assignment]
        now = time.monotonic()
        if now - looked >= self.settings_every:
            current = _stamp(self.course.source_of(assignment) / SETTINGS_FILE)
            self._seen[assignment] = (current, now)
            if current != stamp:
                self._reread(assignment)
        return self._policies[assignment]

    def _reread(self, assignment: str) -> None:
        where = f"source/{assignment}/{SETTINGS_FILE}"
        try:
            self.course.reread_settings(assignment)
            policy = Policy.of(self.course, assignment)
        except CourseFailure as exc:
            self.say(f"{exc} -- the settings read before stay in force until it is fixed")
            return
        before, self._policies[assignment] = self._policies[assignment], policy
        changed = policy.changes(before)
        self.say(f"{where} read again: {changed or 'nothing changed for gradekit serve'}")

    def due(self, assignment: str) -> dt.datetime | None:
        """The assignment's due date, read again at most every DUE_EVERY seconds."""
        cached = self._dues.get(assignment)
        if cached is not None and time.monotonic() - cached[1] < self.due_every:
            return cached[0]
        found = due_date(self.course, assignment)
        self._dues[assignment] = (found, time.monotonic())
        return found
