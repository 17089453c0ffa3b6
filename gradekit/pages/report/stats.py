"""The class report's numbers, from :class:`ClassData` to one plain dict (``report.json``).

Every figure the page shows is in this dict, and the page shows only what is
in it, so the HTML, report.json and report.csv cannot disagree.

    class_counts    submitted, graded, not gradable (with reasons), late, waiting for a manual grade
    scores          total and per-notebook: mean, median, quartiles, histogram
    items           per graded cell: mean %, full and zero shares, discrimination, flags
    misconceptions  per exercise: each named mistake, how many students, who (see misconceptions.py)
    concept_checks  per multiple-choice item: how often each option was chosen
    health          grading time, the slowest submissions and why, timeouts, crashes, restored tampering
    students        one row per student

Discrimination, as in classical test theory (and PrairieLearn's question
statistics): the item-rest correlation (Pearson's r between the item's score
and the rest of the total, so the item does not correlate with itself), and
the upper-lower index (mean item score of the top 27% by total minus that of
the bottom 27%, as a share of the item's points).
"""

from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING, Any

import numpy as np

from gradekit.pages.report.data import GRADED, NOT_GRADABLE, NOT_SUBMITTED, ClassData, Row
from gradekit.pages.report.misconceptions import concept_checks, misconceptions, student_mistakes

if TYPE_CHECKING:  # pragma: no cover
    from gradekit.results import SubmissionResult

# flags for an item (a graded cell); the discrimination flags need this many scored students
TOO_HARD, TOO_EASY = 0.30, 0.90  # mean share of the points
WEAK_DISCRIMINATION = 0.20  # item-rest r below this: does not tell strong from weak
MIN_FOR_DISCRIMINATION = 10
MIN_FOR_DIFFICULTY = 5

TIMEOUT = re.compile(r"no answer within|timed out|did not finish|used up its grading time", re.I)
KILLED = re.compile(r"killed by SIG|exited with status|kept crashing|grading process died", re.I)


def build(data: ClassData) -> dict:
    graded = data.graded
    report: dict[str, Any] = {
        "assignment": data.assignment,
        "course": data.course.course_id,
        "duedate": data.duedate.isoformat(sep=" ") if data.duedate is not None else None,
        "class": class_counts(data),
        "scores": scores(data),
        "items": items(data),
        "misconceptions": misconceptions(data),
        "concept_checks": concept_checks(data),
        "health": health(data),
        "students": students(data),
        "integrity": data.integrity,
        "handins": data.handins,
        "rubrics": rubric_counts(data),
    }
    report["class"]["graded_students"] = len(graded)
    return report


def rubric_counts(data: ClassData) -> list[dict]:
    """Per question a person graded with a rubric (gradekit grade): how many answers they graded, and
    how many got each item, counted from the results."""
    from gradekit.pages.look import signed_points

    titles = {c.grade_id: c.exercise.title for c in data.layout}
    out = []
    for rubric in data.rubrics:
        given = [
            cell.rubric
            for r in data.graded
            if (cell := r.cell(rubric.notebook, rubric.grade_cell)) is not None and cell.rubric is not None
        ]
        if not rubric.items and not given:
            continue
        graded = len(given)
        counts = [sum(1 for got in given if item in got) for item in rubric.items]
        order = sorted(range(len(rubric.items)), key=lambda k: -counts[k])  # stable: the rubric's order
        out.append(
            {
                "cell": rubric.cell,
                "title": titles.get(rubric.grade_cell, rubric.cell),
                "graded": graded,
                "answers": sum(1 for r in data.graded if r.cell(rubric.notebook, rubric.grade_cell) is not None),
                "items": [
                    {
                        "text": rubric.items[k].text,
                        "points": signed_points(rubric.items[k].points),
                        "count": counts[k],
                        "share": counts[k] / graded if graded else None,
                    }
                    for k in order
                ],
            }
        )
    return out


def _result(row: Row) -> SubmissionResult:
    """The result of a row that has one: every graded or not-gradable row (rows with a result)."""
    assert row.result is not None
    return row.result


