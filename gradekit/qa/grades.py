"""The rows of ``gradekit check`` that judge the grades: each task's result against what it should get.

    each student's answer key                         -> full marks
    each student's untouched release                  -> 0 on every autograded cell, no grader error
    every file of ``correct/``                        -> full marks
    every file of ``mistakes/``                       -> loses points on its own test cells only, and
                                                         its feedback names its ``# names:`` phrase,
                                                         and no other mistake
    the answer key and the mistakes again, elsewhere  -> the same grades and feedback

Besides: no feedback holds a value the reference computed for that student (the LeakScan stage's
findings), and the known mistakes that give the right answer on some input, or coincide with
another (the BlindSpots stage's), are named.
"""

from __future__ import annotations

import json
from collections import Counter

from gradekit.qa.rows import CheckReport, Row
from gradekit.qa.tasks import COPIED, Task
from gradekit.results import SubmissionResult
from gradekit.runners.base import Outcome
from gradekit.untrusted import clip, shown

GRADER_ERROR = "the grader could not check this"


def result_rows(
    tasks: list[Task], outcomes: dict[int, Outcome], files: list, problems: list[str], report: CheckReport
) -> None:
    first: dict[tuple[str, str], str] = {}  # the first grading's _comparable
    keys: list[str] = []
    releases: list[str] = []
    determinism: list[str] = []
    leaks: list[str] = []
    per_file: dict[str, list[str]] = {f.label: [] for f in files}
    coincide: Counter = Counter()
    blind: dict[tuple[str, str], set[str]] = {}  # (mistake, check) -> the variants whose answer key it matched
    known_names = [f.names for f in files if f.names]
    for index, task in enumerate(tasks):
        result, observed = outcomes[index].result, outcomes[index].observed
        cells = {c.grade_id: c for nb in result.notebooks for c in nb.cells}
        where = f"{task.student}"
        for seen in observed.values():
            leaks += [f"{task.label} ({where}): {leak}" for leak in seen.get("leaks", [])]
            for mistake, what in seen.get("blind", []):
                blind.setdefault((mistake, what), set()).add(task.student)
        for cell in cells.values():
            for check in cell.checks:
                for mistake in getattr(check, "coinciding", []) or []:
                    coincide[mistake] += 1
        seen = _comparable(result)
        previous = first.setdefault((task.label, task.student), seen)
        if task.again and previous != seen:
            determinism.append(f"{task.label} ({where}): the second grading differs")
        if result.error:
            target = keys if task.label == "answer key" else releases if task.label == "untouched release" else None
            message = f"{where}: not graded: {result.error}"
            if target is not None:
                target.append(message)
            for qa_file in task.files:
                per_file[qa_file.label].append(message)
            continue
        if task.label == "answer key":
            keys += [
                f"{where}: {c.grade_id} {c.score:g}/{c.points:g}" + _first_failure(c)
                for c in cells.values()
                if not c.manual and (c.score or 0) < c.points - 1e-9
            ]
        elif task.label == "untouched release":
            releases += [
                f"{where}: {c.grade_id} got {c.score:g}"
                for c in cells.values()
                if not c.manual and (c.score or 0) > 1e-9
            ]
            releases += [
                f"{where}: {c.grade_id}: {clip(k.message, 160)}"
                for c in cells.values()
                for k in c.checks
                if GRADER_ERROR in k.message
            ]
        runs = {r.cell_id: r for nb in result.notebooks for r in nb.runs}
        for qa_file in task.files:
            per_file[qa_file.label] += _own_errors(qa_file, runs, where)
            per_file[qa_file.label] += _judge(qa_file, task, cells, known_names, alone=len(task.files) == 1)
    report.add("answer key: full marks", keys, f"{len(report_students(tasks))} variants")
    report.add(
        "untouched release: 0 on every autograded cell, no grader error",
        releases,
        f"{len(report_students(tasks))} variants",
    )
    for line in problems:
        report.rows.append(Row("QA set file", False, line))
    for qa_file in files:
        gradings = sum(1 for t in tasks if qa_file in t.files)
        breaks = ("breaks " if qa_file.explicit else "breaks within ") + ", ".join(qa_file.breaks)
        what = f"names “{qa_file.names}”, {breaks}" if qa_file.names else "full marks"
        report.add(qa_file.label, per_file[qa_file.label], f"{what} on {gradings} grading(s)")
    other = sorted({t.language for t in tasks if t.again and t.language})
    report.add(
        "grading twice gives the same grades and feedback",
        determinism,
        f"{sum(1 for t in tasks if t.again)} submissions graded twice"
        + (f", the second time in {', '.join(other)}" if other else ""),
    )
    report.add(
        "no hidden value in the feedback",
        leaks,
        "no number the reference computed for the student appears in what they are told",
    )
    if coincide:
        report.rows.append(
            Row(
                "inputs where known mistakes coincide",
                None,
                "; ".join(f"{mistake} ({n}x)" for mistake, n in coincide.most_common(5))
                + ": no evidence on those inputs",
            )
        )
    if blind:
        variants = len({t.student for t in tasks if t.label == "answer key"})
        mistakes: dict[str, list[tuple[str, set[str]]]] = {}
        for (mistake, what), who in blind.items():
            mistakes.setdefault(mistake, []).append((what, who))
        lines = []
        for mistake, checks in sorted(mistakes.items(), key=lambda item: (-max(len(w) for _, w in item[1]), item[0])):
            what, who = max(checks, key=lambda c: (len(c[1]), c[0]))
            lines.append(f"“{mistake}” on {len(checks)} check(s), such as {what} ({len(who)} of {variants} variants)")
        report.rows.append(
            Row(
                "known mistakes that give the right answer",
                None,
                "; ".join(lines[:4])
                + (f"; and {len(lines) - 4} more" if len(lines) > 4 else "")
                + ": a student who made one keeps those checks' points (draw the params again, "
                "or add an input that tells them apart)",
            )
        )


