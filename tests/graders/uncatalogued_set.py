"""The project's uncatalogued sets, graded: shared by tests/graders/test_uncatalogued.py and bench/relations.py.

``uncatalogued/<assignment>/*.py`` holds mistakes that no grader's ``mistakes=``
and no QA file knows, in the QA-file format (``# %% <solution grade_id>``
sections), the first line ``# relation: <family>: <what the values show>``
(the family is the relation the mistake was written to be explained by:
``factor``, ``elementwise``, ``where``, ...; ``none`` when none was).
``uncatalogued/<assignment>/correct/*.py`` holds unusual right answers, the
first line ``# correct: <how it is written>``.

Every file is graded on VARIANTS simulated students' variants (``gradekit
check``'s simulated course), mistakes of different exercises packed into one
submission as ``gradekit check`` packs them (the packing rotates, so that a
mistake meets other neighbours on other variants), the right answers packed
the same way apart from the mistakes, with the LeakScan stage.
An assignment of the course with no folder here has no set yet (see
:func:`assignments`).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from conftest import REPO
from gradekit.course import Course
from gradekit.qa import simulate
from gradekit.qa.qaset import parse
from gradekit.qa.feedback import STRENGTH, feedback_class
from gradekit.qa.tasks import LEAK_STAGE, Task, grade_tasks

HERE = Path(__file__).resolve().parent / "uncatalogued"
VARIANTS = 10
_FIRST = re.compile(r"# (relation|correct): ?(.*)")
# a number's check that says only that it is wrong: no more than "values differ"
_WRONG_VALUE = re.compile(r": wrong value( \(tolerance rtol=[^)]*\))?$")


def verdict_of(qa_file, cells) -> str:
    """gradekit check's verdict (feedback_class), with a number said only to be wrong counted as bare."""
    kind = feedback_class(qa_file, cells)
    if kind != "related":
        return kind
    lost = [cells[g] for g in qa_file.breaks if g in cells and (cells[g].score or 0) < cells[g].points - 1e-9]
    if any(c.relations for c in lost):
        return kind
    failed = [k for c in lost for k in c.checks if not k.passed]
    plain = all((k.differs and not k.observations) or _WRONG_VALUE.search(k.message) for k in failed)
    return "bare" if plain else kind


@dataclass
class Verdict:
    """One file on one variant."""

    kind: str  # named / related / bare / missed (gradekit.qa.feedback.feedback_class); a right answer: "kept" or "lost"
    names: list[str]  # mistake names given on its cells, or on cells outside its submission's mistakes
    elsewhere: set[str]  # test cells outside the submission's mistakes that lost points
    kept: bool  # a mistake: it lost no point on its own test cells
    leaks: list[str]
    said: list[str] = field(default_factory=list)  # what its cells' relations say (English)
    families: list[str] = field(default_factory=list)  # the relation families that said it
    messages: list[str] = field(default_factory=list)  # its failed checks' own messages (English)


@dataclass
class Graded:
    assignment: str
    path: Path
    family: str  # the "# relation:" family; "correct" for a right answer
    verdicts: list[Verdict]

    @property
    def label(self) -> str:
        return f"{self.assignment}/{'correct/' if self.family == 'correct' else ''}{self.path.name}"

    @property
    def kind(self) -> str:
        """The most frequent verdict over its variants (ties: the stronger)."""
        seen = Counter(v.kind for v in self.verdicts)
        return max(seen, key=lambda k: (seen[k], STRENGTH.get(k, 0)))


def assignments(root: Path = HERE, course: Path = REPO) -> list[str]:
    """The course's assignments that have an uncatalogued set (a folder in ``root``, by default here); the
    course is the project's unless ``course`` names another course directory."""
    return [a for a in Course.load(course).assignments() if (root / a).is_dir()]


def family_of(path: Path) -> str:
    first = path.read_text().split("\n", 1)[0]
    match = _FIRST.fullmatch(first)
    assert match, f"{path}: the first line says '# relation: <family>: ...' or '# correct: ...'"
    if match.group(1) == "correct":
        return "correct"
    return match.group(2).split(":", 1)[0].strip()


