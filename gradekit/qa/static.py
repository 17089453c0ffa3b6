"""The checks of ``gradekit check`` that grade nothing: the assignment's templates and graders.

The templates render for every simulated student (StrictUndefined), the variants differ and a
student's numbers are the same on every build; every test cell has a hidden grader and every
grader a test cell; every graded cell is worth points.
"""

from __future__ import annotations

import json

from gradekit.course import Course
from gradekit.qa.rows import CheckReport


def variant_rows(qa: Course, assignment: str, ids: list[str], report: CheckReport) -> dict | None:
    from gradekit.authoring.template import AssignmentSource
    from gradekit.authoring.variant import build_variant
    from gradekit.errors import GradekitError

    try:
        source = AssignmentSource.load(qa, assignment)
    except GradekitError as exc:
        report.add("templates render", [str(exc)])
        return None
    variants, failures = {}, []
    for student in ids:
        try:
            variants[student] = build_variant(qa, source, student)
        except GradekitError as exc:
            failures.append(f"{student}: {exc}")
    report.add("templates render (StrictUndefined)", failures, f"{len(ids)} variants, every cell")
    if failures:
        return None
    distinct = len({json.dumps(v.params, sort_keys=True) for v in variants.values()})
    report.add(
        "variants differ",
        [] if distinct == len(ids) or len(ids) < 2 else [f"only {distinct} different params among {len(ids)} students"],
        f"{distinct} of {len(ids)} distinct",
    )
    again = [
        s
        for s in ids[:5]
        if json.dumps(build_variant(qa, source, s).params, sort_keys=True)
        != json.dumps(variants[s].params, sort_keys=True)
    ]
    report.add(
        "params are deterministic", [f"{s}: two builds differ" for s in again], "the same student gets the same numbers"
    )
    return variants


def coverage_rows(qa: Course, assignment: str, notebooks: dict, report: CheckReport) -> None:
    from gradekit.notebook.cells import grade_id, is_graded, is_test, points

    graders = {p.stem for p in qa.graders_dir(assignment).glob("test_*.py")}
    tests = [grade_id(c) for nb in notebooks.values() for c in nb.cells if is_test(c)]
    missing = [t for t in tests if t not in graders]
    orphans = sorted(graders - set(tests))
    failures = ([f"test cell {t} has no grader (graded on its own asserts)" for t in missing] if graders else []) + [
        f"autograder/{assignment}/{g}.py grades no test cell" for g in orphans
    ]
    report.add(
        "every test cell has a grader, every grader a test cell",
        failures,
        f"{len(tests)} test cells" + ("" if graders else ", none with a hidden grader: graded as nbgrader does"),
    )
    bad = [
        f"{grade_id(c)}: {points(c):g} points"
        for nb in notebooks.values()
        for c in nb.cells
        if is_graded(c) and points(c) <= 0
    ]
    totals = ", ".join(
        f"{name}: {sum(points(c) for c in nb.cells if is_graded(c)):g}" for name, nb in notebooks.items()
    )
    report.add("points add up", bad, f"{totals} points")
