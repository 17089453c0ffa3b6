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
:class:`Row` per check.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from gradekit.course import Course
from gradekit.notebook.answers import exercise_tests, value_answers
from gradekit.qa import simulate
from gradekit.qa.disclosure import disclosure_rows
from gradekit.qa.items import testwise_rows
from gradekit.qa.rows import CheckReport, Row
from gradekit.qa.stats import beyond_chance, binomial_tail
from gradekit.qa.warned import warning_rows
from gradekit.results import SubmissionResult
from gradekit.runners.base import Outcome
from gradekit.untrusted import clip, shown

LEAK_STAGE = "gradekit.qa.leaks.LeakScan"
COPIED = "a classmate's answers"  # the label of a release filled with another student's answers
CLASSMATES = 6  # classmates whose answers each simulated student hands in (fewer in a smaller class)
SHARED = 0.05  # a classmate's right answer may be right for another student in at most 5% of pairs ...
SHARED_POINTS = 0.5  # ... unless the answer is worth this many points or fewer
SIGNIFICANCE = 0.05  # a share above SHARED counts when chance alone gives as many less often than this
BLIND_STAGE = "gradekit.qa.blind.BlindSpots"
GRADER_ERROR = "the grader could not check this"


@dataclass
class Task:
    label: str  # what is graded: "key", "release", "mistakes/x.py", ...
    student: str  # whose variant
    folder: Path  # the submission
    files: list[simulate.QAFile] = field(default_factory=list)  # the QA files in it
    again: bool = False  # a second grading, for determinism
    language: str | None = None  # grade in this language rather than the student's
    copied: str = ""  # whose answers a COPIED task holds


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
        variants = _variant_rows(qa, assignment, ids, report)
        if variants is None:
            report.seconds = time.monotonic() - started
            return report
        notebooks = next(iter(variants.values())).notebooks
        files, problems = simulate.load_qa_set(qa.graders_dir(assignment), notebooks)
        _coverage_rows(qa, assignment, notebooks, report)
        tasks = _tasks(qa, assignment, ids, files, simulate.translations(qa, assignment))
        outcomes = grade_tasks(qa, assignment, tasks, jobs, sandboxed)
        report.gradings = len(tasks)
        if keep is not None:
            from gradekit.qa.keep import keep_class

            keep_class(qa, tasks, outcomes, keep, skip=COPIED)
            report.kept = str(keep)
        _result_rows(tasks, outcomes, files, problems, report)
        _feedback_rows(tasks, outcomes, files, report)
        _diversity_rows(qa, tasks, outcomes, notebooks, variants, report)
        _translation_rows(tasks, outcomes, spoken, report)
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


# -- variants ------------------------------------------------------------------------------------


def _variant_rows(qa: Course, assignment: str, ids: list[str], report: CheckReport) -> dict | None:
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


def _coverage_rows(qa: Course, assignment: str, notebooks: dict, report: CheckReport) -> None:
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


# -- the gradings ----------------------------------------------------------------------------------


