"""Mistakes no catalogue knows: what their feedback says (gradekit.graders.relations at work).

``uncatalogued/<assignment>/*.py`` holds mistakes written for issue 22 that no
grader's ``mistakes=`` and no QA file knows, in the QA-file format
(``# %% <solution grade_id>`` sections), the first line ``# relation: <kind>:
<what the values show>``. Each is graded on VARIANTS simulated students'
variants (gradekit check's simulated course), mistakes of different exercises
packed into one submission as ``gradekit check`` packs them, in a pool. For
every file:

* it loses points on its own exercise's test cells on every variant, and no
  cell outside its submission's mistakes loses any;
* no name is given, anywhere, on any variant: none of them is a known mistake;
* no hidden value reaches the feedback (the LeakScan stage);

and over the set, at most 10% of the files get bare feedback (only "values
differ", the file's most frequent verdict over its variants).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from conftest import REPO
from gradekit.course import Course
from gradekit.qa import simulate
from gradekit.qa.qaset import parse
from gradekit.qa.run import LEAK_STAGE, STRENGTH, Task, feedback_class, grade_tasks
from gradekit.sandbox.bwrap import bwrap_path

pytestmark = [pytest.mark.e2e, pytest.mark.slow,
              pytest.mark.skipif(bwrap_path() is None, reason="bubblewrap is not installed")]

HERE = Path(__file__).resolve().parent / "uncatalogued"
ASSIGNMENTS = ("self_attention", "multi_head_attention")
VARIANTS = 10
BARE_SHARE = 0.10


def _files(assignment: str, tests: dict) -> list[simulate.QAFile]:
    out = []
    for path in sorted((HERE / assignment).glob("*.py")):
        assert path.read_text().startswith("# relation:"), path
        names, breaks, sections = parse(path)
        assert names is None, f"{path.name}: an uncatalogued mistake names nothing"
        out.append(simulate.QAFile(path, "mistakes", None, breaks or [t for g in sections for t in tests[g]],
                                   sections, bool(breaks)))
    return out


@pytest.fixture(scope="module")
def graded():
    """{assignment: (files, [(task, result, leaks)])}: every file on VARIANTS variants."""
    from gradekit.authoring.template import AssignmentSource
    from gradekit.authoring.variant import build_variant
    from gradekit.release.stripper import Stripper

    out = {}
    for assignment in ASSIGNMENTS:
        with simulate.simulated_course(Course.load(REPO), assignment) as qa:
            source = AssignmentSource.load(qa, assignment)
            ids = simulate.students(VARIANTS)
            tasks: list[Task] = []
            files = None
            for index, student in enumerate(ids):
                key = {n: Stripper().answer_key(nb) for n, nb in build_variant(qa, source, student).notebooks.items()}
                if files is None:
                    files = _files(assignment, simulate.exercise_tests(key))
                    packed = simulate.groups(files)
                # the packing rotates, so that a mistake meets other neighbours on other variants
                for group in packed[index % len(packed):] + packed[:index % len(packed)]:
                    sections = {g: code for f in group for g, code in f.sections.items()}
                    folder = simulate.write_submission(qa.root / "uncatalogued" / f"{len(tasks):05d}",
                                                       simulate.fill(key, sections))
                    tasks.append(Task("+".join(f.label for f in group), student, folder, group))
            outcomes = _grade(qa, assignment, tasks)
            out[assignment] = (files, [(t, outcomes[i].result, _leaks(outcomes[i])) for i, t in enumerate(tasks)])
    return out


def _grade(qa, assignment, tasks):
    """In a pool, with the leak scan (the blind-spot audit is gradekit check's)."""
    return grade_tasks(qa, assignment, tasks, jobs=0, sandboxed=True, stages=(LEAK_STAGE,))


def _leaks(outcome) -> list[str]:
    return [leak for seen in outcome.observed.values() for leak in seen.get("leaks", [])]


def _verdicts(graded):
    """(assignment, file, [(class, wrong names, cells lost outside, kept, leaks) per variant])."""
    for assignment, (files, gradings) in graded.items():
        for qa_file in files:
            per = []
            for task, result, leaks in gradings:
                if qa_file not in task.files:
                    continue
                assert result.error is None, (qa_file.label, task.student, result.error)
                cells = {c.grade_id: c for nb in result.notebooks for c in nb.cells}
                allowed = {t for f in task.files for t in f.breaks}
                lost = {g for g, c in cells.items() if not c.manual and (c.score or 0) < c.points - 1e-9}
                names = [m for g in qa_file.breaks if g in cells for f in cells[g].findings for m in f.mistakes]
                names += [m for g in set(cells) - allowed for f in cells[g].findings for m in f.mistakes]
                per.append((feedback_class(qa_file, cells), names, lost - allowed,
                            not (lost & set(qa_file.breaks)), leaks))
            yield assignment, qa_file, per


def test_the_set_is_large_enough(graded):
    files = [f for files, _gradings in graded.values() for f in files]
    assert len(files) >= 20
    assert all(len(per) == VARIANTS for _a, _f, per in _verdicts(graded))


def test_every_mistake_is_caught_on_its_own_exercise_only_and_never_named(graded):
    problems = []
    for _assignment, qa_file, per in _verdicts(graded):
        for kind, names, elsewhere, kept, leaks in per:
            if kept:
                problems.append(f"{qa_file.label}: kept full marks on {qa_file.breaks}")
            if elsewhere:
                problems.append(f"{qa_file.label}: points lost elsewhere: {sorted(elsewhere)}")
            if names:
                problems.append(f"{qa_file.label}: named {names}")
            if leaks:
                problems.append(f"{qa_file.label}: leaked {leaks[:2]}")
    assert not problems, "\n".join(problems)


def test_at_most_a_tenth_get_bare_feedback(graded):
    kinds = {}
    for assignment, qa_file, per in _verdicts(graded):
        seen = Counter(kind for kind, *_rest in per)
        kinds[f"{assignment}/{qa_file.path.name}"] = max(seen, key=lambda k: (seen[k], STRENGTH[k]))
    bare = [name for name, kind in kinds.items() if kind == "bare"]
    assert len(bare) <= BARE_SHARE * len(kinds), (bare, Counter(kinds.values()))
