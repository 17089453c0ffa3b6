"""The simulated class's submissions, as :class:`Task` values, and their grading by a runner.

For each simulated student: their answer key and their untouched release; on the first
student, each QA file alone (so that "its own test cells only" can be seen), the answer key
and a packed submission graded again (in another language when the assignment has one); on
the others, the mistakes packed by exercise (graded independently) and the right answers; and
for every student, their release with a few classmates' answers to the questions
(:data:`COPIED`). :func:`grade_tasks` grades them all as ``autograde`` does, with the QA stages
added.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from gradekit.course import Course
from gradekit.notebook.answers import value_answers
from gradekit.qa import simulate
from gradekit.runners.base import Outcome

LEAK_STAGE = "gradekit.qa.leaks.LeakScan"
BLIND_STAGE = "gradekit.qa.blind.BlindSpots"
COPIED = "a classmate's answers"  # the label of a release filled with another student's answers
CLASSMATES = 6  # classmates whose answers each simulated student hands in (fewer in a smaller class)


@dataclass
class Task:
    label: str  # what is graded: "key", "release", "mistakes/x.py", ...
    student: str  # whose variant
    folder: Path  # the submission
    files: list[simulate.QAFile] = field(default_factory=list)  # the QA files in it
    again: bool = False  # a second grading, for determinism
    language: str | None = None  # grade in this language rather than the student's
    copied: str = ""  # whose answers a COPIED task holds


def class_tasks(qa: Course, assignment: str, ids: list[str], files: list, languages: Sequence[str] = ()) -> list[Task]:
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