# -- the class ----------------------------------------------------------------------


def class_counts(data: ClassData) -> dict:
    rows = data.students
    submitted = [r for r in rows if r.status != NOT_SUBMITTED]
    reasons: dict[str, list[str]] = {}
    for r in rows:
        if r.status == NOT_GRADABLE:
            reasons.setdefault(_reason_kind(r.reason), []).append(r.student)
    waiting = {r.student: _waiting(r) for r in rows if r.status == GRADED and _waiting(r)}
    unanswered = sum(1 for r in data.graded for nb in _result(r).notebooks for c in nb.cells if not c.answered)
    return {
        "students": len(rows),
        "submitted": len(submitted),
        "graded": sum(1 for r in rows if r.status == GRADED),
        "not_gradable": sum(1 for r in rows if r.status == NOT_GRADABLE),
        "not_gradable_reasons": [
            {"reason": k, "count": len(v), "students": v}
            for k, v in sorted(reasons.items(), key=lambda kv: (-len(kv[1]), kv[0]))
        ],
        "not_submitted": len(rows) - len(submitted),
        "late": sum(1 for r in submitted if r.seconds_late > 0),
        "late_penalised": sum(1 for r in submitted if r.result and r.result.late_penalty > 0),
        "waiting_for_manual_grade": len(waiting),
        "answers_waiting": sum(waiting.values()),
        "answers_not_given": unanswered,
    }


def _waiting(row: Row) -> int:
    return sum(1 for nb in _result(row).notebooks for c in nb.cells if c.manual and c.score is None)


def _reason_kind(reason: str) -> str:
    """A reason with its particulars (numbers, quoted text) blanked, so that alike reasons count together."""
    kind = re.sub(r"\([^)]*\)", "(…)", reason)
    kind = re.sub(r"\d+(\.\d+)?", "#", kind)
    return kind[:200]


# -- scores -------------------------------------------------------------------------


def summary(values: list[float]) -> dict:
    if not values:
        return {"n": 0, "mean": None, "median": None, "q1": None, "q3": None, "min": None, "max": None}
    a = np.asarray(values, dtype=float)
    q1, median, q3 = (float(x) for x in np.percentile(a, [25, 50, 75]))
    return {
        "n": len(values),
        "mean": _r(a.mean()),
        "median": _r(median),
        "q1": _r(q1),
        "q3": _r(q3),
        "min": _r(a.min()),
        "max": _r(a.max()),
    }


def histogram(values: list[float], top: float) -> list[dict]:
    """Equal-width bins from 0 to at least ``top`` (about 20 of them, of a round width); the last is closed."""
    top = max(top, max(values, default=0.0), 1e-9)
    width = _nice(top / 20)
    count = max(1, math.ceil(top / width - 1e-9))
    counts = [0] * count
    for v in values:
        counts[min(max(int(v / width + 1e-9), 0), count - 1)] += 1
    return [{"from": _r(i * width), "to": _r((i + 1) * width), "count": c} for i, c in enumerate(counts)]


def _nice(step: float) -> float:
    """The smallest of 0.5, 1, 2, 2.5, 5, 10, 20, ... that is at least ``step``."""
    for base in (0.5, 1, 2, 2.5, 5):
        if step <= base:
            return float(base)
    scale = 10 ** math.floor(math.log10(step))
    return next(m * scale for m in (1, 2, 2.5, 5, 10) if step <= m * scale)


def scores(data: ClassData) -> dict:
    graded = data.graded
    possible = sum(c.points for c in data.layout)
    totals = [_result(r).final for r in graded]
    out = {
        "possible": _r(possible),
        "total": {**summary(totals), "histogram": histogram(totals, possible)},
        "notebooks": [],
    }
    for name in data.notebooks:
        top = sum(c.points for c in data.layout if c.notebook == name)
        values = [nb.final for r in graded for nb in _result(r).notebooks if nb.name == name]
        out["notebooks"].append(
            {"notebook": name, "possible": _r(top), **summary(values), "histogram": histogram(values, top)}
        )
    return out


# -- items --------------------------------------------------------------------------


