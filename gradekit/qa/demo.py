"""The demo's simulated class: a copy of a course and one submission per student, from what each
assignment offers (``gradekit demo`` runs it through the whole pipeline; nothing here knows a course).

* right answers: the student's own answer key, or a right answer written
  differently (the assignment's QA set, ``autograder/<a>/correct/``);
* one classic mistake each (``autograder/<a>/mistakes/``), spread over the exercises;
* untouched releases;
* two copiers: one hands in another student's notebooks, one copies another's
  answer to one exercise with its variables renamed;
* every other student reads the course in Chinese (``languages.csv``);
* broken and hostile files: truncated JSON, an empty file, the wrong notebook
  name, nbformat 3, code that patches ``np.allclose``, exits the process, or
  loops forever.
"""

from __future__ import annotations

import json
import re
import shutil
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, cast

from gradekit.errors import CourseError, GradekitError
from gradekit.notebook.cells import grade_id, is_solution, is_test

if TYPE_CHECKING:  # pragma: no cover - nbformat only when it runs
    import nbformat

    from gradekit.course import Course

COURSE_PARTS = ("nbgrader_config.py", "source", "autograder", "solutions")
BROKEN = [
    "untouched",
    "untouched",
    "truncated",
    "empty",
    "wrong_name",
    "nbformat3",
    "patches_allclose",
    "exits_on_import",
    "endless_loop",
]
HOSTILE = {
    "patches_allclose": (
        "import numpy as np\nnp.allclose = lambda *a, **k: True\nnp.testing.assert_allclose = lambda *a, **k: None\n"
    ),
    "exits_on_import": "import os\nos._exit(0)\n",
}


def course_files(root: Path) -> Path:
    """The demo's course: the course directory at ``root``, which must have a config and sources."""
    if not (root / "nbgrader_config.py").is_file() or not (root / "source").is_dir():
        raise CourseError(
            f"gradekit demo simulates a class on a course's own assignments, and {root} is no course directory "
            "(no nbgrader_config.py and source/): run it in one, or give --course DIR "
            "(`gradekit quickstart DIR` makes one)"
        )
    return root


def build_course(target: Path, students: list[str], origin: Path) -> Course:
    """A course directory at ``target`` with a copy of the course at ``origin`` and these students in
    its gradebook."""
    root = course_files(origin)
    target.mkdir(parents=True, exist_ok=True)
    for part in COURSE_PARTS:
        src = root / part
        if src.is_dir():
            shutil.copytree(
                src,
                target / part,
                dirs_exist_ok=True,
                ignore=shutil.ignore_patterns("__pycache__", ".ipynb_checkpoints"),
            )
        else:
            shutil.copy2(src, target / part)
    # a bilingual class: every other student reads the course in Chinese (languages.csv)
    (target / "languages.csv").write_text(
        "student_id,language\n" + "".join(f"{s},{'zh' if i % 2 else 'en'}\n" for i, s in enumerate(students)),
        encoding="utf-8",
    )
    from gradekit.course import Course

    course = Course.load(target)
    from gradekit.gradebook.connect import open_gradebook

    with open_gradebook(course) as gb:
        for i, student in enumerate(students):
            gb.update_or_create_student(student, first_name=f"Student{i + 1}", last_name="Demo")
    return course


def fill(nb: nbformat.NotebookNode, sources: dict[str, str]) -> nbformat.NotebookNode:
    """Replace solution cells' sources by grade_id."""
    for cell in nb.cells:
        if is_solution(cell) and grade_id(cell) in sources:
            cell.source = sources[cast(str, grade_id(cell))]
    return nb


# -- the simulated class ------------------------------------------------------------------------


