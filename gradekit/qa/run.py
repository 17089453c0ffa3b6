"""``gradekit check ASSIGNMENT``: grade a simulated class and check that the graders are right.

For N simulated students (their own variants, a secret of the check's own;
no gradebook, no real student) it grades, through the same pipeline as
``autograde`` plus a :class:`~gradekit.qa.leaks.LeakScan` stage:

* each student's answer key                         -> full marks
* each student's untouched release                  -> 0 on every autograded cell, no grader error
* every file of ``correct/``                        -> full marks
* every file of ``mistakes/``                       -> loses points on its own test cells only, and
                                                       its feedback names its ``# names:`` phrase,
                                                       and no other mistake
* the answer key and the mistakes again, elsewhere  -> the same grades and feedback (in another
                                                       language, when the assignment has translations)
* each student's release with a classmate's answers -> how often a classmate's right answer is also
  to the questions (the answer cells that define     right for another student: an answer the same
  no function)                                         for everyone, or shared by more than 5% of
                                                       pairs, may be worth SHARED_POINTS at most

Each QA file is graded alone on the first variant -- so that "its own test
cells only" can be seen -- and, packed with mistakes of other exercises (which
are graded independently), on every other variant. Besides: the templates
render for every variant and the variants differ and are deterministic; every
test cell has a grader and every grader a test cell; no feedback holds a
value the reference computed for that student; multiple-choice items resist
the test-wise strategies. When the assignment has translations, the simulated
students take its languages in turn, and every text a student of another
language reads must have its translation. The QA set's mistakes are counted
as named (their ``# names:`` phrase said), only related (the feedback says
what the values show, or more than that they differ) or bare (it says only
that values differ: the author should add the mistake to the grader). One
:class:`~gradekit.qa.rows.Row` per check.

This module runs the check in that order; each part is a module of its own:

    static.py      the rows that grade nothing: templates, variants, graders and points
    tasks.py       the simulated class's submissions (Task) and their grading by a runner
    grades.py      the rows on the grades: answer keys, releases, the QA set, determinism, leaks
    feedback.py    the rows on what the feedback says: the mistakes named, the translations
    diversity.py   the rows on variant diversity: a classmate's right answer, handed in as one's own
    items.py       the rows on multiple-choice items against test-wise guessing
    warned.py      the rows on what the course's code warned as it graded
"""

from __future__ import annotations

import time
from pathlib import Path

from gradekit.course import Course
from gradekit.qa import simulate
from gradekit.qa.disclosure import disclosure_rows
from gradekit.qa.diversity import diversity_rows
from gradekit.qa.feedback import feedback_rows, translation_rows
from gradekit.qa.grades import result_rows
from gradekit.qa.items import testwise_rows
from gradekit.qa.loops import loop_rows
from gradekit.qa.rows import CheckReport, Row
from gradekit.qa.static import coverage_rows, variant_rows
from gradekit.qa.tasks import COPIED, class_tasks, grade_tasks
from gradekit.qa.warned import warning_rows


def run_qa(
    course: Course,
    assignment: str,
    students: int = 20,
    jobs: int = 0,
    sandboxed: bool = True,
    keep: Path | None = None,
) -> CheckReport:
    """Grade a simulated class of ``students`` and judge the assignment's graders (see the module's
    docstring); ``keep``: an empty folder to keep the simulated class in (:mod:`gradekit.qa.keep`)."""
    started = time.monotonic()
    report = CheckReport(assignment, students)
    with simulate.simulated_course(course, assignment) as qa:
        ids = simulate.students(students)
        report.ids = frozenset(ids)
        spoken = simulate.assign_languages(qa, assignment, ids)
        variants = variant_rows(qa, assignment, ids, report)
        if variants is None:
            report.seconds = time.monotonic() - started
            return report
        notebooks = next(iter(variants.values())).notebooks
        files, problems = simulate.load_qa_set(qa.graders_dir(assignment), notebooks)
        coverage_rows(qa, assignment, notebooks, report)
        report.rows.extend(loop_rows(qa.graders_dir(assignment), qa.root))
        tasks = class_tasks(qa, assignment, ids, files, simulate.translations(qa, assignment))
        outcomes = grade_tasks(qa, assignment, tasks, jobs, sandboxed)
        report.gradings = len(tasks)
        if keep is not None:
            from gradekit.qa.keep import keep_class

            keep_class(qa, tasks, outcomes, keep, skip=COPIED)
            report.kept = str(keep)
        result_rows(tasks, outcomes, files, problems, report)
        feedback_rows(tasks, outcomes, files, report)
        diversity_rows(qa, tasks, outcomes, notebooks, variants, report)
        translation_rows(tasks, outcomes, spoken, report)
        report.rows.extend(warning_rows(outcomes.values()))
        report.rows.extend(testwise_rows(variants))
        for language in simulate.translations(qa, assignment):
            from gradekit.i18n.catalogs import translator

            report.rows.extend(testwise_rows(variants, language, translator(qa.root, assignment, language)))
        seconds = [o.result.seconds for o in outcomes.values() if o.result.seconds]
        if seconds:
            report.rows.append(
                Row(
                    "time per submission",
                    None,
                    f"{sum(seconds) / len(seconds):.3f} s mean, {max(seconds):.2f} s at most "
                    f"(in the grading process, sandbox included)",
                )
            )
        limits = qa.limits_for(assignment)
        report.rows.append(
            Row(
                "limits",
                None,
                f"cells {limits.cell_timeout:g} s, a call {limits.call_timeout:g} s, "
                f"a notebook {limits.notebook_budget:g} s, {limits.memory} MiB "
                f"(c.Gradekit in nbgrader_config.py, [limits] in source/{assignment}/assignment.toml)",
            )
        )
        disclosure_rows(course, assignment, report)
    report.seconds = time.monotonic() - started
    return report