def report_students(tasks: list[Task]) -> set[str]:
    return {t.student for t in tasks if t.label != COPIED}


def _own_errors(qa_file, runs: dict, where: str) -> list[str]:
    """A QA file's cell that raises as it runs (not when a grader calls it) is the file's own
    mistake, usually a template expression or a name the notebook does not define: say so, with
    the error, rather than only that the feedback misses the phrase."""
    return [
        f"{where}: its code for {gid} raises when the cell runs: {clip(runs[gid].error or '', 160)} "
        f"(a QA file holds the cell as a student writes it: the notebook's own variables, no {{{{ }}}})"
        for gid in qa_file.sections
        if gid in runs and not runs[gid].ok
    ]


def _judge(qa_file, task: Task, cells: dict, known_names: list[str], alone: bool) -> list[str]:
    where = task.student
    failures = []
    if qa_file.kind == "correct":  # graded alone, always
        return [
            f"{where}: {c.grade_id} {c.score:g}/{c.points:g}" + _first_failure(c)
            for c in cells.values()
            if not c.manual and (c.score or 0) < c.points - 1e-9
        ]
    phrase = qa_file.names.lower()
    missing = [gid for gid in qa_file.breaks if gid not in cells]
    failures += [f"{where}: no test cell {gid}" for gid in missing]
    lost = [cells[gid] for gid in qa_file.breaks if gid in cells and (cells[gid].score or 0) < cells[gid].points - 1e-9]
    kept = [gid for gid in qa_file.breaks if gid in cells and cells[gid] not in lost]
    if qa_file.explicit and kept:
        failures.append(f"{where}: {', '.join(kept)} kept full marks")
    elif not lost:
        failures.append(f"{where}: {', '.join(qa_file.breaks)} kept full marks")
    said = [" ".join([k.message for k in c.checks if not k.passed] + list(c.diagnosis)).lower() for c in lost]
    if lost and not any(phrase in text for text in said):
        cell = lost[0]
        named = "; ".join(cell.diagnosis) or next((k.message for k in cell.checks if not k.passed), "")
        hint = (
            ""
            if cell.diagnosis
            else "; no known mistake matches: add this one's values to the grader's mistakes= to name it"
        )
        failures.append(
            f"{where}: the feedback does not say “{qa_file.names}” ({cell.grade_id} says: {shown(named, 100)}{hint})"
        )
        return failures + _lost_elsewhere(qa_file, cells, where) if alone else failures  # what it names: said
    for cell in lost:
        wrong = [n for n in cell.diagnosis if phrase not in n.lower()]
        wrong += [k.mistake for k in cell.checks if not k.passed and k.mistake and phrase not in k.mistake.lower()]
        if wrong:
            failures.append(f"{where}: {cell.grade_id} also named “{wrong[0]}”")
    return failures + _lost_elsewhere(qa_file, cells, where) if alone else failures


def _lost_elsewhere(qa_file, cells: dict, where: str) -> list[str]:
    """A mistake graded alone must cost points on its own exercise only."""
    return [
        f"{where}: {c.grade_id} lost points too ({c.score:g}/{c.points:g})"
        for c in cells.values()
        if not c.manual and c.grade_id not in qa_file.breaks and (c.score or 0) < c.points - 1e-9
    ]


def _first_failure(cell) -> str:
    failed = next((k for k in cell.checks if not k.passed), None)
    return f" ({failed.name}: {clip(failed.message, 160)})" if failed else ""


def _comparable(result: SubmissionResult) -> str:
    """The grading of ``result``: its grades, checks, messages and notes -- not its timings, nor what it
    copies from the notebook graded (the answers, the titles: in the student's language)."""
    data = result.to_dict()
    for notebook in data.get("notebooks", []):
        notebook.pop("title", None)
        for cell in notebook.get("cells", []):
            cell.pop("answer", None)
            cell.pop("exercise", None)
    for key in (
        "seconds",
        "student_seconds",
        "startup_seconds",
        "digest",
        "timestamp",
        "language",
        "translations",
    ):
        data.pop(key, None)
    return json.dumps(data, sort_keys=True)