def _tasks(qa: Course, assignment: str, ids: list[str], files: list, languages: Sequence[str] = ()) -> list[Task]:
    from gradekit.authoring.template import AssignmentSource
    from gradekit.authoring.variant import build_variant
    from gradekit.release.cache import ReleaseCache
    from gradekit.release.stripper import Stripper

    source = AssignmentSource.load(qa, assignment)
    releases = ReleaseCache(qa, assignment)
    stripper = Stripper()
    base = qa.root / "qa-submissions"
    tasks: list[Task] = []
    mistakes = [f for f in files if f.kind == "mistakes"]
    correct = [f for f in files if f.kind == "correct"]
    packed = simulate.groups(mistakes)
    keys: dict[str, dict] = {}
    released: dict[str, dict] = {}
    for index, student in enumerate(ids):
        variant = build_variant(qa, source, student)
        key = {name: stripper.answer_key(nb) for name, nb in build_variant(qa, source, student).notebooks.items()}
        release = releases.student_versions(variant)
        keys[student], released[student] = key, release

        # a second grading is in another language: the same answers, handed in on the notebook as that
        # student reads it, must get the same grades
        other = languages[0] if languages and variant.language == "en" else None
        other_key = key
        if other is not None:
            translated = build_variant(qa, source, student, language=other).notebooks
            other_key = {name: stripper.answer_key(nb) for name, nb in translated.items()}

        def submit(label: str, notebooks: dict, qa_files: list, again: bool = False) -> None:
            folder = simulate.write_submission(base / f"{len(tasks):05d}", notebooks)
            language = other if again else None  # noqa: B023
            tasks.append(Task(label, student, folder, qa_files, again, language))  # noqa: B023 - called at once

        submit("answer key", key, [])
        submit("untouched release", release, [])
        if index == 0:  # each QA file alone: is it only its own exercise that loses points?
            for qa_file in mistakes + correct:
                submit(qa_file.label, simulate.fill(key, qa_file.sections), [qa_file])
            submit("answer key", other_key, [], again=True)
            for again in (False, True):  # a packed submission, graded twice
                for group in packed[:1]:
                    on = other_key if again else key
                    submit("+".join(f.label for f in group), simulate.fill(on, _merged(group)), group, again)
        else:
            for group in packed:
                submit("+".join(f.label for f in group), simulate.fill(key, _merged(group)), group)
            for qa_file in correct:
                submit(qa_file.label, simulate.fill(key, qa_file.sections), [qa_file])
    answers = value_answers(keys[ids[0]]) if ids else []
    for index, student in enumerate(ids):  # each student hands in classmates' answers to the questions
        for step in range(1, min(CLASSMATES, len(ids) - 1) + 1):
            other = ids[(index + step) % len(ids)]
            sections = {gid: _source(keys[other], gid) for gid in answers}
            notebooks = {n: nb for n, nb in released[student].items() if _holds_any(nb, answers)}
            folder = simulate.write_submission(base / f"{len(tasks):05d}", simulate.fill(notebooks, sections))
            tasks.append(Task(COPIED, student, folder, copied=other))
    return tasks


def _source(notebooks: dict, gid: str) -> str:
    from gradekit.notebook.cells import grade_id

    return next(c.source for nb in notebooks.values() for c in nb.cells if grade_id(c) == gid)


def _holds_any(nb, gids: list[str]) -> bool:
    from gradekit.notebook.cells import grade_id

    return any(grade_id(c) in gids for c in nb.cells)


def _merged(group: list) -> dict[str, str]:
    return {gid: code for qa_file in group for gid, code in qa_file.sections.items()}


def grade_tasks(
    qa: Course,
    assignment: str,
    tasks: list[Task],
    jobs: int,
    sandboxed: bool,
    stages: tuple[str, ...] = (LEAK_STAGE, BLIND_STAGE),
) -> dict[int, Outcome]:
    """Every task graded by a runner, as ``autograde`` grades (a local pool's workers fork from a
    server that has loaded the templates and graders once), with the QA stages added; the
    outcomes by task index."""
    from gradekit.grading.options import Options
    from gradekit.grading.stages import DEFAULT_STAGES
    from gradekit.qa.blind import AUDIT
    from gradekit.runners.base import Job
    from gradekit.runners.batch import make_runner

    options = Options(sandboxed=sandboxed, jobs=jobs, stages=tuple(DEFAULT_STAGES) + tuple(stages))
    out = qa.root / "qa-out"
    # the answer key's passing checks also work out their known mistakes (gradekit.qa.blind)
    work = [
        Job(t.student, str(t.folder), str(out / f"{i:05d}"), t.language, (AUDIT,) if t.label == "answer key" else ())
        for i, t in enumerate(tasks)
    ]
    index = {job.out_dir: i for i, job in enumerate(work)}
    outcomes: dict[int, Outcome] = {}
    with make_runner(qa, assignment, options, len(work)) as runner:
        runner.run(work, lambda outcome: outcomes.__setitem__(index[outcome.job.out_dir], outcome))
    return outcomes


# -- the rows -------------------------------------------------------------------------------------


