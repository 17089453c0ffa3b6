"""An assignment's rules for live grading: its settings (``source/<assignment>/assignment.toml``
over ``c.Gradekit`` in nbgrader_config.py; see :mod:`gradekit.settings`).

    attempts        graded hand-ins per student and assignment (0: no limit); later ones are received,
                    recorded and not graded
    min_interval    seconds between a student's graded hand-ins: one that arrives sooner waits, and a
                    newer one arriving meanwhile replaces it (a flood is throttled, not graded)
    counts          the attempt that counts: "last" (nbgrader's rule) or "best"
    before_due      what a student sees of an attempt before the due date: "full" feedback, the
                    "score" only, or "received" only
    hidden          notebooks and grade ids whose correctness stays hidden until the due date: the
                    assignment's ``hidden_until_due``, its multiple-choice ``choice_cells`` and, by
                    default, every test cell whose answer is a value (but its ``shown_before_due``):
                    instant feedback on an answer that is a value is an oracle -- a student could
                    hand in until a number is right

After the due date everything shows, and nbgrader's late penalty applies as in
``autograde``.

Two numbers are kept apart: a hand-in's *number* (the ledger's: the student's n-th hand-in of the
assignment, counted or not) and a graded *attempt* (the k-th of their hand-ins that was graded,
"attempt k of N"). :meth:`Policy.counting` says which hand-in counts; a page says which attempt it is.

What may be shown of a result now -- on a page (:meth:`Policy.disclosure`, applied by
gradekit.service.delivery) or anywhere else a score goes, such as an LMS's gradebook
(:meth:`Policy.score_shown`, :meth:`Policy.settled`) -- is this module's to say, and no one else's.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from gradekit.pages.feedback import Disclosure
    from gradekit.results import SubmissionResult


@dataclass(frozen=True)
class Policy:
    attempts: int = 0
    min_interval: float = 0.0
    counts: str = "last"
    before_due: str = "full"
    hidden: frozenset[str] = frozenset()

    @classmethod
    def of(cls, course, assignment: str) -> Policy:
        """``assignment``'s policy, from its settings (a CourseError of one line for a bad one)."""
        s = course.settings_of(assignment)
        return cls(
            attempts=s.attempts,
            min_interval=s.min_interval,
            counts=s.counts,
            before_due=s.before_due,
            hidden=s.visibility().names,
        )

    def changes(self, before: Policy) -> str:
        """What differs from ``before``, in one line ("" when nothing does)."""
        parts = []
        for name in ("attempts", "min_interval", "counts", "before_due"):
            old, new = getattr(before, name), getattr(self, name)
            if old != new:
                parts.append(f"{name} {old!r} -> {new!r}")
        if self.hidden != before.hidden:
            shown = lambda names: ", ".join(sorted(names)) or "nothing"  # noqa: E731
            parts.append(f"hidden until the due date: {shown(before.hidden)} -> {shown(self.hidden)}")
        return "; ".join(parts)

    def held_parts(self, course, assignment: str) -> list[tuple[str, float]]:
        """What this policy hides of ``assignment`` before its due date, each part with its points: a
        notebook whole ("quiz"), or a cell of one ("lab/test_concepts")."""
        import json

        parts: list[tuple[str, float]] = []
        for path in sorted(course.source_of(assignment).glob("*.ipynb")):
            try:
                cells = json.loads(path.read_text()).get("cells", [])
            except (OSError, ValueError):
                continue
            graded = [
                (str(m["grade_id"]), float(m.get("points", 0) or 0))
                for m in (c.get("metadata", {}).get("nbgrader", {}) for c in cells)
                if m.get("grade_id") and (m.get("grade") or m.get("task"))
            ]
            if path.stem in self.hidden:
                parts.append((path.stem, sum(p for _, p in graded)))
            else:
                parts += [(f"{path.stem}/{gid}", p) for gid, p in graded if gid in self.hidden]
        return parts

    def may_grade(self, graded: int) -> bool:
        """Whether one more hand-in is graded when ``graded`` have been."""
        return not self.attempts or graded < self.attempts

    def wait(self, last_graded: dt.datetime | None, now: dt.datetime) -> float:
        """Seconds a hand-in must wait before it is graded (0: now)."""
        if not self.min_interval or last_graded is None:
            return 0.0
        return max(0.0, self.min_interval - (now - last_graded).total_seconds())

    def counting(self, graded: list[tuple[int, float]]) -> int:
        """The number of the hand-in that counts among ``graded``: (hand-in number, score) of the student's
        graded hand-ins, oldest first."""
        if self.counts == "best":
            return max(graded, key=lambda pair: (pair[1], pair[0]))[0]  # a tie: the later one
        return graded[-1][0]

    def disclosure(
        self,
        due: dt.datetime | None,
        now: dt.datetime,
        attempt: int | None = None,
        counting: int | None = None,
        graded: list[tuple[int, float]] | None = None,
    ) -> Disclosure:
        """What a page shows now: everything after the due date (or without one), the policy's
        ``before_due`` and ``hidden`` before it. ``attempt``: which graded attempt of the student's the
        page is of (its "attempt k of N"); ``counting`` (a hand-in's number) and ``graded`` ((hand-in
        number, score), oldest first): the attempt that counts, said on the page."""
        from gradekit.i18n.text import _
        from gradekit.pages.feedback import Disclosure

        said = ""
        if attempt is not None:
            said = (
                _("attempt {k} of {n}").format(k=attempt, n=self.attempts)
                if self.attempts
                else _("attempt {k}").format(k=attempt)
            )
        counting_text = ""
        numbers = [number for number, _score in graded or []]
        after_due = due is None or now > due
        if self.counts == "best" and counting in numbers and (after_due or self._scores_shown()):
            best = next(score for number, score in graded or [] if number == counting)
            counting_text = _("your best attempt counts: attempt {k} ({score:g} points)").format(
                k=numbers.index(counting) + 1, score=best
            )
        elif self.counts == "best" and counting in numbers:
            # the best is the best whole score, what waits for the due date included: which attempt it is,
            # or its score, would tell how the hidden part of each attempt did
            counting_text = _("your best attempt counts: which one is said after the due date")
        elif attempt is not None:
            counting_text = _("your last attempt counts")
        if after_due:
            return Disclosure("full", frozenset(), "", said, counting_text)
        return Disclosure(self.before_due, self.hidden, f"{due:%Y-%m-%d %H:%M} UTC", said, counting_text)

    def settled(self, due: dt.datetime | None, now: dt.datetime) -> bool:
        """Whether everything of a result may be shown now: after the due date, or with none."""
        return due is None or now > due

    def score_shown(self, result: SubmissionResult, due: dt.datetime | None, now: dt.datetime) -> float | None:
        """The score of ``result`` (its final: with the late penalty) that may be shown now, to its student
        or to anything a student reads (an LMS's gradebook): all of it once :meth:`settled`; before, the
        points of what shows (the hidden parts left out), or None where only its arrival shows
        (``before_due = "received"``)."""
        from gradekit.pages.feedback import ShownNow

        disclosure = self.disclosure(due, now)
        if disclosure.level == "received":
            return None
        return ShownNow.of(result, disclosure).shown

    def _scores_shown(self) -> bool:
        """Whether a page before the due date shows a whole score: nothing hidden, and a score at all."""
        return not self.hidden and self.before_due in ("full", "score")


def due_date(course, assignment: str) -> dt.datetime | None:
    """``assignment``'s due date in the gradebook (naive UTC), or None."""
    from gradekit.gradebook import sql_read

    found = sql_read.duedate(course, assignment)
    if found is None:  # not SQLite: nbgrader's API
        from gradekit.gradebook.connect import api, open_gradebook

        with open_gradebook(course) as gb:
            try:
                found = (gb.find_assignment(assignment).duedate,)
            except api().MissingEntry:
                found = (None,)
    return found[0]
