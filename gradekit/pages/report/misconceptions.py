"""Which mistakes the class made: the named wrong mistakes, counted per exercise, and the concept checks.

A mistake is what the graders named (``Check.mistake``), summed up per cell by
``CellResult.diagnosis``: one name when the evidence points to one mistake,
several when it is consistent with more than one. A student is counted under
every name of their diagnosis; ``uncertain`` counts those whose diagnosis had
more than one name. Under gradekit serve a student hands in again and again: a
mistake counts when it was made on any attempt (``attempts``: on how many),
``fixed`` counts the students whose attempt that counts no longer makes it --
under live grading, what a class got wrong on the way is what an instructor
wants to see, not only what is left.

In a multiple-choice cell (``choice_cells`` in the assignment's assignment.toml) every check is one
item and every wrong option is a named mistake -- the misconception that
option stands for -- so the options chosen are counted from the checks: the
right answer (passed), each named distractor, and anything else (no answer,
not one of the options).
"""

from __future__ import annotations

from gradekit.pages.report.data import ClassData


def _named_in(result, layout):
    """(cell layout, mistake, uncertain) for every named mistake of one graded result."""
    cells = {(nb.name, c.grade_id): c for nb in result.notebooks for c in nb.cells}
    for cell in layout:
        got = cells.get((cell.notebook, cell.grade_id))
        if got is None:
            continue
        if cell.choice:
            for check in got.checks:
                if not check.passed and check.mistake:
                    yield cell, check.mistake, False
        else:
            for mistake in got.diagnosis:
                yield cell, mistake, len(got.diagnosis) > 1


def _named(data: ClassData):
    """(student, cell layout, mistake, uncertain) for every named mistake of every graded student."""
    for row in data.graded:
        for cell, mistake, uncertain in _named_in(row.result, data.layout):
            yield row.student, cell, mistake, uncertain


def misconceptions(data: ClassData) -> list[dict]:
    """Per exercise, every named mistake made on any attempt: how many students made it, their share,
    who they are, on how many attempts, and how many fixed it (their counting attempt no longer has it)."""
    n = len(data.graded)
    by_exercise: dict[str, dict] = {}
    for row in data.graded:
        assert row.result is not None
        now = {(cell.exercise_key, mistake) for cell, mistake, _ in _named_in(row.result, data.layout)}
        seen: dict[tuple[str, str], int] = {}
        found = []
        for result in row.attempts or [row.result]:  # graded rows have a result
            for cell, mistake, uncertain in _named_in(result, data.layout):
                key = (cell.exercise_key, mistake)
                if key not in seen:
                    found.append((cell, mistake, uncertain))
                seen[key] = seen.get(key, 0) + 1
        if row.attempts:  # the counting attempt's mistakes count even if it is no longer on disk as an attempt
            for cell, mistake, uncertain in _named_in(row.result, data.layout):
                if (cell.exercise_key, mistake) not in seen:
                    found.append((cell, mistake, uncertain))
                    seen[(cell.exercise_key, mistake)] = 1
        for cell, mistake, uncertain in found:
            exercise = by_exercise.setdefault(
                cell.exercise_key,
                {
                    "exercise": cell.exercise.title,
                    "heading": cell.exercise.full,
                    "notebook": cell.notebook,
                    "mistakes": {},
                },
            )
            entry = exercise["mistakes"].setdefault(
                mistake, {"mistake": mistake, "students": {}, "uncertain": set(), "attempts": 0, "fixed": 0}
            )
            if row.student not in entry["students"]:
                entry["students"][row.student] = data.feedback_href(row.student, cell.notebook, cell.grade_id)
                entry["attempts"] += seen[(cell.exercise_key, mistake)]
                entry["fixed"] += (cell.exercise_key, mistake) not in now
            if uncertain:
                entry["uncertain"].add(row.student)
    order = {cell.exercise_key: i for i, cell in reversed(list(enumerate(data.layout)))}
    out = []
    for exercise_key in sorted(by_exercise, key=order.__getitem__):  # every key is a cell's of data.layout
        exercise = by_exercise[exercise_key]
        mistakes = []
        for entry in exercise["mistakes"].values():
            count = len(entry["students"])
            mistakes.append(
                {
                    "mistake": entry["mistake"],
                    "count": count,
                    "share": round(count / n, 4) if n else None,
                    "uncertain": len(entry["uncertain"]),
                    "attempts": entry["attempts"],
                    "fixed": entry["fixed"],
                    "students": [{"student": s, "href": h} for s, h in sorted(entry["students"].items())],
                }
            )
        mistakes.sort(key=lambda m: (-m["count"], m["mistake"]))
        out.append({**exercise, "mistakes": mistakes})
    return out


def student_mistakes(data: ClassData) -> dict[str, list[str]]:
    """Each student's named mistakes, in the order of the assignment."""
    out: dict[str, list[str]] = {}
    for student, _, mistake, _ in _named(data):
        names = out.setdefault(student, [])
        if mistake not in names:
            names.append(mistake)
    return out


def concept_checks(data: ClassData) -> list[dict]:
    """For each item of each multiple-choice cell: how often each option was chosen."""
    out = []
    for cell in (c for c in data.layout if c.choice):
        items: dict[str, dict] = {}
        for row in data.graded:
            got = row.cell(cell.notebook, cell.grade_id)
            if got is None:
                continue
            for check in got.checks:
                item = items.setdefault(check.name, {"right": 0, "distractors": {}, "other": 0})
                if check.passed:
                    item["right"] += 1
                elif check.mistake:
                    item["distractors"][check.mistake] = item["distractors"].get(check.mistake, 0) + 1
                else:
                    item["other"] += 1
        for name, item in items.items():
            n = item["right"] + item["other"] + sum(item["distractors"].values())
            options = [{"option": "right answer", "kind": "right", "count": item["right"]}]
            options += [
                {"option": mistake, "kind": "distractor", "count": count}
                for mistake, count in sorted(item["distractors"].items(), key=lambda kv: (-kv[1], kv[0]))
            ]
            options.append({"option": "no answer, or not one of the options", "kind": "other", "count": item["other"]})
            for option in options:
                option["share"] = round(option["count"] / n, 4) if n else None
            out.append(
                {
                    "grade_id": cell.grade_id,
                    "notebook": cell.notebook,
                    "exercise": cell.exercise.title,
                    "item": name,
                    "n": n,
                    "options": options,
                }
            )
    return out
