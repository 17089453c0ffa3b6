"""Benchmark: `gradekit autograde` against `nbgrader autograde`, same six exercises, in one run.

What is measured (on this machine, in one run, each figure as wall-clock time
and as CPU time -- user + system -- of the command's whole process tree; see
bench/measure.py):

* the whole command on a class of N (default 30): ``gradekit autograde`` on
  a fresh copy of this course (nbgrader_config.py, source/, autograder/,
  solutions/; the quiz left out) with N students, generated and then each
  given a submission built from their own answer key, against ``nbgrader
  autograde`` on a plain nbgrader rendition of the same assignment
  (bench/nbgrader_rendition.py: hidden tests in cells, one Jupyter kernel per
  submission, one after the other -- how nbgrader works). Both get the same
  mix: mostly the answer key, every tenth a wrong function, every tenth the
  untouched release. Start-up, imports, workers, sandboxes, pytest, gradebook
  writes included. Target (issue 15): gradekit at least 20x faster.
* where gradekit's start-up goes on that run: the timeline its processes
  write when $GRADEKIT_TIMELINE is set (gradekit/timeline.py), from the
  command's start to the first result; and what the fork server's imports
  cost by package (``python -X importtime``).
* nothing changed: ``gradekit autograde`` again on an unchanged class of 150
  (the median and the fastest of 5 runs). Target: under 0.3 s. (nbgrader's own
  rerun of its N, which skips what it graded before, is shown for reference.)
* ``gradekit generate`` for 10 students on a fresh course (median and fastest
  of 3). Target: under 0.5 s.
* the steady state, what one more submission costs with start-up left out:
  (T(big) - T(small)) / (big - small), for gradekit from its 150 (big) and
  10 of them (small), for nbgrader from its N and 10. It must not get worse.
* the floor: the mean of "student_seconds" in results.json, the time the
  student's cells and the graders' calls into them take inside the sandbox.

Python caches compiled modules (``__pycache__``) unless PYTHONDONTWRITEBYTECODE
is set; this project's build machine sets it for every process, an
instructor's does not. The timed commands run without it, so that both tools
start as they start for a user: after a warm-up run that writes the caches --
gradekit's modules, and pytest's rewritten graders, which every course of the
bench starts with, as a course that has been graded before does (a first run
after editing the graders compiles them again: about 0.2 s more).

``--baseline DIR`` times another gradekit source tree (e.g. a checkout of an
older commit) the same way, side by side: before and after, in one run.
``--sizes 10,100,1000`` times gradekit alone at several class sizes, plus
``gradekit generate`` and the peak RSS of the coordinating process.
Results are printed and written to bench/out/latest.txt.
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
from collections import Counter
from pathlib import Path

import nbformat

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
import measure  # noqa: E402
import nbgrader_rendition as nbr  # noqa: E402

ASSIGNMENT = "self_attention"
BIN = Path(sys.executable).parent
# the venv's scripts first: nbgrader's Gradebook runs `alembic` from PATH to set up a new database
os.environ["PATH"] = f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"} | {"PYTHONWARNINGS": "ignore"}
UNCHANGED_CLASS, UNCHANGED_RUNS, GENERATE_CLASS, GENERATE_RUNS, SMALL = 150, 5, 10, 3, 10
TARGETS = {"ratio": 20.0, "unchanged": 0.3, "generate": 0.5}


def say(message: str) -> None:
    """Progress, on stderr: not part of the results."""
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def load() -> str:
    return "load average %.2f %.2f %.2f" % os.getloadavg()


def student_ids(n: int) -> list[str]:
    return [f"s{i:04d}" for i in range(n)]


def kind_of(i: int) -> str:
    """The submission mix, the same for both tools: 8 in 10 correct, 1 wrong, 1 empty."""
    if i % 10 == 3:
        return "wrong-softmax" if (i // 10) % 2 == 0 else "wrong-qkv"
    return "empty" if i % 10 == 7 else "answer"


class Gradekit:
    """One gradekit source tree: this working tree (the venv's editable install), or a baseline.
    Each grades with its own tree's course (graders, reference, templates): a baseline's graders
    may not run on this tree's gradekit, nor this tree's on the baseline's."""

    def __init__(self, name: str, source: Path | None = None):
        self.name, self.source = name, source
        self.tree = source or REPO
        self.env = dict(ENV)
        if source is not None:
            self.env["PYTHONPATH"] = str(source)

    def command(self, root: Path, *args: str) -> list[str]:
        # `python -m gradekit`, not the entry point script: a baseline tree may keep main elsewhere
        return [str(BIN / "python"), "-m", "gradekit", "--course", str(root), *args]

    def timed(self, root: Path, log: str, *args: str, env: dict | None = None) -> dict:
        return measure.timed(self.command(root, *args), root, root / log, env or self.env)


# -- courses -----------------------------------------------------------------------------------

WARM_GRADERS: dict[Path, Path] = {}   # by source tree: its warm-up course's graders, with pytest's cache of them


def empty_course(root: Path, n: int, tree: Path = REPO) -> None:
    """A copy of the course of ``tree`` (the six exercises, no quiz) with n students in its
    gradebook; the graders' __pycache__ (pytest's rewritten modules) as the warm-up run left
    it, as in a course that has been graded before."""
    from nbgrader.api import Gradebook

    from gradekit.course import Course

    root.mkdir(parents=True)
    shutil.copy(tree / "nbgrader_config.py", root)
    for folder in ("source", "autograder", "solutions"):
        shutil.copytree(tree / folder, root / folder,
                        ignore=shutil.ignore_patterns("__pycache__", "quiz.ipynb", "params_quiz.py"))
    settings = root / "source" / ASSIGNMENT / "assignment.toml"
    if settings.exists():  # its settings name the quiz's cells (choice_cells, hidden_until_due): none here
        settings.write_text("")
    warm = WARM_GRADERS.get(tree)
    if warm is not None and (warm / "__pycache__").is_dir():
        shutil.copytree(warm / "__pycache__", root / "autograder" / ASSIGNMENT / "__pycache__")
    with Gradebook(Course.load(root).db_url) as gb:
        for student in student_ids(n):
            gb.update_or_create_student(student)


def submit_all(gk: Gradekit, root: Path, n: int) -> dict:
    """``gradekit generate``, then every student's submission from their own answer key."""
    from gradekit.course import Course
    from gradekit.release.generate import write_answer_key

    generate = gk.timed(root, "generate.log", "generate", ASSIGNMENT)
    course = Course.load(root)
    with tempfile.TemporaryDirectory() as tmp:
        for i, student in enumerate(student_ids(n)):
            write_answer_key(course, ASSIGNMENT, student, Path(tmp) / student)
            key = nbformat.read(Path(tmp) / student / f"{nbr.NOTEBOOK}.ipynb", as_version=4)
            release = nbformat.read(course.release_dir(student, ASSIGNMENT) / f"{nbr.NOTEBOOK}.ipynb", as_version=4)
            out = course.submitted_dir(student, ASSIGNMENT)
            out.mkdir(parents=True)
            nbformat.write(nbr.make_submission(release, key, kind_of(i)), out / f"{nbr.NOTEBOOK}.ipynb")
            (out / "timestamp.txt").write_text("2025-01-01 12:00:00.000000 UTC")   # as `nbgrader submit` writes
    return generate


def gradekit_course(gk: Gradekit, root: Path, n: int) -> dict:
    say(f"{gk.name}: a course of {n}: generate, submissions")
    empty_course(root, n, gk.tree)
    return submit_all(gk, root, n)


def autograde(gk: Gradekit, root: Path, students: list[str], *args: str, timeline: bool = False) -> dict:
    """``gradekit autograde`` (these students, or all with no ``--student``), with the mean
    in-worker and floor times of the results it wrote."""
    env = dict(gk.env)
    if timeline:
        env["GRADEKIT_TIMELINE"] = str(root / "timeline.txt")
        Path(env["GRADEKIT_TIMELINE"]).unlink(missing_ok=True)
    run = gk.timed(root, "autograde.log", "autograde", ASSIGNMENT, *args, env=env)
    inner, floor = [], []
    for student in students:
        path = root / "autograded" / student / ASSIGNMENT / "results.json"
        if path.is_file():
            data = json.loads(path.read_text())
            inner.append(data.get("seconds", 0.0))
            floor.append(data.get("student_seconds", 0.0))
    run["in_worker"] = sum(inner) / len(inner) if inner else None
    run["floor"] = sum(floor) / len(floor) if floor else None
    run["graded"] = len(inner)
    if timeline:
        from gradekit import timeline as tl

        run["marks"] = tl.read(env["GRADEKIT_TIMELINE"])
    return run


# -- the nbgrader course -------------------------------------------------------------------------

def ensure_kernel() -> str:
    """The python3 kernelspec nbgrader will use; installed into the venv only if missing."""
    listing = subprocess.run([str(BIN / "jupyter"), "kernelspec", "list", "--json"], env=ENV,
                             capture_output=True, text=True, check=True)
    specs = json.loads(listing.stdout)["kernelspecs"]
    if "python3" not in specs:
        subprocess.run([sys.executable, "-m", "ipykernel", "install", "--sys-prefix"], env=ENV, check=True,
                       capture_output=True)
        return "python3 kernelspec installed into the venv (--sys-prefix)"
    return f"python3 kernelspec: {specs['python3']['resource_dir']}"


def nbgrader_course(root: Path, gk_root: Path, n: int) -> None:
    from gradekit.course import Course
    from gradekit.release.generate import write_answer_key
    from gradekit.authoring.template import AssignmentSource
    from gradekit.authoring.variant import build_variant

    course = Course.load(gk_root)
    first = student_ids(1)[0]
    params = build_variant(course, AssignmentSource.load(course, ASSIGNMENT), first).params
    with tempfile.TemporaryDirectory() as tmp:
        write_answer_key(course, ASSIGNMENT, first, Path(tmp))
        key = nbformat.read(Path(tmp) / f"{nbr.NOTEBOOK}.ipynb", as_version=4)
    say(f"nbgrader: a course of {n}: generate_assignment, submissions")
    nbr.build_course(root, student_ids(n), [kind_of(i) for i in range(n)], key, params, ENV)


def nbgrader_autograde(root: Path, log: str, *args: str) -> dict:
    return measure.timed([str(BIN / "nbgrader"), "autograde", ASSIGNMENT, *args], root, root / log, ENV)


# -- reports -------------------------------------------------------------------------------------

def table(header: list[str], rows: list[list], out: list[str]) -> None:
    cells = [[str(c) for c in header]] + [[str(c) for c in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    for k, row in enumerate(cells):
        out.append("  ".join(c.rjust(w) if j else c.ljust(w) for j, (c, w) in enumerate(zip(row, widths))))
        if k == 0:
            out.append("  ".join("-" * w for w in widths))


def mb(value) -> str:
    return f"{value / 2**20:.0f} MB" if value else "n/a"


def fig(run: dict | None) -> str:
    """``wall s (cpu s)`` of one timed run."""
    return "-" if run is None else f"{run['seconds']:.2f} s (cpu {run['cpu']:.2f})"


def repeated(runs: list[dict]) -> dict:
    """The median run's wall and CPU, and the fastest, of several runs of one command."""
    walls, cpus = [r["seconds"] for r in runs], [r["cpu"] for r in runs]
    return {"seconds": statistics.median(walls), "cpu": statistics.median(cpus),
            "fastest": min(walls), "fastest_cpu": min(cpus), "runs": len(runs)}


def fig_repeated(run: dict) -> str:
    return (f"{run['seconds']:.2f} s (cpu {run['cpu']:.2f}); fastest {run['fastest']:.2f} s "
            f"(cpu {run['fastest_cpu']:.2f}), of {run['runs']}")


def verdict(ok: bool) -> str:
    return "met" if ok else "NOT met"


def score_check(n: int, tools: dict[str, dict], out: list[str]) -> None:
    """Mean score per kind of submission, per tool: both should grade the mix alike."""
    rows = []
    for kind in sorted({kind_of(i) for i in range(n)}):
        row = [kind, sum(kind_of(i) == kind for i in range(n))]
        for scores in tools.values():
            got = [scores.get(s) for i, s in enumerate(student_ids(n)) if kind_of(i) == kind]
            got = [g for g in got if g is not None]
            row.append(f"{sum(got) / len(got):.1f}/20" if got else "n/a")
        rows.append(row)
    out.append("\nmean score per kind of submission (a sanity check that both grade the same work alike):")
    table(["submission", "count", *tools], rows, out)


def start_up(name: str, run: dict, out: list[str]) -> None:
    rows = measure.breakdown(run.get("marks") or [], run["started"], run["seconds"])
    if len(rows) <= 1:
        out.append(f"\n{name}: no timeline (a gradekit without gradekit/timeline.py)")
        return
    out.append(f"\nwhere {name}'s whole command went (seconds since it started; CPU: of the process "
               "that got there, so far):")
    table(["moment", "s", "process cpu s"], [[label, f"{at:.3f}", "" if cpu is None else f"{cpu:.3f}"]
                                            for label, at, cpu in rows], out)


# -- the comparison ------------------------------------------------------------------------------

def compare(args, work: Path, out: list[str]) -> None:
    n = args.n
    tools = [Gradekit("gradekit")] + ([Gradekit("baseline", Path(args.baseline).resolve())] if args.baseline else [])
    whole, again, scores = {}, {}, {}
    for gk in tools:   # one warm-up command writes the __pycache__ files a user's machine would have
        warm = work / f"{gk.name}-warm"
        empty_course(warm, 2, gk.tree)
        submit_all(gk, warm, 2)
        autograde(gk, warm, student_ids(2), "--jobs", "2")
        WARM_GRADERS[gk.tree] = warm / "autograder" / ASSIGNMENT
    for gk in tools:
        root = work / f"{gk.name}-{n}"
        gradekit_course(gk, root, n)
        say(f"{gk.name}: autograde on {n}")
        whole[gk.name] = autograde(gk, root, student_ids(n), timeline=True)
        again[gk.name] = autograde(gk, root, student_ids(n))
        scores[gk.name] = nbr.scores(root, student_ids(n))
        if whole[gk.name]["graded"] != n:
            out.append(f"WARNING: {gk.name} wrote results.json for {whole[gk.name]['graded']} of {n} students")
    nb = nb_again = nb_small = None
    if not args.skip_nbgrader:
        out.append(ensure_kernel())
        nb_root = work / "nbgrader"
        nbgrader_course(nb_root, work / f"gradekit-{n}", n)
        say(f"nbgrader: autograde on {n}")
        nb = nbgrader_autograde(nb_root, "autograde.log")
        scores["nbgrader"] = nbr.scores(nb_root, student_ids(n))
        nb_again = nbgrader_autograde(nb_root, "autograde-again.log")
        shutil.rmtree(nb_root / "autograded", ignore_errors=True)
        say(f"nbgrader: autograde on {SMALL}")
        nb_small = nbgrader_autograde(nb_root, "autograde-small.log",
                                      f"--CourseDirectory.student_id={student_ids(1)[0][:-1]}?")
    generate, unchanged, steady = {}, {}, {}
    for gk in tools:
        runs = []
        for k in range(GENERATE_RUNS):
            root = work / f"{gk.name}-generate-{k}"
            empty_course(root, GENERATE_CLASS, gk.tree)
            runs.append(gk.timed(root, "generate.log", "generate", ASSIGNMENT))
        generate[gk.name] = repeated(runs)
        root = work / f"{gk.name}-{UNCHANGED_CLASS}"
        gradekit_course(gk, root, UNCHANGED_CLASS)
        say(f"{gk.name}: autograde on {SMALL}, then on {UNCHANGED_CLASS}, then {UNCHANGED_RUNS} times unchanged")
        small = autograde(gk, root, student_ids(SMALL), *[a for s in student_ids(SMALL) for a in ("--student", s)])
        big = autograde(gk, root, student_ids(UNCHANGED_CLASS), "--force")
        steady[gk.name] = {"small": small, "big": big,
                           "marginal": (big["seconds"] - small["seconds"]) / (UNCHANGED_CLASS - SMALL),
                           "marginal_cpu": (big["cpu"] - small["cpu"]) / (UNCHANGED_CLASS - SMALL)}
        unchanged[gk.name] = repeated([autograde(gk, root, []) for _ in range(UNCHANGED_RUNS)])
    report(args, tools, whole, again, nb, nb_again, nb_small, generate, unchanged, steady, out)
    score_check(n, scores, out)
    for gk in tools:
        start_up(gk.name, whole[gk.name], out)
        if gk.name == "gradekit" or gk.source is not None:
            code = "gradekit.runners.warm" if (gk.source or REPO).joinpath("gradekit/runners/warm.py").exists() \
                else "gradekit.runners.local"
            costs = measure.import_costs(str(BIN / "python"), code, gk.env)
            out.append(f"{gk.name}: what the grading processes' imports ({code}) cost, by package "
                       f"(python -X importtime, wall): " + ", ".join(f"{p} {s:.3f} s" for p, s in costs))


def report(args, tools, whole, again, nb, nb_again, nb_small, generate, unchanged, steady, out) -> None:
    n, main = args.n, whole["gradekit"]
    out.append("")
    out.append("The targets of issue 15 (wall time, and CPU time of the whole process tree):")
    rows = []
    ratio = nb["seconds"] / main["seconds"] if nb else None
    rows.append([f"autograde, {n} submissions, whole command", fig(main), fig(nb),
                 f"{ratio:.1f}x" if ratio else "-",
                 f">= {TARGETS['ratio']:g}x: {verdict(ratio >= TARGETS['ratio'])}" if ratio else ""])
    rows.append([f"autograde again, nothing changed, {UNCHANGED_CLASS} submissions", fig_repeated(unchanged["gradekit"]),
                 "-", "-", f"< {TARGETS['unchanged']} s: {verdict(unchanged['gradekit']['seconds'] < TARGETS['unchanged'])}"])
    rows.append([f"generate, {GENERATE_CLASS} students", fig_repeated(generate["gradekit"]), "-", "-",
                 f"< {TARGETS['generate']} s: {verdict(generate['gradekit']['seconds'] < TARGETS['generate'])}"])
    mine = steady["gradekit"]
    nb_marginal = (nb["seconds"] - nb_small["seconds"]) / (n - SMALL) if nb else None
    rows.append(["steady state: one more submission", f"{mine['marginal']:.3f} s (cpu {mine['marginal_cpu']:.3f})",
                 f"{nb_marginal:.3f} s" if nb_marginal else "-",
                 f"{nb_marginal / mine['marginal']:.0f}x" if nb_marginal else "-", "not worse than before"])
    rows.append([f"for reference: autograde again, nothing changed, {n} submissions", fig(again["gradekit"]),
                 fig(nb_again), "-", ""])
    table(["", "gradekit", "nbgrader", "ratio", "target"], rows, out)
    floor = steady["gradekit"]["big"]["floor"]
    cores = len(os.sched_getaffinity(0))
    if floor:
        out.append(f"the floor (the student's code and the graders' calls into it, inside the sandbox): "
                   f"{floor:.4f} s per submission; gradekit's steady state is {mine['marginal'] * cores:.4f} "
                   f"core-seconds ({cores} cores x {mine['marginal']:.4f} s), {mine['marginal'] * cores / floor:.1f}x it")
    out.append(f"steady state from: gradekit T({SMALL}) {fig(mine['small'])}, T({UNCHANGED_CLASS}) {fig(mine['big'])}"
               + (f"; nbgrader T({SMALL}) {fig(nb_small)}, T({n}) {fig(nb)}" if nb else ""))
    if main["in_worker"] is not None:
        out.append(f"gradekit in-worker time per submission on the {n} (results.json 'seconds'): {main['in_worker']:.3f} s; "
                   f"peak RSS: coordinator {mb(main['rss_self'])}, whole tree {mb(main['rss_tree'])}")
    if len(tools) > 1:
        out.append("\nbefore and after, in this run (wall, and CPU of the whole process tree; the floor and "
                   "the steady state in core-seconds as above):")
        rows = []
        for gk in tools:
            mark, floor_of = steady[gk.name], steady[gk.name]["big"]["floor"]
            rows.append([gk.name + (f" ({gk.source})" if gk.source else ""), fig(whole[gk.name]),
                         fig_repeated(unchanged[gk.name]), fig_repeated(generate[gk.name]),
                         f"{mark['marginal']:.3f} s (cpu {mark['marginal_cpu']:.3f})",
                         f"{floor_of:.4f} s" if floor_of else "-",
                         f"{mark['marginal'] * cores:.4f}", f"{mark['marginal'] * cores / floor_of:.2f}x" if floor_of else "-"])
        table(["", f"autograde {n}", f"unchanged {UNCHANGED_CLASS}", f"generate {GENERATE_CLASS}", "steady state",
               "floor", "core-s", "x floor"], rows, out)


def sizes(args, work: Path, out: list[str]) -> None:
    gk, rows = Gradekit("gradekit"), []
    for n in args.sizes:
        root = work / f"gradekit-{n}"
        gen = gradekit_course(gk, root, n)
        say(f"gradekit: autograde on {n}")
        run = autograde(gk, root, student_ids(n))
        rows.append([n, fig(gen), fig(run), f"{run['seconds'] / n:.3f}",
                     f"{run['in_worker']:.3f}" if run["in_worker"] is not None else "n/a",
                     mb(run["rss_self"]), mb(run["rss_tree"])])
        say(f"{n} students: generate {gen['seconds']:.1f} s, autograde {run['seconds']:.1f} s, {load()}")
        shutil.rmtree(root / "autograded", ignore_errors=True)
    out.append("gradekit alone, one fresh course per class size (wall, and CPU of the whole process tree)")
    table(["N", "generate", "autograde", "s/submission", "in-worker s/sub", "coordinator peak RSS",
           "tree peak RSS"], rows, out)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=30, help="submissions per tool (default 30)")
    parser.add_argument("--skip-nbgrader", action="store_true", help="time gradekit only")
    parser.add_argument("--sizes", type=lambda s: [int(x) for x in s.split(",") if x],
                        help="gradekit alone at these class sizes, e.g. 10,100,1000")
    parser.add_argument("--baseline", metavar="DIR", help="also time the gradekit source tree in DIR (before/after)")
    parser.add_argument("--keep", metavar="DIR", help="build the courses here and keep them")
    args = parser.parse_args(argv)
    if not (BIN / "gradekit").exists() or not (BIN / "nbgrader").exists():
        print(f"bench: run with the venv's python (.venv/bin/python); no gradekit/nbgrader in {BIN}", file=sys.stderr)
        return 2
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:
        cores = os.cpu_count()
    out = [f"gradekit benchmark, {time.strftime('%Y-%m-%d %H:%M:%S')}, git {git_head()}",
           f"machine: {cores} core(s) usable (os.cpu_count() = {os.cpu_count()}), python {sys.version.split()[0]}; "
           f"CPU times {'include' if measure.SUBREAPER else 'may miss'} every process a command starts",
           f"submission mix: {mix(args.n if not args.sizes else max(args.sizes))}",
           f"at start: {load()} (other work on the machine stretches wall times; CPU times much less)", ""]
    work = Path(args.keep).resolve() if args.keep else Path(tempfile.mkdtemp(prefix="gradekit-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    print("\n".join(out), flush=True)
    head = len(out)
    try:
        (sizes if args.sizes else compare)(args, work, out)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    out.append(f"\nat the end: {load()}")
    print("\n".join(out[head:]))
    (HERE / "out").mkdir(exist_ok=True)
    text = "\n".join(out) + "\n"
    (HERE / "out" / "latest.txt").write_text(text)
    # the last run of each mode, so a --sizes run does not hide the comparison
    (HERE / "out" / f"latest-{'sizes' if args.sizes else 'compare'}.txt").write_text(text)
    return 0


def mix(n: int) -> str:
    counts = Counter(kind_of(i) for i in range(n))
    return ", ".join(f"{v} {k}" for k, v in sorted(counts.items())) + f" (of {n})"


def git_head() -> str:
    """The commit, and whether what the bench copies (the working tree) differs from it."""
    git = lambda *a: subprocess.run(["git", *a], cwd=REPO, capture_output=True, text=True).stdout.strip()
    dirty = git("status", "--porcelain", "--", "gradekit", "source", "autograder", "solutions")
    return (git("rev-parse", "--short", "HEAD") or "?") + (" + uncommitted changes" if dirty else "")


if __name__ == "__main__":
    sys.exit(main())
