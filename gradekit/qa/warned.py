"""What the course's code warned while the simulated class was graded: one row per warning.

The grading processes note each warning of the graders, the reference or a helper once per
grading, placed at the course's own line (:mod:`gradekit.grading.harness.warned`), beside the
result (``observed[notebook]["grader_warnings"]``). Here they become ``warn`` rows: the place,
what it warned, and on how many of the gradings -- a warning fails nothing, and is printed nowhere
else.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from gradekit.qa.rows import Row
from gradekit.runners.base import Outcome

ADVICE = (
    "the grader's own code: fix the line (a mistake with no value on this input is None), or silence "
    "it where it is expected, in a `with warnings.catch_warnings():` block (`np.errstate` silences "
    "numpy's floating-point errors only)"
)


def warning_rows(outcomes: Iterable[Outcome]) -> list[Row]:
    seen: Counter[str] = Counter()
    gradings = 0
    for outcome in outcomes:
        gradings += 1
        seen.update(outcome.warned)  # each once a grading, in the order raised
    rows = []
    for line, count in seen.items():
        where, _, what = line.partition(": ")
        short = where.split(" ", 1)[0].rsplit("/", 1)[-1]  # test_x.py:19: the table's column is narrow
        detail = f"{where}: {what} -- on {count} of {gradings} gradings: {ADVICE}"
        rows.append(Row(f"grader warning: {short}", None, detail, warn=True))
    return rows