def _result_rows(
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


STRENGTH = {"named": 3, "related": 2, "bare": 1, "missed": 0}


def feedback_class(qa_file, cells: dict) -> str:
    """What a mistake's feedback says on the cells it should break: ``named`` (its phrase, or a
    diagnosis), ``related`` (what its values show, or more than that they differ: a shape, a
    probe, an exception), ``bare`` (only that values differ) or ``missed`` (no points lost)."""
    lost = [cells[g] for g in qa_file.breaks if g in cells and (cells[g].score or 0) < cells[g].points - 1e-9]
    if not lost:
        return "missed"
    phrase = (qa_file.names or "").lower()
    said = " ".join(k.message for c in lost for k in c.checks if not k.passed).lower()
    if any(c.diagnosis for c in lost) or (phrase and phrase in said):
        return "named"
    if any(c.relations for c in lost) or any(
        not k.passed and (not k.differs or k.observations) for c in lost for k in c.checks
    ):
        return "related"
    return "bare"


def _feedback_rows(tasks: list[Task], outcomes: dict[int, Outcome], files: list, report: CheckReport) -> None:
    """The QA set's mistakes by what their feedback says (each its most frequent verdict); a bare one
    gets a row of its own: the author should give the grader its values."""
    mistakes = [f for f in files if f.kind == "mistakes"]
    if not mistakes:
        return
    verdicts: dict[str, Counter] = {f.label: Counter() for f in mistakes}
    for index, task in enumerate(tasks):
        result = outcomes[index].result
        if result.error:
            continue
        cells = {c.grade_id: c for nb in result.notebooks for c in nb.cells}
        for qa_file in task.files:
            if qa_file.kind == "mistakes":
                verdicts[qa_file.label][feedback_class(qa_file, cells)] += 1
    kinds = {label: max(seen, key=lambda k: (seen[k], STRENGTH[k])) for label, seen in verdicts.items() if seen}
    counts = Counter(kinds.values())
    related = [label for label, kind in kinds.items() if kind == "related"]
    report.rows.append(
        Row(
            "the QA set's mistakes: named / only related / bare",
            None,
            f"{counts['named']} named, {counts['related']} only related, {counts['bare']} bare"
            + (f", {counts['missed']} not caught" if counts["missed"] else "")
            + f" of {len(kinds)}"
            + (f" (only related: {', '.join(related[:5])}{' ...' if len(related) > 5 else ''})" if related else ""),
        )
    )
    for label, kind in kinds.items():
        if kind == "bare":
            report.rows.append(
                Row(
                    f"{label}: bare feedback",
                    None,
                    "its feedback says only that values differ: add its values to the grader's mistakes= "
                    "so that it is named (the docs' guide: How a mistake gets named)",
                )
            )


def _diversity_rows(
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


def _translation_rows(
    tasks: list[Task], outcomes: dict[int, Outcome], spoken: dict[str, str], report: CheckReport
) -> None:
    """Every text a student of another language reads (check names, failed checks' messages, named
    mistakes, reasons) has its translation in the result."""
    for language in sorted(set(spoken.values()) - {"en"}):
        missing: dict[str, str] = {}
        graded = 0
        for index, task in enumerate(tasks):
            result = outcomes[index].result
            if result.language != language:
                continue
            graded += 1
            for text in shown_texts(result):
                if text not in result.translations and any(ch.isalpha() for ch in text):
                    missing.setdefault(text, task.label)
        report.add(
            f"{language}: every text the student reads is translated",
            [f"{text[:90]!r} ({label})" for text, label in list(missing.items())[:20]],
            f"{graded} grading(s) in {language}",
        )


def shown_texts(result: SubmissionResult) -> list[str]:
    """The English texts of a result that its feedback shows the student."""
    texts = [t for t in (result.error, *result.notes) if t]
    for nb in result.notebooks:
        texts += [t for t in (nb.error,) if t]
        for cell in nb.cells:
            for check in cell.checks:
                texts.append(check.name)
                if not check.passed and check.message:
                    texts.append(check.message)
            texts += [mistake for finding in cell.findings for mistake in finding.mistakes]
    return texts