def items(data: ClassData) -> list[dict]:
    graded = data.graded
    raw = np.array([_result(r).score for r in graded], dtype=float)
    out = []
    for cell in data.layout:
        # a notebook that could not be graded (not submitted, broken) is no attempt at its items
        got = [
            (i, r.cell(cell.notebook, cell.grade_id))
            for i, r in enumerate(graded)
            if not _notebook_error(r, cell.notebook)
        ]
        scored = [(i, c.score) for i, c in got if c is not None and c.score is not None]
        waiting = sum(1 for _, c in got if c is not None and c.score is None)
        n = len(scored)
        shares = np.array([s / cell.points if cell.points else 0.0 for _, s in scored], dtype=float)
        r_rest = d_index = None
        if n >= 2 and cell.points:
            item = np.array([s for _, s in scored], dtype=float)
            rest = raw[[i for i, _ in scored]] - item
            r_rest = _corr(item, rest)
            d_index = _upper_lower(shares, raw[[i for i, _ in scored]])
        mean = float(shares.mean()) if n else None
        row = {
            "grade_id": cell.grade_id,
            "notebook": cell.notebook,
            "exercise": cell.exercise.title,
            "points": _r(cell.points),
            "manual": cell.manual,
            "n": n,
            "waiting": waiting,
            "mean_share": _r(mean, 4),
            "full_share": _r(float(np.mean(shares >= 1 - 1e-9)), 4) if n else None,
            "zero_share": _r(float(np.mean(shares <= 1e-9)), 4) if n else None,
            "item_rest_r": _r(r_rest, 3),
            "upper_lower": _r(d_index, 3),
        }
        row["flags"] = _flags(row)
        out.append(row)
    return out


def _notebook_error(row: Row, notebook: str) -> bool:
    return any(nb.error for nb in _result(row).notebooks if nb.name == notebook)


def _corr(x: np.ndarray, y: np.ndarray) -> float | None:
    if x.std() < 1e-12 or y.std() < 1e-12:
        return None
    return float(np.corrcoef(x, y)[0, 1])


def _upper_lower(shares: np.ndarray, totals: np.ndarray) -> float | None:
    n = len(shares)
    k = max(1, int(round(0.27 * n)))
    if 2 * k > n:
        return None
    order = np.argsort(totals, kind="stable")
    return float(shares[order[-k:]].mean() - shares[order[:k]].mean())


def _flags(row: dict) -> list[str]:
    flags: list[str] = []
    mean, r = row["mean_share"], row["item_rest_r"]
    if mean is None or row["n"] < MIN_FOR_DIFFICULTY:
        return flags
    if mean < TOO_HARD:
        flags.append("too hard")
    elif mean > TOO_EASY:
        flags.append("too easy")
    if row["n"] >= MIN_FOR_DISCRIMINATION and r is not None:
        if r < 0:
            flags.append("discriminates negatively")
        elif r < WEAK_DISCRIMINATION:
            flags.append("does not discriminate")
    return flags


# -- grading health -----------------------------------------------------------------


def health(data: ClassData) -> dict:
    rows = [r for r in data.students if r.result is not None]
    seconds = [_result(r).seconds for r in rows if _result(r).seconds]
    timeouts, crashes = [], []
    for r in rows:  # the sandbox's own counts; the message text only for results older than them
        texts = _problems(r)
        if _result(r).timeouts or any(TIMEOUT.search(t) for t in texts):
            timeouts.append(r.student)
        if _result(r).kills or any(KILLED.search(t) for t in texts):
            crashes.append(r.student)
    # the graded ones: a submission none of whose files could be read is listed with its reason among the not
    # gradable (its student's code never ran: "it took 0.0 s" would say that it did)
    slowest = sorted(
        (r for r in rows if r.status == GRADED and _result(r).seconds and not _result(r).error),
        key=lambda r: -_result(r).seconds,
    )[:10]
    top = max(seconds, default=0.0)
    return {
        "submissions": len(rows),
        "seconds": {
            **summary(seconds),
            "p95": _r(float(np.percentile(seconds, 95))) if seconds else None,
            "sum": _r(sum(seconds)),
        },
        "histogram": histogram(seconds, top) if seconds else [],
        "slowest": [
            {
                "student": r.student,
                "seconds": _r(_result(r).seconds),
                "student_seconds": _r(_result(r).student_seconds),
                "why": _why_slow(r),
            }
            for r in slowest
        ],
        "timeouts": timeouts,  # a call or a cell run of theirs stopped at its time limit
        "crashes": crashes,  # their process died (killed by a signal, exited) or broke the protocol
        "restored": [{"student": r.student, "notebook": nb, "note": note} for r in rows for nb, note in r.notes],
        "grading_failed": [r.student for r in rows if (_result(r).error or "").startswith("grading failed")],
    }


