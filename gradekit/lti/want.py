"""What the LMS should hold: f(the gradebook, the assignment's policy, now).

Every way a counting score changes -- ``gradekit serve``, ``autograde``, a regrade, a manual grade,
a late penalty -- ends in nbgrader's gradebook, so the gradebook alone is read here (its grades with
the instructor's overrides, the late penalties, the hand-in's time). The assignment's policy is
applied in this one function, :func:`scores`, so that nothing hidden before the due date can reach
the LMS by any path:

    after the due date (or with none)   the whole score, less nbgrader's late penalty;
                                        activityProgress Completed; gradingProgress FullyGraded,
                                        or PendingManual while a cell waits for a person
    before it                           activityProgress Submitted, gradingProgress Pending, and a
                                        score only where the policy shows one (before_due "full" or
                                        "score"): the points of what shows, the hidden cells and
                                        notebooks left out; none where the policy shows only that
                                        it was received, or where which attempt counts would tell
                                        how the hidden part did (counts = "best" with hidden parts)

A student with no submission is not sent anything (the LMS shows the hand-in as missing).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from gradekit.lti import claims

PENDING, PENDING_MANUAL, FULLY_GRADED = "Pending", "PendingManual", "FullyGraded"
SUBMITTED, COMPLETED = "Submitted", "Completed"


@dataclass(frozen=True)
class Score:
    """One student's score of one assignment as the LMS should hold it (no LMS ids yet)."""

    student: str
    assignment: str
    given: float | None  # None: no score is shown yet
    maximum: float
    activity: str
    grading: str
    submitted_at: str  # the hand-in's time, ISO 8601 UTC ("" when the gradebook has none)

    def body(self, user_id: str, timestamp: str) -> dict:
        """The AGS score, for the LMS user ``user_id``, carrying ``timestamp`` (its original one)."""
        body: dict = {
            "userId": user_id,
            "activityProgress": self.activity,
            "gradingProgress": self.grading,
            "timestamp": timestamp,
        }
        if self.given is not None:
            body["scoreGiven"] = round(self.given, 4)
            body["scoreMaximum"] = round(self.maximum, 4)  # whenever scoreGiven is (Canvas: 422 otherwise)
        if self.submitted_at:
            body[claims.CANVAS_SUBMISSION] = {"submitted_at": self.submitted_at}
        return body


def iso(when: dt.datetime) -> str:
    """ISO 8601 with microseconds and a time zone (a naive datetime is UTC, as nbgrader stores them)."""
    if when.tzinfo is None:
        when = when.replace(tzinfo=dt.UTC)
    return when.astimezone(dt.UTC).isoformat(timespec="microseconds")


@dataclass(frozen=True)
class _Cell:
    notebook: str
    name: str
    score: float
    waits: bool  # a person has yet to grade it


@dataclass(frozen=True)
class Held:
    """One student's submission as the gradebook holds it."""

    student: str
    timestamp: dt.datetime | None
    cells: tuple[_Cell, ...]
    penalty: float


def scores(course, assignment: str, now: dt.datetime | None = None) -> tuple[list[Score], dt.datetime | None]:
    """Every submitted student's :class:`Score` of ``assignment`` as the LMS should hold it ``now`` (naive
    UTC), and the assignment's due date."""
    from gradekit.service.policy import Policy

    now = now or dt.datetime.now(dt.UTC).replace(tzinfo=None)
    policy = Policy.of(course, assignment)
    due, maximum, held = read(course, assignment)
    after = due is None or now > due
    shows_score = policy.before_due in ("full", "score") and not (policy.counts == "best" and policy.hidden)
    out = []
    for h in held:
        submitted = iso(h.timestamp) if h.timestamp else ""
        if after:
            total = max(0.0, sum(c.score for c in h.cells) - h.penalty)
            waits = any(c.waits for c in h.cells)
            out.append(
                Score(
                    h.student,
                    assignment,
                    total,
                    maximum,
                    COMPLETED,
                    PENDING_MANUAL if waits else FULLY_GRADED,
                    submitted,
                )
            )
            continue
        shown = None
        if shows_score:
            shown = sum(c.score for c in h.cells if c.name not in policy.hidden and c.notebook not in policy.hidden)
        out.append(Score(h.student, assignment, shown, maximum, SUBMITTED, PENDING, submitted))
    return out, due


