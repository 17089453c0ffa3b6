"""Benchmark: `gradekit report` on a large graded class (target: 1,000 students in under 5 s).

What is measured (wall-clock, on this machine, in one run):

* a copy of this course (both notebooks) with N students in nbgrader's
  gradebook; the assignment registered by `gradekit generate` (one student's
  release, whose notebooks stand in for everyone's graded notebooks: the
  report reads each one, and parses those that carry notes);
* synthetic grading results, one results.json per student, drawn from a
  seeded generator over the assignment's real cells: an ability per student,
  checks that pass with it, failed checks that name one of a few mistakes,
  concept checks whose wrong options name a misconception, grading times,
  a few timeouts and kills, 2% not gradable, 2% with restored tampering;
  each result recorded in the gradebook as `gradekit autograde` records it,
  with a due date that some miss and manual grades for half of the free text;
* the timed part: the whole `gradekit report self_attention` command as a
  subprocess (interpreter start-up and imports included), best and median of
  three runs; then, in this process, the stages of ``write_report`` once
  (read, numbers, plots, page and files).

Then the page itself: its size, and its first contentful paint and load event opened from
file:// in Debian's chromium through Playwright (median of five fresh pages).

`--baseline REV` times the same class with gradekit at REV too (a git worktree of it, on
PYTHONPATH, the runs alternating with this checkout's), so that both are measured side by side
in one run: on a shared machine only such ratios mean much.

`--sizes 100,1000` (default). Results are printed and written to
bench/out/report.txt.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
ASSIGNMENT = "self_attention"
BIN = Path(sys.executable).parent
os.environ["PATH"] = f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"
os.environ.setdefault("GRADEKIT_SECRET", "bench-report-secret")
TARGET_SECONDS = 5.0


def say(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def build(root: Path, n: int, seed: int = 7) -> None:
    from nbgrader.api import Gradebook

    from gradekit.gradebook.connect import open_gradebook
    from gradekit.gradebook.write import record
    from gradekit.course import Course
    from gradekit.pages.report.data import layout as layout_of
    from gradekit.grading.diagnosis import diagnose
    from gradekit.results import CellResult, Check, NotebookResult, SubmissionResult

    root.mkdir(parents=True)
    for part in ("nbgrader_config.py", "source", "autograder", "solutions"):
        src = REPO / part
        (shutil.copytree(src, root / part, ignore=shutil.ignore_patterns("__pycache__")) if src.is_dir()
         else shutil.copy(src, root / part))
    course = Course.load(root)
    students = [f"s{i:04d}" for i in range(n)]
    say(f"{n} students: gradebook, generate, synthetic results")
    with Gradebook(course.db_url) as gb:
        for student in students:
            gb.add_student(student)
        gb.update_or_create_assignment(ASSIGNMENT, duedate="2026-11-25 12:00:00 UTC")
    subprocess.run([str(BIN / "gradekit"), "--course", str(root), "generate", ASSIGNMENT, "--student", students[0]],
                   check=True, capture_output=True)
    layout = layout_of(course, ASSIGNMENT)
    graded_text = {nb: (course.release_dir(students[0], ASSIGNMENT) / f"{nb}.ipynb").read_text()
                   for nb in {c.notebook for c in layout}}
    rng = np.random.default_rng(seed)
    catalogue = {c.grade_id: [f"{c.grade_id}: wrong route {k}" for k in range(3)] for c in layout}
    with open_gradebook(course) as gb:
        for i, student in enumerate(students):
            ability = rng.beta(5, 2)
            result = SubmissionResult(student, ASSIGNMENT, timestamp=f"2026-11-{20 + int(rng.integers(0, 8))} "
                                      f"10:{i % 60:02d}:00.000000 UTC",
                                      seconds=float(rng.lognormal(-3, 0.5)), student_seconds=0.02)
            broken = i % 50 == 17
            if broken:
                result.error = "self_attention.ipynb: not valid JSON (Expecting ',' at line 12) -- truncated?"
            for notebook in dict.fromkeys(c.notebook for c in layout):
                nb = NotebookResult(notebook)
                for cell in (c for c in layout if c.notebook == notebook):
                    if broken:
                        nb.cells.append(CellResult(cell.grade_id, cell.points, 0.0))
                        continue
                    if cell.manual:
                        blank = rng.random() < 0.05
                        nb.cells.append(CellResult(cell.grade_id, cell.points, None, manual=True, answered=not blank))
                        continue
                    checks = []
                    for k in range(6 if cell.choice else 5):
                        passed = rng.random() < ability
                        mistake = None if passed or rng.random() < 0.3 else str(rng.choice(catalogue[cell.grade_id]))
                        checks.append(Check(f"check {k}", passed, "" if passed else f"wrong -- {mistake or 'values'}",
                                            mistake=mistake, candidates=[mistake] if mistake else []))
                    if i % 97 == 5 and not cell.choice:
                        checks[0] = Check("check 0", False, "`f` did not finish: no answer within 10 s (endless loop?)")
                        result.seconds += 10.0
                    score = cell.points * sum(c.passed for c in checks) / len(checks)
                    cr = CellResult(cell.grade_id, cell.points, round(score, 6), checks)
                    diagnose(cr)
                    nb.cells.append(cr)
                result.notebooks.append(nb)
            folder = course.autograded_dir(student, ASSIGNMENT)
            folder.mkdir(parents=True)
            for notebook, text in graded_text.items():
                if i % 50 == 23:   # restored tampering: a note in the graded notebook's metadata
                    data = json.loads(text)
                    data["metadata"]["gradekit"] = {"notes": ["3 read-only cell(s) differ from your own notebook "
                                                              "(first: md_intro); the originals were restored"]}
                    text = json.dumps(data)
                (folder / f"{notebook}.ipynb").write_text(text)
            (folder / "results.json").write_text(json.dumps(result.to_dict()))
            record(gb, result, course)
            if i % 2 == 0 and not broken:   # half the free text graded by hand
                for cell in (c for c in layout if c.manual):
                    grade = gb.find_grade(cell.grade_id, cell.notebook, ASSIGNMENT, student)
                    grade.manual_score = float(rng.integers(0, int(cell.points) + 1))
                    grade.needs_manual_grade = False
                gb.db.commit()


def time_command(root: Path, runs: int = 3, code: Path | None = None) -> tuple[list[float], list[float]]:
    """Wall-clock and CPU seconds (user + system, of the command and its threads) of each run.

    On a shared machine the wall clock also counts the time other processes
    held the cores; the CPU time is what the command itself costs.
    """
    import resource

    walls, cpus = [], []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        env = dict(os.environ, PYTHONPATH=str(code)) if code else None
        subprocess.run([str(BIN / "python"), "-m", "gradekit", "--course", str(root), "report", ASSIGNMENT],
                       check=True, capture_output=True, env=env, cwd=root)
        walls.append(time.perf_counter() - started)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return walls, cpus


def stages(root: Path) -> dict[str, float]:
    from gradekit.course import Course
    from gradekit.pages.report import data as data_mod, export, html, plots, stats

    course = Course.load(root)
    out = {}
    t = time.perf_counter()
    data = data_mod.load(course, ASSIGNMENT)
    out["read"] = time.perf_counter() - t
    t = time.perf_counter()
    report = stats.build(data)
    out["numbers"] = time.perf_counter() - t
    t = time.perf_counter()
    figures = plots.all_plots(report)
    out["plots"] = time.perf_counter() - t
    t = time.perf_counter()
    columns = {key: title for key, (title, _) in stats.exercise_columns(data).items()}
    page = html.page(report, figures, columns)
    export.to_json(report), export.to_csv(report, columns)
    out["page and files"] = time.perf_counter() - t
    out["page KiB"] = len(page.encode()) / 1024
    return out


CHROMIUM = "/usr/bin/chromium-headless-shell"  # Debian's chromium as its headless shell, as the tests
FLAGS = ["--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--no-first-run", "--disable-quic", "--disable-default-apps", "--disable-extensions"]


# the first contentful paint's time; the headless shell may record it after the load event: waited for
FIRST_PAINT = """() => new Promise((done, fail) => {
    const seen = performance.getEntriesByName('first-contentful-paint');
    if (seen.length) return done(seen[0].startTime);
    new PerformanceObserver((list) => {
        const entry = list.getEntriesByName('first-contentful-paint')[0];
        if (entry) done(entry.startTime);
    }).observe({type: 'paint', buffered: true});
    setTimeout(() => fail(new Error('no first contentful paint within 10 s')), 10000);
})"""


def paint(page: Path, runs: int = 5) -> dict[str, float]:
    """The page's size, and the median first contentful paint and load event (ms) in chromium."""
    from playwright.sync_api import sync_playwright

    args = FLAGS + (["--no-sandbox"] if os.geteuid() == 0 else [])
    fcp, load = [], []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=args)
        for _ in range(runs):
            context = browser.new_context()
            tab = context.new_page()
            tab.goto(page.as_uri(), wait_until="load")
            fcp.append(tab.evaluate(FIRST_PAINT))
            load.append(tab.evaluate("performance.getEntriesByType('navigation')[0].loadEventEnd"))
            context.close()
        browser.close()
    return {"KiB": page.stat().st_size / 1024, "first paint ms": statistics.median(fcp),
            "load ms": statistics.median(load)}


