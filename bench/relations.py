"""Benchmark: what the relation families tell the project's uncatalogued mistakes, and what it costs.

1. **The table.** Every file of tests/graders/uncatalogued/<assignment>/ graded on
   ``--variants`` variants (10), as tests/graders/test_uncatalogued.py grades them, and
   counted per family (the family a mistake was written for: its ``# relation:`` line)
   by its most frequent verdict: named (wrongly: none of them is a known mistake),
   related by a relation sentence, related otherwise (a shape, an exception, a probe),
   bare (only "values differ"), missed; the right answers kept or lost.
2. **The cost** (``--cost``): the same gradings in this process (one worker, the
   sandbox as always), timing every relation search of a failed check -- with the
   calls into the student's code and the reference it makes -- and the weighing of a
   cell's evidence, summed per graded cell that lost points: the median, the 90th
   percentile and the worst cell (and how much of it was spent in the sandbox's round
   trips), the same without the interpreter's garbage collections that fell inside the
   timings (a full collection of this process, which holds the whole run, takes 0.1-0.3 s
   wherever it falls), and the worst by test cell. Timings are noisy on a
   shared machine: run it alone, or compare runs made side by side.

3. **Said by** (with the table): for each relation family of the engine, the mistakes whose feedback
   it said on most of their variants (a mistake said by two families counts for both).

``python bench/relations.py [--variants 10] [--cost] [--assignment A] [--dir PATH] [--course DIR]
[--sentences FILE]``; the tables are printed and written to bench/out/relations.txt. ``--dir PATH``
grades a set kept anywhere, in the same format (``PATH/<assignment>/*.py``,
``PATH/<assignment>/correct/*.py``, or one assignment's folder itself, named after it) instead of
the project's; ``--course DIR`` grades it against another course directory (a course written
elsewhere, its set beside it); ``--sentences FILE`` writes what every file's cells said on every
variant (and its ``# truth:`` line, when it has one), to read them against what the mistake is.
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))
sys.path.insert(0, str(REPO / "tests" / "graders"))
os.environ.setdefault("GRADEKIT_SECRET", "gradekit-test-suite-secret")

from uncatalogued_set import HERE, assignments, grade  # noqa: E402

COLUMNS = ("named", "sentence", "other", "bare", "missed")


def verdict(graded) -> str:
    """named / sentence / other / bare / missed: the file's most frequent verdict, a related one
    split by whether a relation sentence was said on most of its variants."""
    kind = graded.kind
    if kind != "related":
        return kind
    with_sentence = sum(1 for v in graded.verdicts if v.kind == "related" and v.said)
    return "sentence" if 2 * with_sentence > len(graded.verdicts) else "other"


def table(rows: list) -> list[str]:
    mistakes = [g for g in rows if g.family != "correct"]
    by_family: dict[str, Counter] = defaultdict(Counter)
    for g in mistakes:
        by_family[g.family][verdict(g)] += 1
    width = max([len(f) for f in by_family] + [12])
    head = f"{'family':<{width}}  files  " + "  ".join(f"{c:>8}" for c in COLUMNS)
    out = [head, "-" * len(head)]
    total: Counter = Counter()
    for family in sorted(by_family, key=lambda f: (-sum(by_family[f].values()), f)):
        seen = by_family[family]
        total.update(seen)
        out.append(f"{family:<{width}}  {sum(seen.values()):>5}  " + "  ".join(f"{seen[c]:>8}" for c in COLUMNS))
    out.append("-" * len(head))
    out.append(f"{'all':<{width}}  {sum(total.values()):>5}  " + "  ".join(f"{total[c]:>8}" for c in COLUMNS))
    for assignment in sorted({g.assignment for g in rows}):
        seen = Counter(verdict(g) for g in mistakes if g.assignment == assignment)
        out.append(f"  {assignment}: " + ", ".join(f"{seen[c]} {c}" for c in COLUMNS if seen[c]))
    right = [g for g in rows if g.family == "correct"]
    lost = [g.label for g in right if any(v.kind != "kept" or v.elsewhere for v in g.verdicts)]
    out.append(f"right answers: {len(right) - len(lost)} of {len(right)} kept full marks on every variant"
               + (f" (lost: {', '.join(lost)})" if lost else ""))
    wrong_names = [g.label for g in mistakes if any(v.names for v in g.verdicts)]
    out.append(f"named wrongly: {len(wrong_names)}" + (f" ({', '.join(wrong_names)})" if wrong_names else ""))
    bare = [g.label for g in mistakes if verdict(g) == "bare"]
    if bare:
        out.append("bare: " + ", ".join(bare))
    if mistakes:
        out.append(f"bare share: {100 * len(bare) / len(mistakes):.1f}% of {len(mistakes)}")
    return out


def said_by(rows: list) -> list[str]:
    """The mistakes each relation family of the engine said (on most of their variants)."""
    mistakes = [g for g in rows if g.family != "correct"]
    counts: Counter = Counter()
    for g in mistakes:
        seen = Counter(f for v in g.verdicts for f in set(v.families))
        counts.update(f for f, n in seen.items() if 2 * n > len(g.verdicts))
    head = f"{'said by the family':<20}  mistakes"
    out = [head, "-" * len(head)]
    for family, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        out.append(f"{family:<20}  {n:>8}")
    return out


class Costs:
    """Seconds of relation searching and weighing, by graded cell, in this process."""

    def __init__(self):
        self.pending = 0.0
        self.pending_sandbox = 0.0
        self.cells: dict[str, float] = defaultdict(float)  # test cell -> seconds, this submission
        self.sandbox: dict[str, float] = defaultdict(float)  # of which in calls of the student's code
        self.done: list[tuple[str, float]] = []  # (test cell, seconds) of each failed cell graded
        self.done_sandbox: list[float] = []
        self.pending_cpu = 0.0  # the same searches' CPU time in this process (not the sandbox's, nor waiting)
        self.cpu: dict[str, float] = defaultdict(float)
        self.done_cpu: list[float] = []
        self.collecting = 0.0  # seconds of the interpreter's garbage collections so far (gc.callbacks)
        self.pending_gc = 0.0
        self.gc: dict[str, float] = defaultdict(float)
        self.done_gc: list[float] = []
        self.again: dict[str, float] = defaultdict(float)  # of which running tests again (further cases)
        self.done_again: list[float] = []

    def install(self) -> None:
        from gradekit.grading import diagnosis, stages
        from gradekit.grading.harness import plugin

        try:  # the families' engine
            from gradekit.graders.relations import engine as where
        except ImportError:  # the engine before the families
            from gradekit.graders import relations as where
        search, relate, record, diagnose = where.search, diagnosis.relate, plugin.GraderPlugin._record, \
            stages.diagnose
        costs = self
        began = {}

        def collected(phase, info):
            if phase == "start":
                began["t"] = time.perf_counter()
            elif "t" in began:
                costs.collecting += time.perf_counter() - began.pop("t")

        gc.callbacks.append(collected)
        try:  # the calls of the student's code a search makes (one request each)
            from gradekit.graders.relations.family import Whole

            student = Whole.student

            def timed_student(self, *args, **kwargs):
                started = time.perf_counter()
                try:
                    return student(self, *args, **kwargs)
                finally:
                    costs.pending_sandbox += time.perf_counter() - started

            Whole.student = timed_student
        except ImportError:  # the engine before the families: not told apart
            pass

        def timed_search(*args, **kwargs):
            started, cpu, collecting = time.perf_counter(), time.process_time(), costs.collecting
            try:
                return search(*args, **kwargs)
            finally:
                costs.pending += time.perf_counter() - started
                costs.pending_cpu += time.process_time() - cpu
                costs.pending_gc += costs.collecting - collecting

        again = getattr(plugin.GraderPlugin, "run_again", None)
        running = {"depth": 0}

        def timed_again(self, item, *args, **kwargs):
            """A test run again (further cases, a cell's passing tests): its whole time, sandbox included,
            counts for its cell -- the searches inside it are not counted twice."""
            cell = plugin._label(item)[0]
            started, cpu = time.perf_counter(), time.process_time()
            running["depth"] += 1
            pending = (costs.pending, costs.pending_cpu, costs.pending_gc, costs.pending_sandbox)
            try:
                return again(self, item, *args, **kwargs)
            finally:
                running["depth"] -= 1
                costs.pending, costs.pending_cpu, costs.pending_gc, costs.pending_sandbox = pending
                costs.cells[cell] += time.perf_counter() - started
                costs.cpu[cell] += time.process_time() - cpu
                costs.again[cell] += time.perf_counter() - started

        if again is not None:
            plugin.GraderPlugin.run_again = timed_again

        def timed_record(self, item, *args, **kwargs):
            cell = plugin._label(item)[0]
            costs.cells[cell] += costs.pending
            costs.sandbox[cell] += costs.pending_sandbox
            costs.gc[cell] += costs.pending_gc
            costs.cpu[cell] += costs.pending_cpu
            costs.pending = costs.pending_sandbox = costs.pending_gc = costs.pending_cpu = 0.0
            return record(self, item, *args, **kwargs)

        def timed_relate(checks, *more):
            started, cpu, collecting = time.perf_counter(), time.process_time(), costs.collecting
            try:
                return relate(checks, *more)
            finally:
                costs.pending += time.perf_counter() - started
                costs.pending_cpu += time.process_time() - cpu
                costs.pending_gc += costs.collecting - collecting

        def timed_diagnose(cell):
            costs.pending = costs.pending_cpu = 0.0
            diagnose(cell)
            seconds = costs.cells.pop(cell.grade_id, 0.0) + costs.pending
            sandbox = costs.sandbox.pop(cell.grade_id, 0.0)
            collecting = costs.gc.pop(cell.grade_id, 0.0) + costs.pending_gc
            cpu = costs.cpu.pop(cell.grade_id, 0.0) + costs.pending_cpu
            rerun = costs.again.pop(cell.grade_id, 0.0)
            costs.pending = costs.pending_sandbox = costs.pending_gc = costs.pending_cpu = 0.0
            if cell.score is not None and cell.score < cell.points - 1e-9 and any(
                    not c.passed for c in cell.checks):
                costs.done.append((cell.grade_id, seconds))
                costs.done_sandbox.append(sandbox)
                costs.done_gc.append(collecting)
                costs.done_cpu.append(cpu)
                costs.done_again.append(rerun)

        where.search = timed_search
        diagnosis.relate = timed_relate
        plugin.GraderPlugin._record = timed_record
        stages.diagnose = timed_diagnose

    def summary(self) -> list[str]:
        if not self.done:
            return ["cost: no failed cell graded"]
        ms = sorted(1000 * s for _cell, s in self.done)
        net = [1000 * (s - g) for (_cell, s), g in zip(self.done, self.done_gc, strict=True)]
        p90 = ms[min(len(ms) - 1, int(0.9 * len(ms)))]
        at = max(range(len(self.done)), key=lambda i: self.done[i][1])
        worst = self.done[at]
        by_cell: dict[str, list[float]] = defaultdict(list)
        cpu_by_cell: dict[str, list[float]] = defaultdict(list)
        for (cell, s), cpu in zip(self.done, self.done_cpu, strict=True):
            by_cell[cell].append(1000 * s)
            cpu_by_cell[cell].append(1000 * cpu)
        out = [f"cost per failed cell ({len(ms)} cells): median {statistics.median(ms):.1f} ms, "
               f"90th percentile {p90:.1f} ms, worst {1000 * worst[1]:.1f} ms ({worst[0]}; "
               f"{1000 * self.done_sandbox[at]:.1f} ms of it in calls of the student's code)",
               f"  in calls of the student's code: median {1000 * statistics.median(self.done_sandbox):.1f} ms, "
               f"worst {1000 * max(self.done_sandbox):.1f} ms",
               f"  of it in the interpreter's garbage collections: {1000 * self.done_gc[at]:.1f} ms in the worst cell, "
               f"{1000 * max(self.done_gc):.1f} ms at most in a cell ({1000 * self.collecting:.0f} ms in all, "
               f"in and out of the searches); without them: median {statistics.median(net):.1f} ms, worst "
               f"{max(net):.1f} ms",
               f"  CPU time of this process (what the searches computed, without waiting for a core or for "
               f"the sandbox): median {1000 * statistics.median(self.done_cpu):.1f} ms, 90th percentile "
               f"{1000 * sorted(self.done_cpu)[min(len(ms) - 1, int(0.9 * len(ms)))]:.1f} ms, worst "
               f"{1000 * max(self.done_cpu):.1f} ms",
               f"  running tests again (further cases, passing tests: sandbox and searches included): median "
               f"{1000 * statistics.median(self.done_again or [0.0]):.1f} ms, worst "
               f"{1000 * max(self.done_again or [0.0]):.1f} ms"]
        for cell, values in sorted(by_cell.items(), key=lambda kv: -max(kv[1]))[:8]:
            out.append(f"  {cell}: median {statistics.median(values):.1f} ms, worst {max(values):.1f} ms "
                       f"({len(values)} cells; CPU median {statistics.median(cpu_by_cell[cell]):.1f} ms, worst "
                       f"{max(cpu_by_cell[cell]):.1f} ms)")
        return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variants", type=int, default=10)
    parser.add_argument("--assignment", action="append", help="only this assignment (repeatable)")
    parser.add_argument("--cost", action="store_true", help="grade in this process and time the relations")
    parser.add_argument("--only", action="append", help="only this file name (repeatable)")
    parser.add_argument("--dir", type=Path, help="grade the set kept in this folder instead of the project's")
    parser.add_argument("--course", type=Path, default=REPO, help="the course directory the set is for")
    parser.add_argument("--sentences", type=Path, help="write what each file's cells said to this file")
    args = parser.parse_args(argv)
    root, chosen = HERE, args.assignment
    course = args.course.expanduser().resolve()
    if args.dir is not None:
        try:
            root, chosen = _outside(args.dir, args.assignment, course)
        except ValueError as exc:
            print(f"bench/relations.py: {exc}", file=sys.stderr)
            return 2
    costs = None
    if args.cost:
        costs = Costs()
        costs.install()
    rows = []
    started = time.monotonic()
    for assignment in chosen or assignments(root, course):
        rows += grade(assignment, args.variants, jobs=1 if args.cost else 0,
                      only=set(args.only) if args.only else None, root=root, course=course)
    if args.sentences is not None:
        args.sentences.write_text("\n".join(sentences(rows)) + "\n")
    title = "uncatalogued sets" if args.dir is None else f"the set in {args.dir}"
    lines = [f"{title}, {args.variants} variants each ({time.monotonic() - started:.0f} s)"] + table(rows)
    lines += [""] + said_by(rows)
    if costs is not None:
        lines += [""] + costs.summary()
    text = "\n".join(lines)
    print(text)
    out = REPO / "bench" / "out"
    out.mkdir(exist_ok=True)
    (out / "relations.txt").write_text(text + "\n")
    return 0


def sentences(rows: list) -> list[str]:
    """What each file's cells said, variant by variant (its ``# truth:`` line first, when it has one)."""
    out = []
    for graded in rows:
        out.append(f"== {graded.label} [{graded.family}] {verdict(graded)}")
        truth = [line for line in graded.path.read_text().splitlines() if line.startswith("# truth:")]
        out += truth[:1]
        for k, v in enumerate(graded.verdicts):
            head = f"  v{k} {v.kind}" + (f" NAMES {v.names}" if v.names else "")
            out.append(head)
            out += [f"     {line}" for line in v.said]
            out += [f"     | {line[:240]}" for line in getattr(v, "messages", [])[:4]]
    return out


def _outside(folder: Path, chosen: list[str] | None, root: Path = REPO) -> tuple[Path, list[str] | None]:
    """(the root holding <assignment>/ folders, the assignments to grade) for a set kept in ``folder``."""
    from gradekit.course import Course

    folder = folder.expanduser().resolve()
    if not folder.is_dir():
        raise ValueError(f"--dir {folder}: no such folder")
    course = Course.load(root).assignments()
    unknown = [a for a in chosen or [] if a not in course]
    if unknown:
        raise ValueError(f"--assignment {', '.join(unknown)}: not an assignment of this course ({', '.join(course)})")
    if folder.name in course and any(folder.glob("*.py")):
        if chosen and chosen != [folder.name]:
            raise ValueError(f"--dir {folder} holds the set of {folder.name} only")
        return folder.parent, [folder.name]
    held = [a for a in course if (folder / a).is_dir()]
    if not held:
        raise ValueError(f"--dir {folder}: no folder named after an assignment ({', '.join(course)}) in it")
    missing = [a for a in chosen or [] if a not in held]
    if missing:
        raise ValueError(f"--dir {folder}: no set for {', '.join(missing)} in it")
    return folder, chosen


if __name__ == "__main__":
    sys.exit(main())