def read(course, assignment: str) -> tuple[dt.datetime | None, float, list[Held]]:
    """(the due date, the assignment's maximum, each submission) from the gradebook, SQLite or PostgreSQL."""
    from sqlalchemy import func, select

    from gradekit.gradebook.connect import api
    from gradekit.lti.store import engine

    orm = api()
    A, N, SA, SN, G, BC = (
        orm.Assignment,
        orm.Notebook,
        orm.SubmittedAssignment,
        orm.SubmittedNotebook,
        orm.Grade,
        orm.BaseCell,
    )
    GC, TC = orm.GradeCell, orm.TaskCell
    with engine(course).connect() as db:
        found = db.execute(
            select(A.__table__.c.id, A.__table__.c.duedate).where(A.__table__.c.name == assignment)
        ).first()
        if found is None:
            return None, 0.0, []
        aid, due = found
        cell_max = func.coalesce(GC.__table__.c.max_score, TC.__table__.c.max_score, 0.0)
        nb, bc = N.__table__.c, BC.__table__.c
        maximum = db.execute(
            select(func.coalesce(func.sum(cell_max), 0.0))
            .select_from(
                BC.__table__.join(N.__table__, bc.notebook_id == nb.id)
                .outerjoin(GC.__table__, GC.__table__.c.id == bc.id)
                .outerjoin(TC.__table__, TC.__table__.c.id == bc.id)
            )
            .where(nb.assignment_id == aid, bc.type.in_(("GradeCell", "TaskCell")))
        ).scalar_one()
        sa, sn, g = SA.__table__.c, SN.__table__.c, G.__table__.c
        rows = db.execute(
            select(
                sa.student_id,
                sa.timestamp,
                nb.name,
                bc.name,
                g.auto_score,
                g.manual_score,
                g.extra_credit,
                g.needs_manual_grade,
                sn.late_submission_penalty,
                sn.id,
            )
            .select_from(
                G.__table__.join(SN.__table__, g.notebook_id == sn.id)
                .join(SA.__table__, sn.assignment_id == sa.id)
                .join(N.__table__, sn.notebook_id == nb.id)
                .join(BC.__table__, g.cell_id == bc.id)
            )
            .where(sa.assignment_id == aid)
        ).all()
    by_student: dict[str, dict] = {}
    for student, timestamp, notebook, cell, auto, manual, extra, needs, penalty, sn_id in rows:
        entry = by_student.setdefault(student, {"timestamp": timestamp, "cells": [], "penalties": {}})
        score = (manual if manual is not None else (auto or 0.0)) + (extra or 0.0)
        entry["cells"].append(_Cell(notebook, cell, float(score), bool(needs) and manual is None))
        entry["penalties"][sn_id] = float(penalty or 0.0)
    held = [
        Held(s, _naive(e["timestamp"]), tuple(e["cells"]), sum(e["penalties"].values()))
        for s, e in sorted(by_student.items())
    ]
    return _naive(due), float(maximum or 0.0), held


def _naive(value) -> dt.datetime | None:
    if value is None or value == "":
        return None
    if isinstance(value, str):
        value = dt.datetime.fromisoformat(value)
    return value.astimezone(dt.UTC).replace(tzinfo=None) if value.tzinfo else value


def source_maximum(course, assignment: str) -> float:
    """The assignment's points as its source notebooks give them (graded and task cells), for a line item
    made before ``gradekit generate`` has told the gradebook (0.0 when the source has none)."""
    import json

    total = 0.0
    for path in sorted(course.source_dir(assignment).glob("*.ipynb")):
        try:
            cells = json.loads(path.read_text(encoding="utf-8")).get("cells", [])
        except (OSError, ValueError):
            continue
        for cell in cells:
            meta = (cell.get("metadata") or {}).get("nbgrader") or {}
            if meta.get("grade") or meta.get("task"):
                try:
                    total += float(meta.get("points") or 0)
                except (TypeError, ValueError):
                    continue
    return total
