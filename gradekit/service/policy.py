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
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass


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
        """The attempt that counts among ``graded`` (attempt, score) pairs, oldest first."""
        if self.counts == "best":
            return max(graded, key=lambda pair: (pair[1], pair[0]))[0]  # a tie: the later one
        return graded[-1][0]
