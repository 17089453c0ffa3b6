"""Benchmark: `gradekit integrity` on synthetic classes with planted copies.

Two classes are built with tests/integrity_class.py (no grading: variants and
submitted notebooks only), one of about 200 students and one of 1,000. Each has
10 planted (source, copier) pairs of every kind:

* whole      -- the copier hands in the source's notebooks;
* exercise   -- the source's hardest exercise (their longest answer, their own
                code), renamed, reformatted, commented, two statements swapped;
* quiz       -- the source's right answers typed into the copier's own quiz;
* partial    -- the first half of that same answer, the rest the copier's;
* exercise_any (reported apart) -- as "exercise", for an exercise chosen at
                random among the source's own answers of 30 tokens or more:
                short answers made of common lines are a hard case by design.

Honest students write their own code step by step (tests/integrity_code.py),
some hand in the answer key's code, two write unusual loop-based code, two
hard-code the lecture's numbers. The timed part is the whole
`gradekit integrity self_attention` command as a subprocess (start-up, the
variants, reading every notebook, fingerprints, evidence, writing
integrity.json and integrity.html), in wall-clock seconds and in CPU-seconds
(the command and its worker processes): the machine is shared, and the load
average when the command started is printed next to them. Precision is
planted pairs among the flagged ones; recall is flagged pairs among the
planted ones.

Results are printed and written to bench/out/integrity.txt.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO / "tests"))
import integrity_class as ic  # noqa: E402

BIN = Path(sys.executable).parent
KINDS = ic.KINDS + ic.EXTRA_KINDS


def build(root: Path, students: int, pairs: int, seed: int) -> ic.SyntheticClass:
    canonical, lecture = max(5, students // 50), 2
    plants = {kind: pairs for kind in KINDS}
    honest = students - canonical - 2 - lecture - pairs * len(KINDS)
    return ic.build(root, honest=honest, plants=plants, canonical=canonical, unusual=True, lecture=lecture,
                    seed=seed)


def measure(klass: ic.SyntheticClass) -> dict:
    load = os.getloadavg()[0]
    cpu_before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.monotonic()
    run = subprocess.run([str(BIN / "gradekit"), "--course", str(klass.root), "integrity", ic.ASSIGNMENT, "--json"],
                         capture_output=True, text=True, env={**os.environ, "PYTHONWARNINGS": "ignore"})
    seconds = time.monotonic() - started
    cpu_after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (cpu_after.ru_utime - cpu_before.ru_utime) + (cpu_after.ru_stime - cpu_before.ru_stime)
    if run.returncode != 0:
        raise SystemExit(f"gradekit integrity failed: {run.stderr.strip()[-500:]}")
    flagged = {tuple(p["students"]) for p in json.loads(run.stdout)}
    planted = klass.planted_pairs()
    by_kind = {kind: [pair for pair, k in planted.items() if k == kind] for kind in KINDS}
    main = {pair for pair, kind in planted.items() if kind in ic.KINDS}
    true = flagged & set(planted)
    return {
        "students": len(klass.students), "seconds": seconds, "cpu": cpu, "load": load, "flagged": len(flagged),
        "precision": len(true) / len(flagged) if flagged else 1.0,
        "recall": len(flagged & main) / len(main),
        "by_kind": {kind: (sum(p in flagged for p in pairs), len(pairs)) for kind, pairs in by_kind.items()},
        "false": sorted(flagged - set(planted)),
    }


def report(result: dict) -> list[str]:
    lines = [f"class of {result['students']}: `gradekit integrity` took {result['seconds']:.1f} s "
             f"({result['cpu']:.1f} CPU-seconds; load average {result['load']:.1f} on {os.cpu_count()} cores "
             f"when it started); {result['flagged']} pair(s) flagged",
             f"  precision {result['precision']:.1%} (planted pairs among the flagged), "
             f"recall {result['recall']:.1%} (the four kinds of the issue)"]
    for kind, (found, total) in result["by_kind"].items():
        lines.append(f"  {kind:<13} {found:>3} / {total} found")
    if result["false"]:
        lines.append("  flagged but not planted: " + ", ".join(" & ".join(p) for p in result["false"]))
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="212,1000", help="class sizes (default: 212,1000)")
    parser.add_argument("--pairs", type=int, default=10, help="planted pairs of each kind (default: 10)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    lines = [f"gradekit integrity bench, {time.strftime('%Y-%m-%d %H:%M')}, {os.cpu_count()} cores"]
    print(lines[0], flush=True)
    with tempfile.TemporaryDirectory(prefix="gradekit-integrity-bench-") as tmp:
        for size in (int(s) for s in args.sizes.split(",")):
            started = time.monotonic()
            klass = build(Path(tmp) / f"class{size}", size, args.pairs, args.seed)
            print(f"(built a class of {len(klass.students)} in {time.monotonic() - started:.0f} s)", flush=True)
            for line in report(measure(klass)):
                print(line, flush=True)
                lines.append(line)
    out = HERE / "out"
    out.mkdir(exist_ok=True)
    (out / "integrity.txt").write_text("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
