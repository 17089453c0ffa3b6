"""``gradekit demo``: a simulated class run through the whole pipeline, on every assignment.

The course is the one the command runs in (``--course``, the current directory by default:
``make demo`` runs it in this repository, whose course is the self-attention one; ``gradekit
quickstart DIR`` makes another). It is never touched: a temporary course directory gets a copy
of its config, sources, hidden graders and references, a roster in nbgrader's gradebook, and one
submission per student and assignment (:mod:`gradekit.qa.demo`: right answers, classic
mistakes, copiers, two languages, broken and hostile files).

Then, as an instructor would, for each assignment: ``generate``, ``autograde``,
``feedback``, ``integrity``, ``report``; then ``nbgrader export`` and one round
trip through nbgrader's exchange. Everything goes through the library, as the
command line's own commands do.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING

from gradekit.errors import UsageError

if TYPE_CHECKING:  # pragma: no cover - the command line imports every verb: the rest only when it runs
    from gradekit.course import Course


def run_demo(origin: Path, keep: str | None = None, students: int = 30, sandboxed: bool = True) -> int:
    from gradekit.qa.demo import build_course, course_files

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
    from gradekit.exchange.filesystem.steps import demo_round_trip

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
    from gradekit.gradebook.marks import marked_results
    from gradekit.grading.options import Options
    from gradekit.qa.demo import simulate
    from gradekit.release.generate import generate
    from gradekit.results import iter_results
    from gradekit.service.delivery import write_class_pages

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
    pages, _whole = write_class_pages(course, assignment, marked_results(course, assignment))
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
    from gradekit.authoring.languages import language_of
    from gradekit.grading.diagnosis import notes
    from gradekit.i18n.catalogs import translator
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
