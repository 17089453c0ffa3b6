"""``gradekit demo``: a simulated class run through the whole pipeline, on every assignment.

The course is the one the command runs in (``--course``, the current directory by default:
``make demo`` runs it in this repository, whose course is the self-attention one; ``gradekit
quickstart DIR`` makes another). It is never touched: a temporary course directory gets a copy
of its config, sources, hidden graders and references, a roster in nbgrader's gradebook, and one
submission per student and assignment, built from what each assignment offers -- nothing here
knows a course:

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

Then, as an instructor would, for each assignment: ``generate``, ``autograde``,
``feedback``, ``integrity``, ``report``; then ``nbgrader export`` and one round
trip through nbgrader's exchange. Everything goes through the library, as the
command line's own commands do.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, cast

from gradekit.errors import CourseError, GradekitError, UsageError
from gradekit.notebook.cells import grade_id, is_solution, is_test

if TYPE_CHECKING:  # pragma: no cover - the command line imports every verb: nbformat only when it runs
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


# -- the run -----------------------------------------------------------------------------------------


def run_demo(origin: Path, keep: str | None = None, students: int = 30, sandboxed: bool = True) -> int:
    course_files(origin)
    target = Path(keep).resolve() if keep else Path(tempfile.mkdtemp(prefix="gradekit-demo-"))
    if target == origin.resolve():
        raise UsageError("--keep: the demo's copy cannot be the course itself")
    ids = [f"s{i:03d}" for i in range(1, students + 1)]
    print(f"demo course: {target} (a copy of {origin.resolve()})")
    course = build_course(target, ids, origin)
    from gradekit.course import keep_out_of_git

    keep_out_of_git(target, "gradekit demo")  # a whole course, its secret and a class's work: wherever --keep puts it
    for assignment in course.assignments():
        _grade_assignment(course, assignment, ids, sandboxed)
    _export(target)
    from gradekit.handout.steps import demo_round_trip

    demo_round_trip(target, course.assignments()[0], ids[:3])  # the same class through nbgrader's exchange
    print()
    for assignment in course.assignments():
        print(f"class report of {assignment}: {course.root / 'reports' / assignment / 'index.html'}")
    if not keep:
        print(
            f"(the demo course stays in {target} for a closer look: delete it when done, "
            "or choose where it goes with `gradekit demo --keep DIR`)"
        )
    return 0


def _grade_assignment(course: Course, assignment: str, ids: list[str], sandboxed: bool) -> None:
    from gradekit.cli.autograde import autograde_class
    from gradekit.grading.options import Options
    from gradekit.pages.feedback import write_class_feedback
    from gradekit.release.generate import generate
    from gradekit.results import iter_results

    print(f"\n=== {assignment} ===")
    started = time.monotonic()
    generate(course, assignment, ids)
    print(f"generate: {time.monotonic() - started:.1f} s for {len(ids)} students (each has their own numbers)")
    plan = simulate(course, assignment, ids)
    print("\nthe simulated class:")
    for student, kind in plan.items():
        print(f"  {student}: {kind}")
    print()
    started = time.monotonic()
    autograde_class(course, assignment, options=Options(sandboxed=sandboxed))
    elapsed = time.monotonic() - started
    print(f"autograde: {elapsed:.1f} s for {len(ids)} submissions ({elapsed / len(ids):.2f} s each)")
    times = [(r.seconds, r.student) for r in iter_results(course, assignment, ids) if r.seconds]
    if times:
        seconds, student = max(times)
        limit = course.limits_for(assignment).call_timeout
        why = f": a call that does not return is stopped after {limit:g} s" if seconds >= limit else ""
        print(f"  the slowest, {student} ({plan.get(student, '?')}), took {seconds:.1f} s of that{why}")
    pages = write_class_feedback(course, assignment)
    wrong = next((s for s, k in plan.items() if k.startswith("mistake:")), ids[0])
    print(f"feedback: {pages} pages in {course.root / 'feedback'}/<student>/{assignment}/")
    result = next(iter_results(course, assignment, [wrong]), None)
    if result is not None and result.notebooks:  # the page of the notebook the mistake cost points in
        worst = min(result.notebooks, key=lambda nb: nb.score / nb.possible if nb.possible else 1)
        print(f"  e.g. {course.feedback_dir(wrong, assignment) / (worst.name + '.html')}  ({plan[wrong]})")
    _excerpt_in_chinese(course, assignment, plan)
    _integrity(course, assignment)
    _report(course, assignment)


_EXCERPTS: set = set()


def _excerpt_in_chinese(course: Course, assignment: str, plan: dict[str, str]) -> None:
    """Once per demo: what a student who reads Chinese (languages.csv) is told about a mistake."""
    from gradekit.grading.diagnosis import notes
    from gradekit.i18n.catalogs import translator
    from gradekit.i18n.languages_csv import language_of
    from gradekit.i18n.text import View
    from gradekit.results import iter_results

    if _EXCERPTS:
        return
    for student, kind in plan.items():
        if not kind.startswith("mistake:") or language_of(course, student) != "zh":
            continue
        for result in iter_results(course, assignment, [student]):
            view = View("zh", result.translations, translator(course.root, assignment, "zh"))
            for nb in result.notebooks:
                cell = next((c for c in nb.cells if c.diagnosis), None)
                if cell is None:
                    continue
                failed = next(k for k in cell.checks if not k.passed)
                page = course.feedback_dir(student, assignment) / f"{nb.name}.html"
                print(f"\na student who reads Chinese, {student} ({kind}), is told on {page}:")
                for line in [*notes(cell, view), f"✘ {view(failed.name)}: {view(failed.message)}"]:
                    print(f"  {line}")
                _EXCERPTS.add(student)
                return


def _integrity(course: Course, assignment: str) -> None:
    from gradekit.integrity.detect import detect
    from gradekit.integrity.report import print_table, write_reports

    findings = detect(course, assignment)
    write_reports(course.root / "reports" / assignment, findings)
    print()
    print_table(findings)


def _report(course: Course, assignment: str) -> None:
    from gradekit.pages.report.build import write_report

    written = write_report(course, assignment)
    print(f"class report: {written.html}")


def _export(target: Path) -> None:
    export = subprocess.run(
        [str(Path(sys.executable).parent / "nbgrader"), "export"], cwd=target, capture_output=True, text=True
    )
    if export.returncode == 0 and (target / "grades.csv").exists():
        lines = (target / "grades.csv").read_text().splitlines()
        print(f"\nnbgrader export -> {target / 'grades.csv'} ({len(lines) - 1} rows); first rows:")
        for line in lines[:4]:
            print("  " + line)
    else:
        print(f"nbgrader export failed: {export.stderr.strip()[-300:]}")


def add_parser(sub) -> None:
    p = sub.add_parser(
        "demo", help="run a simulated class through the whole pipeline, on a copy of the course's assignments"
    )
    p.add_argument("--keep", metavar="DIR", help="build the demo course here and keep it")
    p.add_argument("--students", type=int, default=30)
    p.add_argument("--no-sandbox", action="store_true")
    p.set_defaults(run=run)


def run(args) -> int:
    return run_demo(Path(args.course), keep=args.keep, students=args.students, sandboxed=not args.no_sandbox)