def _files(assignment: str, tests: dict, root: Path = HERE) -> list[simulate.QAFile]:
    out = []
    for kind, folder in (("mistakes", root / assignment), ("correct", root / assignment / "correct")):
        for path in sorted(folder.glob("*.py")):
            family_of(path)
            names, breaks, sections = parse(path)
            assert names is None, f"{path.name}: an uncatalogued file names nothing"
            out.append(simulate.QAFile(path, kind, None, breaks or [t for g in sections for t in tests[g]],
                                       sections, bool(breaks)))
    return out


def grade(assignment: str, variants: int = VARIANTS, jobs: int = 0, only: set[str] | None = None,
          root: Path = HERE, course: Path = REPO) -> list[Graded]:
    """Every file of ``assignment``'s set (or those named in ``only``) on ``variants`` variants; the set
    is ``root/<assignment>/`` (by default the project's, here), of the course in ``course`` (by default
    the project's)."""
    from gradekit.authoring.template import AssignmentSource
    from gradekit.authoring.variant import build_variant
    from gradekit.grading.diagnosis import notes
    from gradekit.release.stripper import Stripper

    with simulate.simulated_course(Course.load(course), assignment) as qa:
        source = AssignmentSource.load(qa, assignment)
        ids = simulate.students(variants)
        tasks: list[Task] = []
        files: list[simulate.QAFile] = []
        packed: list = []
        for index, student in enumerate(ids):
            key = {n: Stripper().answer_key(nb) for n, nb in build_variant(qa, source, student).notebooks.items()}
            if not files:
                files = [f for f in _files(assignment, simulate.exercise_tests(key), root)
                         if only is None or f.path.name in only]
                # mistakes packed by disjoint cells and tests (as gradekit check packs them), the right answers
                # packed the same way apart from them: each keeps its cells' points or loses them on its own
                packed = simulate.groups([f for f in files if f.kind == "mistakes"]) + \
                    simulate.groups([f for f in files if f.kind == "correct"])
            for group in packed[index % len(packed):] + packed[:index % len(packed)]:
                sections = {g: code for f in group for g, code in f.sections.items()}
                folder = simulate.write_submission(qa.root / "uncatalogued" / f"{len(tasks):05d}",
                                                   simulate.fill(key, sections))
                tasks.append(Task("+".join(f.label for f in group), student, folder, group))
        outcomes = grade_tasks(qa, assignment, tasks, jobs=jobs, sandboxed=True, stages=(LEAK_STAGE,))
    out = []
    for qa_file in files:
        verdicts = []
        for index, task in enumerate(tasks):
            if qa_file not in task.files:
                continue
            result = outcomes[index].result
            assert result.error is None, (qa_file.label, task.student, result.error)
            cells = {c.grade_id: c for nb in result.notebooks for c in nb.cells}
            allowed = {t for f in task.files for t in f.breaks}
            lost = {g for g, c in cells.items() if not c.manual and (c.score or 0) < c.points - 1e-9}
            names = [m for g in qa_file.breaks if g in cells for f in cells[g].findings for m in f.mistakes]
            names += [m for g in set(cells) - allowed for f in cells[g].findings for m in f.mistakes]
            leaks = [leak for seen in outcomes[index].observed.values() for leak in seen.get("leaks", [])]
            said = [n for g in qa_file.breaks if g in cells for n in notes(cells[g])]
            families = [r.family for g in qa_file.breaks if g in cells for r in cells[g].relations]
            messages = [str(k.message) for g in qa_file.breaks if g in cells for k in cells[g].checks if not k.passed]
            if qa_file.kind == "correct":
                kind = "lost" if lost & set(qa_file.breaks) else "kept"
                verdicts.append(Verdict(kind, names, lost - allowed, True, leaks, said, families, messages))
            else:
                verdicts.append(Verdict(verdict_of(qa_file, cells), names, lost - allowed,
                                        not (lost & set(qa_file.breaks)), leaks, said, families, messages))
        out.append(Graded(assignment, qa_file.path, "correct" if qa_file.kind == "correct"
                          else family_of(qa_file.path), verdicts))
    return out