def _problems(row: Row) -> list[str]:
    res = _result(row)
    texts = [res.error or ""]
    for nb in res.notebooks:
        texts.append(nb.error or "")
        texts.extend(run.error or "" for run in nb.runs if not run.ok)
        texts.extend(k.message for c in nb.cells for k in c.checks if not k.passed)
    return [t for t in texts if t]


def _why_slow(row: Row) -> str:
    res = _result(row)
    if res.timeouts or res.kills:  # in the words, and with the counts, of the section's "timeout" and "crash"
        reason = next((t for t in _problems(row) if TIMEOUT.search(t) or KILLED.search(t)), "")
        counted = ", ".join(
            f"{n} {word if n == 1 else words}"
            for n, word, words in ((res.timeouts, "timeout", "timeouts"), (res.kills, "crash", "crashes"))
            if n
        )
        return (counted + (": " + reason if reason else ""))[:200]
    for text in _problems(row):
        if TIMEOUT.search(text):
            return text[:200]
    for text in _problems(row):
        if KILLED.search(text):
            return text[:200]
    res = _result(row)
    if res.seconds and res.startup_seconds >= 0.5 * res.seconds:
        return (
            f"the first submission of its grading process: {_r(res.startup_seconds, 2)} s of it waited for "
            "the sandbox to start"
        )
    if res.seconds and res.student_seconds >= 0.5 * res.seconds:
        return f"the student's own code took {_r(res.student_seconds, 2)} s of it"
    return (
        f"no timeout or crash: the student's code took {_r(res.student_seconds, 2)} s, the rest was the "
        "grader's own work"
    )


# -- students -----------------------------------------------------------------------


def students(data: ClassData) -> list[dict]:
    exercises = exercise_columns(data)
    mistakes = student_mistakes(data)
    out = []
    for r in data.students:
        row = {
            "student": r.student,
            "status": r.status,
            "reason": r.reason,
            "late_seconds": _r(r.seconds_late, 0),
            "late_penalty": None,
            "total": None,
            "possible": None,
            "notebooks": {},
            "exercises": {},
            "waiting": 0,
            "mistakes": [],
            "feedback": {},
        }
        if r.result is not None:
            res = r.result
            row.update(
                late_penalty=_r(res.late_penalty) if res.late_penalty else None,
                total=_r(res.final),
                possible=_r(sum(c.points for c in data.layout)),
                notebooks={nb.name: _r(nb.final) for nb in res.notebooks},
                waiting=_waiting(r) if r.status == GRADED else 0,
                mistakes=mistakes.get(r.student, []),
                feedback={nb.name: data.feedback_href(r.student, nb.name) for nb in res.notebooks},
            )
            for key, (_, cells) in exercises.items():
                got = [r.cell(c.notebook, c.grade_id) for c in cells]
                row["exercises"][key] = _r(sum((c.score or 0.0) for c in got if c is not None))
        out.append(row)
    return out


def exercise_columns(data: ClassData) -> dict[str, tuple[str, list]]:
    """Exercise key -> (short title, its cells), in notebook order."""
    out: dict[str, tuple[str, list]] = {}
    for cell in data.layout:
        out.setdefault(cell.exercise_key, (cell.exercise.title, []))[1].append(cell)
    return out


def _r(value, digits: int = 2):
    if value is None:
        return None
    value = round(float(value), digits)
    return int(value) if digits == 0 else value
