"""Benchmark: mistakes made automatically from the answers of every shipped assignment and of
``gradekit quickstart``'s course, graded, every sentence audited (tests/graders/mutants.py).

For each assignment: how many mutants (every single change, and pairs of changes drawn with a fixed seed:
two slips at once), what the engine said of them (named, said a relation, other:
an exception, a shape; bare: only that values differ; missed: the mutant gives the right answers),
the problems the audit found (a sentence false on a failed check, a value not the mutant's own, a
relation that does not hold on new inputs of the same shapes, a name on fewer than two inputs), and
the cost of the engine's weighing and verifying per wrong cell (the searches are inside grading: see
bench/relations.py --cost for them).

``python bench/mutants.py [--limit N] [--assignment A] [--problems]``; the table is printed and
written to bench/out/mutants.txt.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))
sys.path.insert(0, str(REPO / "tests" / "graders"))
os.environ.setdefault("GRADEKIT_SECRET", "gradekit-test-suite-secret")

import mutants as M  # noqa: E402

KINDS = ("named", "said", "other", "bare", "missed", "error")


def quickstart(folder: Path) -> Path:
    """``gradekit quickstart``'s course, written in ``folder``."""
    from gradekit.authoring.quickstart import write_course

    root = folder / "quickstart"
    root.mkdir()
    write_course(root, "week1")
    return root


def run(root: Path, assignment: str, limit: int | None, seed: int) -> tuple[list, list, float]:
    cells = M.exercise_cells(root, assignment)
    every = [m for cell, src in cells.items() for m in M.mutants(cell, src, assignment)]
    every += [m for cell, src in cells.items() for m in M.pairs(cell, src, assignment, count=4 * len(every) // len(cells))]
    chosen = every if limit is None or limit >= len(every) else random.Random(seed).sample(every, limit)
    started = time.perf_counter()
    graded = []
    for start in range(0, len(chosen), 400):  # a simulated course per few hundred: its temporary files stay small
        graded += M.grade(root, assignment, chosen[start:start + 400])
    seconds = time.perf_counter() - started
    return graded, M.audit(graded), seconds


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--limit", type=int, help="at most this many mutants per assignment (a random sample)")
    parser.add_argument("--assignment", action="append", help="only this assignment (repeatable; quickstart: week1)")
    parser.add_argument("--seed", type=int, default=20261204)
    parser.add_argument("--problems", action="store_true", help="list every problem the audit found")
    args = parser.parse_args(argv)
    lines = []
    total: Counter = Counter()
    problems_all: list = []
    costs: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        courses = [(REPO, a) for a in ("self_attention", "multi_head_attention", "long_context")]
        courses.append((quickstart(Path(tmp)), "week1"))
        head = f"{'assignment':<22} {'mutants':>7} " + " ".join(f"{k:>7}" for k in KINDS) + f" {'problems':>8} {'seconds':>8}"
        lines += [head, "-" * len(head)]
        for root, assignment in courses:
            if args.assignment and assignment not in args.assignment:
                continue
            graded, problems, seconds = run(root, assignment, args.limit, args.seed)
            seen = Counter(M.verdict(g) for g in graded)
            total.update(seen)
            problems_all += problems
            costs += [c.seconds for g in graded for k, c in g.cells.items()
                      if not k.startswith("other:") and c.score < c.points - 1e-9]
            lines.append(f"{assignment:<22} {len(graded):>7} " + " ".join(f"{seen[k]:>7}" for k in KINDS)
                         + f" {len(problems):>8} {seconds:>8.0f}")
    lines.append("-" * len(lines[0]))
    count = sum(total.values())
    lines.append(f"{'all':<22} {count:>7} " + " ".join(f"{total[k]:>7}" for k in KINDS) + f" {len(problems_all):>8}")
    wrong = count - total["missed"] - total["error"]
    if wrong:
        lines.append(f"bare: {100 * total['bare'] / wrong:.1f}% of the {wrong} mutants that lose points "
                     f"({100 * total['bare'] / max(1, wrong - total['other']):.1f}% of those that do not raise)")
    if costs:
        ms = sorted(1000 * c for c in costs)
        lines.append(f"weighing and verifying per wrong cell: median {statistics.median(ms):.1f} ms, "
                     f"90th percentile {ms[int(0.9 * (len(ms) - 1))]:.1f} ms, worst {ms[-1]:.1f} ms ({len(ms)} cells)")
    if args.problems or problems_all:
        lines += [""] + [f"{p.mutant} [{p.cell}]: {p.what}" for p in problems_all[:200]]
    text = "\n".join(lines)
    print(text)
    out = REPO / "bench" / "out"
    out.mkdir(exist_ok=True)
    (out / "mutants.txt").write_text(text + "\n")
    return 1 if problems_all else 0


if __name__ == "__main__":
    sys.exit(main())
