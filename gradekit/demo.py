"""``gradekit demo``: a simulated class run through the whole pipeline.

A temporary course directory gets the repo's course (config, source, hidden
graders, reference), a roster of students in nbgrader's gradebook, and one
submission per student:

* correct answers, some written differently (loops, einsum, lists, float32);
* partly wrong answers: one classic mistake each (the course's QA set,
  ``autograder/<assignment>/mistakes/``, see gradekit.qaset);
* untouched releases;
* broken and hostile files: truncated JSON, an empty file, the wrong notebook
  name, nbformat 3, code that patches ``np.allclose``, exits the process,
  or loops forever.

Then it grades the class, writes the feedback, and exports the gradebook with
``nbgrader export``, as an instructor would.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat

from .course import Course
from .errors import CourseError
from . import qaset

ASSIGNMENT = "self_attention"
COURSE_PARTS = ("nbgrader_config.py", "source", "autograder", "solutions")

HOSTILE = {
    "patches_allclose": (
        "import numpy as np\nnp.allclose = lambda *a, **k: True\nnp.testing.assert_allclose = lambda *a, **k: None\n"),
    "exits_on_import": "import os\nos._exit(0)\n",
}


def course_files() -> Path:
    """The demo's course: the ``gradekit_course`` data shipped with the package (in a checkout,
    the repository itself, which is a course directory)."""
    import importlib.util

    spec = importlib.util.find_spec("gradekit_course")
    for location in (spec.submodule_search_locations or []) if spec else []:
        if Path(location, "nbgrader_config.py").is_file():
            return Path(location)
    raise CourseError("the demo's course (the gradekit_course package data) is not installed")


repo_root = course_files


def fill(nb: nbformat.NotebookNode, sources: dict[str, str]) -> nbformat.NotebookNode:
    """Replace solution cells' sources by grade_id."""
    for cell in nb.cells:
        gid = cell.metadata.get("nbgrader", {}).get("grade_id")
        if gid in sources:
            cell.source = sources[gid]
    return nb


def build_course(target: Path, students: list[str]) -> Course:
    root = repo_root()
    target.mkdir(parents=True, exist_ok=True)
    for part in COURSE_PARTS:
        src = root / part
        if src.is_dir():
            shutil.copytree(src, target / part, ignore=shutil.ignore_patterns("__pycache__"), dirs_exist_ok=True)
        else:
            shutil.copy2(src, target / part)
    course = Course.load(target)
    from .gradebook import open_gradebook

    with open_gradebook(course) as gb:
        for i, student in enumerate(students):
            gb.update_or_create_student(student, first_name=f"Student{i + 1}", last_name="Demo")
    return course


