"""The rows of ``gradekit check`` on variant diversity: is a classmate's right answer right for you?

Each simulated student hands in their release with a few classmates' answers to the questions
(the answer cells that define no function). One row per answer of every question: how often a
classmate's right answer, handed in as one's own, is right. An answer the same for everyone, or
shared by significantly more than SHARED of the pairs (more than chance beyond it, for a
multiple-choice cell), fails its row when it is worth more than SHARED_POINTS. A share above the
limit on too few pairs to tell it from chance is a warning that asks for more students. A cell
that grades multiple-choice items but is not declared in ``choice_cells`` is named.
"""

from __future__ import annotations

from gradekit.course import Course
from gradekit.notebook.answers import exercise_tests, value_answers
from gradekit.qa.rows import CheckReport, Row
from gradekit.qa.stats import beyond_chance, binomial_tail
from gradekit.qa.tasks import COPIED, Task
from gradekit.runners.base import Outcome

SHARED = 0.05  # a classmate's right answer may be right for another student in at most 5% of pairs ...
SHARED_POINTS = 0.5  # ... unless the answer is worth this many points or fewer
SIGNIFICANCE = 0.05  # a share above SHARED counts when chance alone gives as many less often than this


def diversity_rows(
    qa: Course, tasks: list[Task], outcomes: dict[int, Outcome], notebooks: dict, variants: dict, report: CheckReport
) -> None:
    """Variant diversity, one row per answer of every question: how often a classmate's right
    answer, handed in as one's own, is right, each pair of classmates counted once. An answer right
    for more than SHARED of the pairs (more than chance beyond it, for a multiple-choice cell), by more
    than chance alone explains (SIGNIFICANCE; 1% for a multiple-choice cell), fails its row when it is
    worth more than SHARED_POINTS. A share above the limit on too few pairs to tell it from chance (one
    coincidence among three students) is a warning that asks for more students, not a failure."""
    from gradekit.qa.items import choice_graders, items_of

    tests = exercise_tests(notebooks)
    declared = set(qa.settings_of(report.assignment).choice_cells)
    params = next(iter(variants.values())).params if variants else {}
    every_test = [t for ts in tests.values() for t in ts]
    # a cell whose grader grades multiple-choice items but that choice_cells leaves out: judged as one
    # (chance allowed for), and the author told where to declare it
    undeclared = {
        t: how
        for t, how in choice_graders(qa.graders_dir(report.assignment), params, every_test).items()
        if t not in declared
    }
    settings_file = f"source/{report.assignment}/assignment.toml"
    for test, how in undeclared.items():
        report.rows.append(
            Row(
                f"{test}: multiple choice, not declared",
                None,
                f"{test} grades multiple-choice items ({how}) but is not in choice_cells: declare it in [grading] "
                f"choice_cells of {settings_file}, so that the class report counts its options and gradekit "
                "serve hides it until the due date",
                warn=True,
            )
        )
    copies = [(i, t) for i, t in enumerate(tasks) if t.label == COPIED]
    if not copies:
        return
    owned = {t for gid in value_answers(notebooks) for t in tests.get(gid, [])}
    choice = declared | set(undeclared)
    items = [item for v in list(variants.values())[:1] for item in items_of(v.params)]
    chance = sum(1 / len(item["options"]) for item in items) / len(items) if items else 0.0
    # (test cell, check) -> [worth, {pair of classmates: right}]: a pair counted once, whichever copied
    # whose (in a small class each copies the other: a coincidence seen twice is still one)
    stats: dict[tuple[str, str], tuple[float, dict[frozenset, bool]]] = {}
    for index, task in copies:
        pair = frozenset((task.student, task.copied))
        for nb in outcomes[index].result.notebooks:
            for cell in nb.cells:
                if cell.grade_id not in owned or not cell.checks:
                    continue
                total = sum(k.weight for k in cell.checks) or 1.0
                for check in cell.checks:
                    _, seen = stats.setdefault((cell.grade_id, check.name), (cell.points * check.weight / total, {}))
                    seen[pair] = seen.get(pair, False) or check.passed
    for (gid, name), (worth, seen) in stats.items():
        right, pairs = sum(seen.values()), len(seen)
        limit = SHARED + (chance if gid in choice else 0.0)
        # a multiple-choice answer: agreeing by chance is likely, only what chance cannot explain counts
        shared = beyond_chance(right, pairs, limit, 0.01 if gid in choice else SIGNIFICANCE)
        share = f"right for another student on {right} of {pairs} pairs ({right / pairs:.0%})"
        title = f"variant diversity: {gid}, {name}"
        if not shared and right / pairs > limit and gid not in choice:  # too few pairs to tell it from chance
            # (a multiple-choice answer agrees above chance on a few pairs all the time: no warning)
            undecided = (
                f"{share}: more than {limit:.0%}, but chance alone gives as many "
                f"{binomial_tail(right, pairs, limit):.0%} of the time on {pairs} pair(s)"
            )
            if worth > SHARED_POINTS + 1e-9:  # whether it is shared decides: say how to tell
                tell = "too few students to tell; run gradekit check with more (the default, 20, gives 120 pairs)"
                report.rows.append(Row(title, None, f"{undecided}: {tell}", warn=True))
            else:
                report.rows.append(
                    Row(title, None, f"{undecided}, worth {worth:.2g} points (at most {SHARED_POINTS:g})")
                )
            continue
        if not shared:
            report.rows.append(Row(title, True, share + (f", chance {chance:.0%}" if gid in choice else "")))
            continue
        same = right == pairs
        what = "the same for every student" if same else f"shared by more than {limit:.0%} of pairs"
        if gid in choice:  # options are few by nature: a larger space is not the cure
            remedy = (
                f"give each student more items or options to draw from, or weigh it at most {SHARED_POINTS:g} points"
                + (f" (and declare it in [grading] choice_cells of {settings_file})" if gid in undeclared else "")
            )
        else:
            remedy = f"draw its numbers from a larger space, or weigh it at most {SHARED_POINTS:g} points"
        if worth > SHARED_POINTS + 1e-9:
            report.rows.append(
                Row(
                    title,
                    False,
                    f"{share}: {what}, and worth {worth:.2g} points -- a copied key keeps them: {remedy}",
                )
            )
        else:
            report.rows.append(
                Row(title, None, f"{share}: {what}, worth {worth:.2g} points (at most {SHARED_POINTS:g})")
            )