def simulate(course: Course, assignment: str, students: list[str]) -> dict[str, str]:
    """Write one submission per student; return what each one did."""
    import nbformat

    from gradekit.atomic import atomic_write
    from gradekit.qa import qaset
    from gradekit.release.generate import write_answer_key

    graders = course.graders_dir(assignment)
    right = [(p.stem, qaset.parse(p)[2]) for p in qaset.files(graders, "correct")]
    wrong = {p.stem: qaset.parse(p)[2] for p in qaset.files(graders, "mistakes")}
    n = len(students)
    n_broken = min(len(BROKEN), max(0, n // 3))
    n_wrong = min(len(wrong), max(0, (n - n_broken) // 2))
    spread = [list(wrong)[i * len(wrong) // n_wrong] for i in range(n_wrong)]  # across the exercises
    kinds = ["key"] * (n - n_broken - n_wrong) + [f"wrong:{name}" for name in spread] + BROKEN[:n_broken]
    plan: dict[str, str] = {}
    with tempfile.TemporaryDirectory(prefix="gradekit-demo-keys-") as tmp:
        for i, (student, kind) in enumerate(zip(students, kinds, strict=False)):
            folder = course.submitted_dir(student, assignment)
            folder.mkdir(parents=True, exist_ok=True)
            atomic_write(folder / "timestamp.txt", f"2026-11-2{i % 9} 10:{i % 60:02d}:00.000000 UTC")
            keys = Path(tmp) / student
            write_answer_key(course, assignment, student, keys)
            notebooks = {p.stem: nbformat.read(str(p), as_version=4) for p in sorted(keys.glob("*.ipynb"))}
            main = max(notebooks, key=lambda name: sum(1 for c in notebooks[name].cells if is_test(c)))
            styled = [s for s, k in plan.items() if k.startswith("correct:")]
            copiers = sum(1 for k in plan.values() if k.startswith("copier"))
            files = {name: f"{name}.ipynb" for name in notebooks}
            if kind == "key" and i % 3 == 1 and len(styled) < len(right):
                # each right answer written differently by one student: the same code handed in by
                # several is what copy detection is there to flag
                name, sources = right[len(styled)]
                for nb in notebooks.values():
                    fill(nb, sources)
                kind = f"correct: {name}"
            elif kind == "key" and styled and copiers == 0:
                for name in notebooks:  # someone else's notebooks, handed in as one's own
                    shutil.copy(course.submitted_dir(styled[0], assignment) / f"{name}.ipynb", folder / f"{name}.ipynb")
                plan[student] = f"copier: handed in {styled[0]}'s notebooks as their own"
                continue
            elif kind == "key" and len(styled) > 1 and copiers == 1:
                theirs = nbformat.read(str(course.submitted_dir(styled[-1], assignment) / f"{main}.ipynb"), 4)
                gid, code = _an_answer(theirs, longest=True)  # the hardest exercise: the one worth copying
                fill(notebooks[main], {gid: renamed(code)})
                kind = f"copier: {styled[-1]}'s {gid}, renamed and reformatted; the rest their own"
            elif kind.startswith("wrong:"):
                for nb in notebooks.values():
                    fill(nb, wrong[kind[6:]])
                kind = f"mistake: {kind[6:]}"
            elif kind == "untouched":
                notebooks = {
                    name: nbformat.read(str(course.release_dir(student, assignment) / f"{name}.ipynb"), 4)
                    for name in notebooks
                }
            elif kind in HOSTILE:
                notebooks[main].cells.insert(1, nbformat.v4.new_code_cell(HOSTILE[kind]))
            elif kind == "endless_loop":
                gid, code = _an_answer(notebooks[main])
                function = re.search(r"^def (\w+)\(", code, re.M)
                fill(
                    notebooks[main],
                    {
                        gid: f"def {function.group(1) if function else 'f'}(*args, **kwargs):\n"
                        "    while True:\n        pass\n"
                    },
                )
            texts = {name: nbformat.writes(nb) for name, nb in notebooks.items()}
            if kind == "truncated":
                texts[main] = texts[main][: len(texts[main]) // 2]
            elif kind == "empty":
                texts[main] = ""
            elif kind == "nbformat3":
                texts[main] = json.dumps({"nbformat": 3, "nbformat_minor": 0, "metadata": {}, "worksheets": []})
            elif kind == "wrong_name":
                files[main] = "my_homework.ipynb"
            for name, text in texts.items():
                atomic_write(folder / files[name], text)
            plan[student] = "correct (answer key)" if kind == "key" else kind
    return plan


def _an_answer(nb: nbformat.NotebookNode, longest: bool = False) -> tuple[str, str]:
    """A solution cell that defines something (a function or a class), the first or the
    longest: its grade_id and code."""
    found = [
        (cast(str, grade_id(cell)), cell.source)  # a solution cell's: nbgrader's format requires one
        for cell in nb.cells
        if is_solution(cell) and cell.cell_type == "code" and re.search(r"^(def|class) ", cell.source, re.M)
    ]
    if not found:
        raise GradekitError("the demo needs an exercise whose answer defines a function or a class")
    return max(found, key=lambda answer: len(answer[1])) if longest else found[0]


def renamed(source: str) -> str:
    """What a copier makes of someone else's code: local names renamed, comments dropped, re-spaced."""
    import io
    import keyword
    import tokenize

    defined = {m.group(1) for m in re.finditer(r"^\s*(?:def|class)\s+(\w+)", source, re.M)}
    params = {
        m
        for signature in re.findall(r"def \w+\(([^)]*)\)", source)
        for m in re.findall(r"\b([a-z_]\w*)\b", signature)
        if m != "self"
    }
    assigned = set(re.findall(r"^\s*([a-z_]\w*)\s*=", source, re.M))
    local = (params | assigned) - defined - set(keyword.kwlist) - {"np", "self"}
    out = []
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.COMMENT:
            continue
        if tok.type == tokenize.NAME and tok.string in local:
            out.append((tok.type, f"my_{tok.string}"))
        else:
            out.append((tok.type, tok.string))
    return tokenize.untokenize(out)