def baseline_code(rev: str, where: Path) -> Path:
    """gradekit at ``rev``, checked out (a detached git worktree) under ``where``."""
    subprocess.run(["git", "-C", str(REPO), "worktree", "add", "--detach", "-f", str(where), rev], check=True,
                   capture_output=True)
    return where


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100,1000")
    parser.add_argument("--keep", metavar="DIR", help="build the classes in DIR and keep them (reused when there)")
    parser.add_argument("--baseline", metavar="REV", help="time gradekit at this git revision too, side by side")
    parser.add_argument("--no-paint", action="store_true", help="skip the browser's first paint")
    args = parser.parse_args()
    lines = [f"gradekit report, {time.strftime('%Y-%m-%d %H:%M')}, {os.cpu_count()} cores, "
             "load average %.2f %.2f %.2f" % os.getloadavg()]
    with tempfile.TemporaryDirectory(prefix="gradekit-bench-report-") as tmp:
        sides: dict[str, Path | None] = {"this checkout": None}
        if args.baseline:
            sides[f"at {args.baseline}"] = baseline_code(args.baseline, Path(tmp) / "baseline")
        for n in (int(s) for s in args.sizes.split(",")):
            root = Path(args.keep or tmp) / f"class{n}"
            if not (root / "autograded").is_dir():
                shutil.rmtree(root, ignore_errors=True)
                started = time.perf_counter()
                build(root, n)
                say(f"built in {time.perf_counter() - started:.0f} s")
            say("timing `gradekit report`" + (" side by side" if len(sides) > 1 else ""))
            timings: dict[str, tuple[list[float], list[float]]] = {name: ([], []) for name in sides}
            pages: dict[str, Path] = {}
            for _ in range(3):      # alternating, so that both sides see the same load
                for name, code in sides.items():
                    walls, cpus = time_command(root, runs=1, code=code)
                    timings[name][0].extend(walls)
                    timings[name][1].extend(cpus)
                    pages[name] = Path(tmp) / f"page-{n}-{list(sides).index(name)}.html"
                    shutil.copy(root / "reports" / ASSIGNMENT / "index.html", pages[name])
            parts = stages(root)
            for name, (times, cpus) in timings.items():
                verdict = "under" if min(times) < TARGET_SECONDS else "OVER"
                shown = {} if args.no_paint else paint(pages[name])
                lines.append(f"{n:>5} students, {name}: whole command best {min(times):.2f} s, median "
                             f"{statistics.median(times):.2f} s ({verdict} the {TARGET_SECONDS:g} s target), CPU "
                             f"{min(cpus):.2f} s; load average {os.getloadavg()[0]:.1f}; "
                             + ", ".join(f"page {v:.0f} KiB" if k == "KiB" else f"{k} {v:.0f}"
                                         for k, v in shown.items()))
                say(lines[-1])
            lines.append(f"{n:>5} students, this checkout, in-process: "
                         + ", ".join(f"{k} {v:.2f} s" if not k.endswith("KiB") else f"page {v:.0f} KiB"
                                     for k, v in parts.items()))
            say(lines[-1])
        if args.baseline:
            subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force", str(Path(tmp) / "baseline")],
                           capture_output=True)
    out = HERE / "out"
    out.mkdir(exist_ok=True)
    (out / "report.txt").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
