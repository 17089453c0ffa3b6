"""Benchmark: `gradekit autograde` against `nbgrader autograde`, same six exercises.

What is measured (wall-clock, on this machine, in one run):

* gradekit: the package installed in the venv (editable: this working tree)
  on a temporary copy of this course (nbgrader_config.py, source/,
  autograder/, solutions/) with N students; `gradekit generate`, then each
  student's submission is built from their own answer key; the timed part is
  the whole `gradekit autograde self_attention` command as a subprocess,
  start-up, worker pool, sandboxes, hidden pytest graders and gradebook
  writes included.
* nbgrader: a plain nbgrader course built from one student's answer key with
  the hidden graders translated into `### BEGIN HIDDEN TESTS` regions (see
  bench/nbgrader_rendition.py); the timed part is the whole
  `nbgrader autograde self_attention` command (one Jupyter kernel per
  submission, one submission at a time: that is how nbgrader works).
* Both get the same mix of submissions: mostly the answer key, every tenth
  one with a wrong function, every tenth one the untouched release notebook.
* gradekit's in-worker time: the mean of the "seconds" field of
  autograded/<student>/self_attention/results.json, the time Pipeline.grade()
  takes for one student inside a worker (child sandbox, student code, graders).
* the floor: the mean of "student_seconds" in the same files, the time the
  student's cells and the graders' calls into them take as the sandboxed
  worker measures it: what grading could not go below.
* steady-state throughput (``--throughput N``, default 300): both tools run
  a small class (10) and a large one; (T(large) - T(small)) / (large - small)
  is the cost of one more submission with the start-up left out.

`--sizes 10,100,1000` times gradekit alone at several class sizes, plus
`gradekit generate` and the peak RSS of the coordinating process.
Results are printed and written to bench/out/latest.txt.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

import nbformat
import psutil

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
import nbgrader_rendition as nbr  # noqa: E402

ASSIGNMENT = "self_attention"
BIN = Path(sys.executable).parent
# the venv's scripts first: nbgrader's Gradebook runs `alembic` from PATH to set up a new database
os.environ["PATH"] = f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"
ENV = {**os.environ, "PYTHONWARNINGS": "ignore"}


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


# -- running and timing a command --------------------------------------------------------------

def timed(cmd: list[str], cwd: Path, log: Path) -> dict:
    """Run cmd to completion: wall seconds, and the peak RSS of the process itself and of its
    whole tree (sampled every 0.1 s with psutil, which comes with dask.distributed)."""
    peak = {"self": 0, "tree": 0}
    done = threading.Event()

    def watch(pid: int) -> None:
        try:
            me = psutil.Process(pid)
            while not done.is_set():
                rss = me.memory_info().rss
                tree = rss + sum(_rss(child) for child in me.children(recursive=True))
                peak["self"], peak["tree"] = max(peak["self"], rss), max(peak["tree"], tree)
                done.wait(0.1)
        except psutil.Error:  # the process has ended
            pass

    with open(log, "w") as out:
        started = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=cwd, env=ENV, stdout=out, stderr=subprocess.STDOUT)
        watcher = threading.Thread(target=watch, args=(proc.pid,), daemon=True)
        watcher.start()
        rc = proc.wait()
        seconds = time.perf_counter() - started
        done.set()
        watcher.join()
    if rc != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited with {rc} (log: {log}):\n{log.read_text()[-3000:]}")
    return {"seconds": seconds, "rss_self": peak["self"] or None, "rss_tree": peak["tree"] or None}


def _rss(process) -> int:
    try:
        return process.memory_info().rss
    except psutil.Error:
        return 0


# -- the gradekit course -------------------------------------------------------------------------

def gradekit_course(root: Path, n: int) -> dict:
    """A copy of this course with n students and their submissions; returns the generate timing."""
    from nbgrader.api import Gradebook

    from gradekit.course import Course
    from gradekit.release import answer_key

    root.mkdir(parents=True)
    shutil.copy(REPO / "nbgrader_config.py", root)
    # the six exercises only, as in the nbgrader rendition: the thought-question quiz stays out
    for folder in ("source", "autograder", "solutions"):
        shutil.copytree(REPO / folder, root / folder,
                        ignore=shutil.ignore_patterns("__pycache__", "quiz.ipynb", "params_quiz.py"))
    course = Course.load(root)
    students = student_ids(n)
    say(f"gradekit course with {n} students: generate, submissions")
    with Gradebook(course.db_url) as gb:
        for student in students:
            gb.update_or_create_student(student)
    generate = timed([str(BIN / "gradekit"), "--course", str(root), "generate", ASSIGNMENT], root,
                     root / "generate.log")
    with tempfile.TemporaryDirectory() as tmp:
        for i, student in enumerate(students):
            answer_key(course, ASSIGNMENT, student, Path(tmp) / student)
            key = nbformat.read(Path(tmp) / student / f"{nbr.NOTEBOOK}.ipynb", as_version=4)
            release = nbformat.read(course.release_dir(student, ASSIGNMENT) / f"{nbr.NOTEBOOK}.ipynb", as_version=4)
            out = course.submitted_dir(student, ASSIGNMENT)
            out.mkdir(parents=True)
            nbformat.write(nbr.make_submission(release, key, kind_of(i)), out / f"{nbr.NOTEBOOK}.ipynb")
    return generate


def gradekit_autograde(root: Path, n: int, jobs: int, only: list[str] | None = None) -> dict:
    """Time `gradekit autograde` (all students, or ``only`` these) with --force, as a subprocess."""
    cmd = [str(BIN / "gradekit"), "--course", str(root), "autograde", ASSIGNMENT, "--force"]
    if jobs:
        cmd += ["--jobs", str(jobs)]
    for student in only or []:
        cmd += ["--student", student]
    say(f"timing gradekit autograde on {n} submissions")
    run = timed(cmd, root, root / "autograde.log")
    inner, floor = [], []
    for student in only or student_ids(n):
        path = root / "autograded" / student / ASSIGNMENT / "results.json"
        if path.is_file():
            data = json.loads(path.read_text())
            inner.append(data.get("seconds", 0.0))
            floor.append(data.get("student_seconds", 0.0))
    run["in_worker"] = sum(inner) / len(inner) if inner else None
    run["floor"] = sum(floor) / len(floor) if floor else None
    run["graded"] = len(inner)
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


def nbgrader_run(root: Path, gk_root: Path, n: int) -> dict:
    from gradekit.course import Course
    from gradekit.release import answer_key
    from gradekit.template import AssignmentSource
    from gradekit.variant import build_variant

    course = Course.load(gk_root)
    first = student_ids(1)[0]
    params = build_variant(course, AssignmentSource.load(course, ASSIGNMENT), first).params
    with tempfile.TemporaryDirectory() as tmp:
        answer_key(course, ASSIGNMENT, first, Path(tmp))
        key = nbformat.read(Path(tmp) / f"{nbr.NOTEBOOK}.ipynb", as_version=4)
    students = student_ids(n)
    say(f"nbgrader course with {n} students: generate_assignment, submissions")
    nbr.build_course(root, students, [kind_of(i) for i in range(n)], key, params, ENV)
    say(f"timing nbgrader autograde on {n} submissions")
    run = timed([str(BIN / "nbgrader"), "autograde", ASSIGNMENT], root, root / "autograde.log")
    run["scores"] = nbr.scores(root, students)
    return run


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


def score_check(n: int, tools: dict[str, dict], out: list[str]) -> None:
    """Mean score per kind of submission, per tool: both should grade the mix alike."""
    kinds = sorted({kind_of(i) for i in range(n)})
    rows = []
    for kind in kinds:
        row = [kind, sum(kind_of(i) == kind for i in range(n))]
        for scores in tools.values():
            got = [scores.get(s) for i, s in enumerate(student_ids(n)) if kind_of(i) == kind]
            got = [g for g in got if g is not None]
            row.append(f"{sum(got) / len(got):.1f}/20" if got else "n/a")
        rows.append(row)
    out.append("\nmean score per kind of submission (a sanity check that both grade the same work alike):")
    table(["submission", "count", *tools], rows, out)


def compare(args, work: Path, out: list[str]) -> None:
    n = args.n
    gk_root = work / "gradekit-course"
    gen = gradekit_course(gk_root, n)
    out.append(f"gradekit generate, {n} students: {gen['seconds']:.2f} s")
    gk = gradekit_autograde(gk_root, n, args.jobs)
    if gk["graded"] != n:
        out.append(f"WARNING: gradekit wrote results.json for {gk['graded']} of {n} students")
    gk_scores = nbr.scores(gk_root, student_ids(n))
    rows = [["gradekit autograde" + (f" --jobs {args.jobs}" if args.jobs else ""), n,
             f"{gk['seconds']:.2f}", f"{gk['seconds'] / n:.3f}", ""]]
    tools = {"gradekit": gk_scores}
    if not args.skip_nbgrader:
        out.append(ensure_kernel())
        nb = nbgrader_run(work / "nbgrader-course", gk_root, n)
        ratio = (nb["seconds"] / n) / (gk["seconds"] / n)
        rows.append(["nbgrader autograde", n, f"{nb['seconds']:.2f}", f"{nb['seconds'] / n:.3f}",
                     f"{ratio:.2f}x"])
        tools["nbgrader"] = nb["scores"]
    out.append("")
    header = ["tool", "N", "total s", "s/submission", "nbgrader s/sub / gradekit s/sub"]
    table(header if len(rows) > 1 else header[:-1], [r if len(rows) > 1 else r[:-1] for r in rows], out)
    out.append("")
    if gk["in_worker"] is not None:
        out.append(f"gradekit in-worker time per submission (mean of results.json 'seconds', "
                   f"Pipeline.grade() inside a worker): {gk['in_worker']:.3f} s")
    out.append(f"gradekit peak RSS: coordinator {mb(gk['rss_self'])}, whole process tree {mb(gk['rss_tree'])}")
    score_check(n, tools, out)
    if args.throughput:
        throughput(args, work, gk_root, out, None if args.skip_nbgrader else (nb["seconds"], n))


def throughput(args, work: Path, gk_root: Path, out: list[str], nb_full) -> None:
    """Steady-state cost per submission: (T(big) - T(small)) / (big - small), start-up excluded.

    A command's fixed start-up (imports, worker pool, sandboxes, pytest
    collection) is paid once per run; what a class of thousands costs is the
    marginal time per submission, measured here for both tools from two runs
    of different size.
    """
    small, big = 10, args.throughput
    root = work / "gradekit-throughput"
    gradekit_course(root, big)
    gk_small = gradekit_autograde(root, small, args.jobs, only=student_ids(small))
    gk_big = gradekit_autograde(root, big, args.jobs)
    gk_marginal = (gk_big["seconds"] - gk_small["seconds"]) / (big - small)
    cores = len(os.sched_getaffinity(0))
    out.append(f"\nsteady-state throughput (marginal seconds per submission between runs of {small} and N):")
    rows = [["gradekit autograde", big, f"{gk_small['seconds']:.2f}", f"{gk_big['seconds']:.2f}",
             f"{gk_marginal:.4f}", ""]]
    if nb_full is not None:
        nb_root = work / "nbgrader-course"
        shutil.rmtree(nb_root / "autograded", ignore_errors=True)
        say(f"timing nbgrader autograde on {small} submissions")
        nb_small = timed([str(BIN / "nbgrader"), "autograde", ASSIGNMENT,
                          f"--CourseDirectory.student_id={student_ids(1)[0][:-1]}?"], nb_root,
                         nb_root / "autograde-small.log")
        nb_seconds, nb_n = nb_full
        nb_marginal = (nb_seconds - nb_small["seconds"]) / (nb_n - small)
        rows.append(["nbgrader autograde", nb_n, f"{nb_small['seconds']:.2f}", f"{nb_seconds:.2f}",
                     f"{nb_marginal:.4f}", f"{nb_marginal / gk_marginal:.1f}x"])
    table(["tool", "N", f"T({small}) s", "T(N) s", "s/submission", "nbgrader / gradekit"], rows, out)
    floor = gk_big["floor"]
    if floor:
        out.append(f"the floor: the student's code and the graders' calls into it, measured inside the "
                   f"sandbox worker: {floor:.4f} s per submission; gradekit spends {gk_marginal * cores:.4f} "
                   f"core-seconds per submission ({cores} cores x {gk_marginal:.4f} s), "
                   f"{gk_marginal * cores / floor:.1f}x the floor")


def sizes(args, work: Path, out: list[str]) -> None:
    rows = []
    for n in args.sizes:
        root = work / f"gradekit-{n}"
        gen = gradekit_course(root, n)
        gk = gradekit_autograde(root, n, args.jobs)
        rows.append([n, f"{gen['seconds']:.2f}", f"{gk['seconds']:.2f}", f"{gk['seconds'] / n:.3f}",
                     f"{gk['in_worker']:.3f}" if gk["in_worker"] is not None else "n/a",
                     mb(gk["rss_self"]), mb(gk["rss_tree"])])
        say(f"{n} students: generate {gen['seconds']:.1f} s, autograde {gk['seconds']:.1f} s, {load()}")
        shutil.rmtree(root / "autograded", ignore_errors=True)
    out.append("gradekit alone, one fresh course per class size" + (f", --jobs {args.jobs}" if args.jobs else ""))
    table(["N", "generate s", "autograde s", "s/submission", "in-worker s/sub", "coordinator peak RSS",
           "tree peak RSS"], rows, out)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=30, help="submissions per tool (default 30)")
    parser.add_argument("--skip-nbgrader", action="store_true", help="time gradekit only")
    parser.add_argument("--sizes", type=lambda s: [int(x) for x in s.split(",") if x],
                        help="gradekit alone at these class sizes, e.g. 10,100,1000")
    parser.add_argument("--jobs", type=int, default=0, help="gradekit --jobs (default: its own, one per core)")
    parser.add_argument("--keep", metavar="DIR", help="build the courses here and keep them")
    parser.add_argument("--throughput", type=int, default=300, metavar="N",
                        help="also measure steady-state throughput with a class of N (default 300; 0: skip)")
    args = parser.parse_args(argv)
    if not (BIN / "gradekit").exists() or not (BIN / "nbgrader").exists():
        print(f"bench: run with the venv's python (.venv/bin/python); no gradekit/nbgrader in {BIN}", file=sys.stderr)
        return 2
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:
        cores = os.cpu_count()
    out = [f"gradekit benchmark, {time.strftime('%Y-%m-%d %H:%M:%S')}, git {git_head()}",
           f"machine: {cores} core(s) usable (os.cpu_count() = {os.cpu_count()}), python {sys.version.split()[0]}",
           f"submission mix: {mix(args.n if not args.sizes else max(args.sizes))}",
           f"at start: {load()} (other work on the machine skews the timings)", ""]
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