def simulate(course: Course, students: list[str]) -> dict[str, str]:
    """Write one submission per student; return what each one did."""
    from .files import atomic_write
    from .release import answer_key

    graders = course.graders_dir(ASSIGNMENT)
    right = [(p.stem, qaset.parse(p)[2]) for p in qaset.files(graders, "correct")]
    wrong = {p.stem: qaset.parse(p)[2] for p in qaset.files(graders, "mistakes")}
    broken = ["untouched", "untouched", "truncated", "empty", "wrong_name", "nbformat3",
              "patches_allclose", "exits_on_import", "endless_loop"]
    plan: dict[str, str] = {}
    n = len(students)
    n_broken = min(len(broken), max(0, n // 3))
    n_wrong = min(len(wrong), max(0, (n - n_broken) // 2))
    spread = [list(wrong)[i * len(wrong) // n_wrong] for i in range(n_wrong)]  # across the exercises
    kinds = (["key"] * (n - n_broken - n_wrong)) + [f"wrong:{name}" for name in spread] + broken[:n_broken]
    previous_key = None
    for i, (student, kind) in enumerate(zip(students, kinds)):
        folder = course.submitted_dir(student, ASSIGNMENT)
        folder.mkdir(parents=True, exist_ok=True)
        atomic_write(folder / "timestamp.txt", f"2026-11-2{i % 9} 10:{i % 60:02d}:00.000000 UTC")
        key_dir = Path(tempfile.mkdtemp(prefix="key-"))
        answer_key(course, ASSIGNMENT, student, key_dir)
        nb = nbformat.read(str(key_dir / f"{ASSIGNMENT}.ipynb"), as_version=4)
        quiz_note = _quiz(course, student, kind, key_dir, folder, previous_key, copies=i % 2 == 1)
        if previous_key is not None:
            shutil.rmtree(previous_key, ignore_errors=True)
        previous_key = key_dir
        target = folder / f"{ASSIGNMENT}.ipynb"
        if kind == "key" and right and i % 3 == 1:
            name, sources = right[i % len(right)]
            fill(nb, sources)
            kind = f"correct:{name}"
        elif kind.startswith("wrong:"):
            fill(nb, wrong[kind[6:]])
        elif kind == "untouched":
            nb = nbformat.read(str(course.release_dir(student, ASSIGNMENT) / f"{ASSIGNMENT}.ipynb"), as_version=4)
        elif kind in HOSTILE:
            nb.cells.insert(1, nbformat.v4.new_code_cell(HOSTILE[kind]))
        elif kind == "endless_loop":
            fill(nb, {"softmax": "def softmax(x, axis=-1):\n    while True:\n        pass\n"})
        text = nbformat.writes(nb)
        if kind == "truncated":
            text = text[: len(text) // 2]
        elif kind == "empty":
            text = ""
        elif kind == "nbformat3":
            text = json.dumps({"nbformat": 3, "nbformat_minor": 0, "metadata": {}, "worksheets": []})
        elif kind == "wrong_name":
            target = folder / "my_homework.ipynb"
        atomic_write(target, text)
        plan[student] = ("correct (answer key)" if kind == "key" else kind) + quiz_note
    if previous_key is not None:
        shutil.rmtree(previous_key, ignore_errors=True)
    return plan


def _quiz(course: Course, student: str, kind: str, key_dir: Path, folder: Path, previous_key,
          copies: bool) -> str:
    """The quiz notebook a simulated student hands in; returns how it is described."""
    quiz = key_dir / "quiz.ipynb"
    if not quiz.exists():
        return ""
    if kind in ("key",) or kind.startswith("correct"):
        shutil.copy(quiz, folder / "quiz.ipynb")
        return "; quiz: answer key"
    if kind == "untouched":
        shutil.copy(course.release_dir(student, ASSIGNMENT) / "quiz.ipynb", folder / "quiz.ipynb")
        return "; quiz: untouched"
    if kind.startswith("wrong:") and previous_key is not None and copies:
        shutil.copy(Path(previous_key) / "quiz.ipynb", folder / "quiz.ipynb")
        return "; quiz: copied a neighbour's answers"
    if kind.startswith("wrong:"):
        nb = nbformat.read(str(quiz), as_version=4)
        for cell in nb.cells:  # two classic slips: the lecture's weights, and n2/n1 not squared
            gid = cell.metadata.get("nbgrader", {}).get("grade_id")
            if gid == "tq1":
                cell.source += "\ntq1_weights = [0.670, 0.330]\n"
            elif gid == "tq5":
                cell.source += "\ntq5_factor = tq5_factor ** 0.5\n"
        nbformat.write(nb, str(folder / "quiz.ipynb"))
        return "; quiz: lecture's weights, n2/n1 not squared"
    return ""


def _slowest(course: Course, students: list[str]) -> tuple[str, float] | None:
    """The student whose grading took longest, from their results.json."""
    from .autograde import iter_results

    times = [(r.seconds, r.student) for r in iter_results(course, ASSIGNMENT, students) if r.seconds]
    if not times:
        return None
    seconds, student = max(times)
    return student, seconds


def run_demo(keep: str | None = None, students: int = 30, sandboxed: bool = True) -> int:
    from .cli import main as cli

    target = Path(keep).resolve() if keep else Path(tempfile.mkdtemp(prefix="gradekit-demo-"))
    ids = [f"s{i:03d}" for i in range(1, students + 1)]
    print(f"demo course: {target}")
    course = build_course(target, ids)
    started = time.monotonic()
    if cli(["--course", str(target), "generate", ASSIGNMENT]) != 0:
        return 1
    print(f"generate: {time.monotonic() - started:.1f} s for {len(ids)} students (each has their own numbers)")
    plan = simulate(course, ids)
    print("\nthe simulated class:")
    for student, kind in plan.items():
        print(f"  {student}: {kind}")
    print()
    started = time.monotonic()
    args = ["--course", str(target), "autograde", ASSIGNMENT] + ([] if sandboxed else ["--no-sandbox"])
    if cli(args) != 0:
        return 1
    elapsed = time.monotonic() - started
    print(f"autograde: {elapsed:.1f} s for {len(ids)} submissions ({elapsed / len(ids):.2f} s each)")
    slowest = _slowest(course, ids)
    if slowest:
        student, seconds = slowest
        limit = course.limits.call_seconds
        why = f": a call that does not return is stopped after {limit:g} s" if seconds >= limit else ""
        print(f"  the slowest, {student} ({plan.get(student, '?')}), took {seconds:.1f} s of that{why}")
    if cli(["--course", str(target), "feedback", ASSIGNMENT]) != 0:
        return 1
    export = subprocess.run([str(Path(sys.executable).parent / "nbgrader"), "export"], cwd=target,
                            capture_output=True, text=True)
    if export.returncode == 0 and (target / "grades.csv").exists():
        lines = (target / "grades.csv").read_text().splitlines()
        print(f"\nnbgrader export -> {target / 'grades.csv'} ({len(lines) - 1} rows); first rows:")
        for line in lines[:4]:
            print("  " + line)
    else:
        print(f"nbgrader export failed: {export.stderr.strip()[-300:]}")
    first_wrong = next((s for s, k in plan.items() if k.startswith("wrong:")), ids[0])
    print(f"\nfeedback pages: {target / 'feedback'}/<student>/{ASSIGNMENT}/{ASSIGNMENT}.html")
    print(f"  e.g. {course.feedback_dir(first_wrong, ASSIGNMENT) / (ASSIGNMENT + '.html')}  ({plan[first_wrong]})")
    from .exchange import demo_round_trip

    demo_round_trip(target, ASSIGNMENT, ids[:3])  # the same class through nbgrader's exchange
    if not keep:
        print(f"(the demo course stays in {target} for a closer look: delete it when done, "
              "or choose where it goes with `gradekit demo --keep DIR`)")
    return 0
