"""A simulated class for ``gradekit check``: its own course copy, its own students, no gradebook.

The assignment's files (source, graders, reference, QA set) are copied into a
temporary course with a fixed secret of its own, so the simulated students'
variants are nobody's real ones and every run of the check sees the same
numbers. Submissions are built from each simulated student's own answer key:
as it is, untouched (the release), or with the solution cells of a QA file in
place of the key's.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import cast

import nbformat

from gradekit.atomic import write_notebooks
from gradekit.course import Course
from gradekit.notebook.answers import exercise_tests
from gradekit.notebook.cells import grade_id, is_solution
from gradekit.qa.qaset import KINDS
from gradekit.qa.qaset import files as qa_files
from gradekit.qa.qaset import parse as parse_qa

QA_SECRET = "gradekit-check: simulated students, not a course's"
STUDENT_PREFIX = "qa"


@dataclass
class QAFile:
    """One file of the QA set."""

    path: Path
    kind: str  # "mistakes" or "correct"
    names: str | None
    breaks: list[str]  # the test cells it may break: the file's `# breaks:`, else its exercises'
    sections: dict[str, str]  # solution-cell grade_id -> code
    explicit: bool = False  # `# breaks:` given: every one of them must lose points

    @property
    def label(self) -> str:
        return f"{self.kind}/{self.path.name}"


@contextmanager
def simulated_course(course: Course, assignment: str) -> Iterator[Course]:
    """A temporary copy of the course holding only ``assignment``, with the QA secret."""
    work = Path(tempfile.mkdtemp(prefix=f"gradekit-check-{assignment}-"))
    previous = os.environ.get("GRADEKIT_SECRET")
    try:
        shutil.copy2(course.root / "nbgrader_config.py", work / "nbgrader_config.py")
        for part in ("source", "autograder", "solutions"):
            src = course.root / part / assignment
            if src.is_dir():
                shutil.copytree(
                    src, work / part / assignment, ignore=shutil.ignore_patterns("__pycache__", ".ipynb_checkpoints")
                )
        os.environ["GRADEKIT_SECRET"] = QA_SECRET  # children (the grading processes) inherit it
        yield Course.load(work)
    finally:
        if previous is None:
            os.environ.pop("GRADEKIT_SECRET", None)
        else:
            os.environ["GRADEKIT_SECRET"] = previous
        shutil.rmtree(work, ignore_errors=True)


def students(n: int) -> list[str]:
    return [f"{STUDENT_PREFIX}{i:03d}" for i in range(1, n + 1)]


def translations(course: Course, assignment: str) -> list[str]:
    """The languages besides English that the assignment has a catalog for (and gradekit speaks)."""
    from gradekit.i18n.catalogs import languages, locale_dir

    return [
        lang for lang in languages() if lang != "en" and (locale_dir(course.root, assignment) / f"{lang}.po").is_file()
    ]


def assign_languages(course: Course, assignment: str, ids: list[str]) -> dict[str, str]:
    """Give the simulated students the assignment's languages in turn (English first), through the
    simulated course's languages.csv: a QA file is then graded in every language."""
    spoken = ["en", *translations(course, assignment)]
    chosen = {student: spoken[i % len(spoken)] for i, student in enumerate(ids)}
    rows = "".join(f"{student},{language}\n" for student, language in chosen.items())
    (course.root / "languages.csv").write_text("student_id,language\n" + rows, encoding="utf-8")
    return chosen


def load_qa_set(graders_dir: Path, notebooks: dict[str, nbformat.NotebookNode]) -> tuple[list[QAFile], list[str]]:
    """The QA files, and one line for each that cannot be used (unreadable, unknown cells)."""
    tests = exercise_tests(notebooks)
    loaded, problems = [], []
    for kind in KINDS:
        for path in qa_files(graders_dir, kind):
            try:
                names, breaks, sections = parse_qa(path)
            except Exception as exc:  # noqa: BLE001 - a TemplateError naming the file and line
                problems.append(str(exc))
                continue
            unknown = [gid for gid in sections if gid not in tests]
            if unknown:
                problems.append(
                    f"{kind}/{path.name}: no solution cell {', '.join(map(repr, unknown))} in the notebooks"
                )
                continue
            if kind == "mistakes" and not names:
                problems.append(f"{kind}/{path.name}: a mistake needs a first line '# names: <phrase>'")
                continue
            derived = [t for gid in sections for t in tests[gid]]
            loaded.append(QAFile(path, kind, names, breaks or derived, sections, bool(breaks)))
    return loaded, problems


def fill(notebooks: dict[str, nbformat.NotebookNode], sections: dict[str, str]) -> dict[str, nbformat.NotebookNode]:
    """Copies of ``notebooks`` with these solution cells' sources replaced."""
    out = {}
    for name, nb in notebooks.items():
        copy = nbformat.from_dict(json.loads(json.dumps(nb)))
        for cell in copy.cells:
            if is_solution(cell) and grade_id(cell) in sections:
                cell.source = sections[cast(str, grade_id(cell))]
        out[name] = copy
    return out


def write_submission(folder: Path, notebooks: dict[str, nbformat.NotebookNode]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    write_notebooks(folder, notebooks)
    return folder


def groups(mistakes: list[QAFile]) -> list[list[QAFile]]:
    """Mistakes packed into submissions that change disjoint cells and break disjoint tests:
    exercises are graded independently, so each keeps its own feedback."""
    packed: list[list[QAFile]] = []
    for mistake in mistakes:
        for group in packed:
            cells = {gid for other in group for gid in other.sections}
            broken = {t for other in group for t in other.breaks}
            if not (cells & set(mistake.sections)) and not (broken & set(mistake.breaks)):
                group.append(mistake)
                break
        else:
            packed.append([mistake])
    return packed
