"""Hostile and broken submissions, through the whole pipeline (issue #4).

Every case is a student in a temporary course, graded by the real command
(`gradekit autograde`, real bubblewrap) in a batch with honest students. For
each case the tests check that

* it scores exactly what the honest part of it deserves (per cell): the same
  as a control student whose submission is the honest part alone;
* its results.json / feedback page carry a clear reason;
* a submission that cannot be graded at all is a zero *record* in the gradebook;
* the honest students of the batch are graded exactly as in a batch without
  the hostile ones;
* nothing of any submission is left running -- after each result (checked by
  the driver as the result is recorded) and after the batch.

The hostile students are grouped into four batches (cheating, tampering and
broken files; breaking the run; reaching out) so the whole module costs a few
grading runs, not one per case. Batches that test hangs use small limits.
"""

from __future__ import annotations

import hashlib
import html
import json
import os
import re
import socket
import subprocess
import sys
import textwrap
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import nbformat
import pytest

from conftest import (ASSIGNMENT, NOTEBOOK, SECRET, VENV_BIN, CourseDir, cell_by_id, exercise_tests, grade_id,
                      is_test, known_sources, with_solutions)
from gradekit.sandbox.bwrap import bwrap_path
from processes import Tracker

pytestmark = [pytest.mark.e2e, pytest.mark.skipif(bwrap_path() is None, reason="bubblewrap is not installed")]

GRADEKIT = str(VENV_BIN / "gradekit")
MARK = "gkadv"                      # argv[0] prefix of every process a hostile student starts
HONEST = ("advhonest", "advwrong")  # in every batch: the answer key, and the control for the cheaters

# the run-breaking batch uses small limits so that every hang costs seconds
SMALL = dict(cell_timeout=6.0, call_timeout=3.0, notebook_budget=40.0)
ROOMY = dict(cell_timeout=30.0, call_timeout=10.0, notebook_budget=90.0)

WRONG_SOFTMAX = "def softmax(x, axis=-1):\n    return np.asarray(x, dtype=float)\n"


# -- running a batch ------------------------------------------------------------------------------

DRIVER = textwrap.dedent(r'''
    """`gradekit autograde` (the course's limits are in its nbgrader_config.py); after each
    recorded result, look for leftovers."""
    import json, os, sys, time
    from pathlib import Path

    from gradekit.cli import main as cli
    from gradekit.gradebook import write as gradebook

    log = Path(sys.argv[2])
    mark = sys.argv[3]
    sys.path.append(sys.argv[4])                # the tests' folder: processes.Tracker
    from processes import Tracker

    batch = Tracker.of(sys.argv[5])             # the cgroup the test started this driver in

    def alive(prefix):
        """The batch's live processes whose command line holds ``prefix`` (none of another run's)."""
        return list(batch.alive(prefix).values())

    record = gradebook.Recorder.record   # every result the coordinator receives passes here

    def checked(recorder, result):
        prefix = f"{mark}-{result.student}-"
        deadline = time.monotonic() + 3
        left = alive(prefix)
        while left and time.monotonic() < deadline:
            time.sleep(0.1)
            left = alive(prefix)
        with open(log, "a") as fh:
            fh.write(json.dumps({"student": result.student, "left": left, "anyone": alive(mark + "-")}) + "\n")
        record(recorder, result)

    gradebook.Recorder.record = checked
    sys.exit(cli.main(sys.argv[6:]))
''')


@dataclass
class Batch:
    course: CourseDir
    proc: subprocess.CompletedProcess
    seconds: float
    log: list[dict]
    leftovers: dict[int, str]
    results: dict = field(default_factory=dict)

    def result(self, student: str) -> dict:
        return self.course.results_json(student)

    def cells(self, student: str) -> dict[str, float]:
        return {c["grade_id"]: c["score"] for nb in self.result(student)["notebooks"] for c in nb["cells"]}

    def checks(self, student: str) -> dict[str, list[tuple[str, bool, str]]]:
        return {c["grade_id"]: [(k["name"], k["passed"], k["message"]) for k in c["checks"]]
                for nb in self.result(student)["notebooks"] for c in nb["cells"]}

    def feedback(self, student: str) -> str:
        page = self.course.root / "feedback" / student / ASSIGNMENT / f"{NOTEBOOK}.html"
        return html.unescape(page.read_text())

    def text(self, student: str) -> str:
        """Everything a student is told: results.json and the feedback page."""
        return json.dumps(self.result(student)) + "\n" + self.feedback(student)

    def messages(self, student: str) -> str:
        """The reasons in results.json: errors, cell-run errors and check messages."""
        res = self.result(student)
        parts = [res.get("error") or ""]
        for nb in res["notebooks"]:
            parts.append(nb.get("error") or "")
            parts += [r.get("error") or "" for r in nb["runs"]]
            parts += [k["message"] for c in nb["cells"] for k in c["checks"]]
        return "\n".join(p for p in parts if p)

    def gradebook(self, student: str) -> dict[str, float | None]:
        with self.course.gradebook() as gb:
            nb = gb.find_submission_notebook(NOTEBOOK, ASSIGNMENT, student)
            return {g.name: g.auto_score for g in nb.grades}


def make_course(root: Path, students) -> CourseDir:
    course = CourseDir.create(root, students=tuple(students))
    course.run(GRADEKIT, "generate", ASSIGNMENT)
    return course


def run_batch(course: CourseDir, limits: dict | None, timeout: float = 400, jobs: int = 2, secret: str = SECRET) -> Batch:
    if limits:
        course.configure(**limits)
    tracker = Tracker(course.root.name, MARK)
    log = course.root.parent / f"{course.root.name}-leftovers.jsonl"
    env = dict(os.environ, PATH=f"{VENV_BIN}:{os.environ.get('PATH', '')}", GRADEKIT_SECRET=secret)
    started = time.monotonic()
    try:
        proc = subprocess.run([sys.executable, "-c", DRIVER, json.dumps(limits), str(log), MARK,
                               str(Path(__file__).parents[1]), str(tracker.group or ""),
                               "autograde", ASSIGNMENT, "--jobs", str(jobs)], preexec_fn=tracker.join,
                              cwd=course.root, env=env, capture_output=True, text=True, timeout=timeout)
        seconds = time.monotonic() - started
        deadline = time.monotonic() + 10
        while True:
            leftovers = tracker.alive()
            if not leftovers or time.monotonic() > deadline:
                break
            time.sleep(0.2)
    finally:
        tracker.close()
    assert proc.returncode == 0, f"autograde failed ({proc.returncode}):\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    course.run(GRADEKIT, "feedback", ASSIGNMENT, env=env)
    lines = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    return Batch(course, proc, seconds, lines, leftovers)


# -- submissions ------------------------------------------------------------------------------------

def key_of(course: CourseDir, student: str) -> nbformat.NotebookNode:
    return course.answer_key(student)


def copy_nb(nb):
    return nbformat.from_dict(json.loads(json.dumps(nb)))


def insert_after(nb, gid: str, *sources: str) -> nbformat.NotebookNode:
    """Plain code cells (as a student adds them) right after the cell with this grade_id."""
    index = next(i for i, c in enumerate(nb.cells) if grade_id(c) == gid)
    for offset, source in enumerate(sources, 1):
        nb.cells.insert(index + offset, nbformat.v4.new_code_cell(source))
    return nb


def marker(student: str, tag: str) -> str:
    return f"{MARK}-{student}-{tag}"


@dataclass
class Case:
    """One hostile (or awkward) student: how to write the submission and what it must score."""

    student: str
    build: Callable[[CourseDir, str], object]   # returns a notebook, or writes the files itself (None)
    zero: tuple[str, ...] = ()                 # exercises (solution grade_ids) that earn nothing
    like: str | None = None                    # ... or: cell scores equal this student's
    reasons: tuple[str, ...] = ()              # regexes that must appear in what the student is told
    below: tuple[str, ...] = ()                # test cells that lose some (not all) points: only < full
    ungradable: bool = False                   # nothing could be graded: a zero record


def submit_cases(course: CourseDir, cases: list[Case]) -> None:
    for case in cases:
        nb = case.build(course, case.student)
        if nb is not None:
            course.submit(case.student, nb)


def controls(course: CourseDir) -> None:
    course.submit("advhonest", key_of(course, "advhonest"))
    course.submit("advwrong", with_solutions(key_of(course, "advwrong"), {"softmax": WRONG_SOFTMAX}))


def full_scores(course: CourseDir) -> dict[str, float]:
    release = course.release("advhonest")
    return {grade_id(c): float(c.metadata.nbgrader["points"]) for c in release.cells if is_test(c)}


def expected_scores(course: CourseDir, zero: tuple[str, ...]) -> dict[str, float]:
    owners = exercise_tests(course.release("advhonest"))
    zeroed = {t for ex in zero for t in owners[ex]}
    return {gid: 0.0 if gid in zeroed else pts for gid, pts in full_scores(course).items()}


def check_case(batch: Batch, case: Case) -> None:
    student = case.student
    got = batch.cells(student)
    if case.like:
        assert got == batch.cells(case.like), f"{student} is not scored like {case.like}"
    else:
        expected = expected_scores(batch.course, case.zero)
        for gid in case.below:
            assert 0 <= got[gid] < full_scores(batch.course)[gid], (student, gid, got[gid])
            expected[gid] = got[gid]
        assert got == expected, student
    told = batch.messages(student) + "\n" + batch.feedback(student)
    for reason in case.reasons:
        assert re.search(reason, told), f"{student}: no {reason!r} in what the student is told:\n{told[:3000]}"
    book = batch.gradebook(student)
    assert book == {gid: got[gid] for gid in book}, f"{student}: gradebook differs from results.json"
    if case.ungradable:
        assert book and all(score == 0 for score in book.values()), book
        assert batch.result(student)["notebooks"][0]["error"] or batch.result(student)["error"]
        assert "Not graded" in batch.feedback(student)


def check_batch(batch: Batch, baseline: Batch) -> None:
    """Honest students as without the hostile ones; nothing left running; every result recorded."""
    for student in HONEST:
        assert batch.cells(student) == baseline.cells(student), student
        assert batch.checks(student) == baseline.checks(student), student
    assert not batch.leftovers, f"left running after the batch: {batch.leftovers}"
    for line in batch.log:
        assert not line["left"], f"left running after {line['student']} was graded: {line['left']}"


# -- where the courses live ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def adv_dir():
    """The courses of this module, outside /tmp: inside the sandbox /tmp is a private tmpfs, so a
    course under the host's /tmp would let a write "succeed" (into that tmpfs) and prove nothing."""
    import shutil
    import tempfile

    base = Path(tempfile.mkdtemp(prefix=f"{MARK}-", dir="/var/tmp" if os.access("/var/tmp", os.W_OK) else None))
    yield base
    if not os.environ.get("GKADV_KEEP"):
        shutil.rmtree(base, ignore_errors=True)


# -- the baseline: the honest students alone -----------------------------------------------------

@pytest.fixture(scope="module")
def baseline(adv_dir) -> Batch:
    course = make_course(adv_dir / "baseline", HONEST)
    controls(course)
    return run_batch(course, SMALL)


def test_baseline(baseline):
    """The controls themselves: the key earns everything, the wrong softmax loses exactly softmax's cells."""
    assert baseline.cells("advhonest") == full_scores(baseline.course)
    assert baseline.cells("advwrong") == expected_scores(baseline.course, ("softmax",))
    assert not baseline.leftovers


# == batch 1: cheating the comparison, tampered notebooks, broken files, awkward but honest ==========

PATCH_EVERYTHING = textwrap.dedent('''
    import builtins, math
    import numpy as np
    import numpy.testing

    class _Anything:
        def __eq__(self, other): return True
        def __ne__(self, other): return False
        def __bool__(self): return True

    def _cheat():
        np.allclose = lambda *a, **k: True
        np.isclose = lambda a, b, *r, **k: np.ones(np.broadcast(np.asarray(a), np.asarray(b)).shape, bool)
        np.array_equal = lambda *a, **k: True
        np.testing.assert_allclose = lambda *a, **k: None
        np.testing.assert_array_almost_equal = lambda *a, **k: None
        math.isclose = lambda *a, **k: True
        builtins.abs = lambda x: 0
        builtins.all = lambda x: True
        builtins.AssertionError = type("NeverRaised", (Exception,), {})
        try:
            import pytest
            pytest.approx = lambda *a, **k: _Anything()
            pytest.fail = lambda *a, **k: None
        except Exception:
            pass

    _cheat()
''')

PATCHING_SOFTMAX = textwrap.dedent('''
    def softmax(x, axis=-1):
        _cheat()                                   # again, at call time, in case anything was reset
        return np.asarray(x, dtype=float)          # wrong: the patches are meant to hide it
''')

SNOOP_SOFTMAX = textwrap.dedent('''
    import gc, json, sys

    def _arrays_near(depth=3):
        """Every ndarray reachable from the frames, the modules and the gc's containers."""
        seen, out, todo = set(), [], []
        frame = sys._getframe()
        frames = []
        while frame is not None:
            frames.append(frame.f_code.co_name)
            todo += list(frame.f_locals.values()) + list(frame.f_globals.values())
            frame = frame.f_back
        for mod in list(sys.modules.values()):
            todo += list(getattr(mod, "__dict__", {}).values())
        todo += gc.get_objects()
        while todo:
            obj = todo.pop()
            if id(obj) in seen:
                continue
            seen.add(id(obj))
            if isinstance(obj, np.ndarray):
                out.append(obj)
            elif isinstance(obj, (list, tuple, set)) and len(seen) < 2_000_000:
                todo += [o for o in obj if isinstance(o, (np.ndarray, list, tuple, dict))]
            elif isinstance(obj, dict) and len(seen) < 2_000_000:
                todo += [o for o in obj.values() if isinstance(o, (np.ndarray, list, tuple, dict))]
        return frames, out

    def softmax(x, axis=-1):
        x = np.asarray(x, dtype=float)
        frames, arrays = _arrays_near()
        candidates = [a for a in arrays if a is not x and a.shape == x.shape and a.dtype.kind == "f"]
        for a in candidates:   # anything that looks like the expected answer: return it
            with np.errstate(all="ignore"):
                if np.all(a >= 0) and np.allclose(np.sum(a, axis=axis), 1.0):
                    return a
        words = ("reference", "autograder", "solution", "gradekit", "grader", "test_softmax", "expected", "check")
        modules = sorted(m for m in sys.modules if any(w in m.lower() for w in words))
        names = sorted({k for f in [sys._getframe()] for k in f.f_globals if "expect" in k.lower()})
        report = {"frames": frames[:12], "modules": modules, "arrays": len(arrays),
                  "same_shape": len(candidates), "names": names}
        raise LookupError("SNOOP " + json.dumps(report))
''')

LYING_SOFTMAX = textwrap.dedent('''
    import os, io, socket

    HOST_MARKER = {host_marker!r}

    class Rigged(np.ndarray):
        def __eq__(self, other): return np.ones(np.shape(self), bool)
        def __ne__(self, other): return np.zeros(np.shape(self), bool)
        def __sub__(self, other): return np.zeros(np.shape(self))
        def __rsub__(self, other): return np.zeros(np.shape(self))
        def __abs__(self): return np.zeros(np.shape(self))
        def __lt__(self, other): return np.ones(np.shape(self), bool)
        def __le__(self, other): return np.ones(np.shape(self), bool)
        def __array_ufunc__(self, *a, **k): return np.zeros(np.shape(self))
        def __array_function__(self, *a, **k): return True

    class Liar:
        """Claims to be an ndarray, equal to anything, with any attribute you ask for."""
        def __init__(self, shape): self.shape_ = shape
        @property
        def __class__(self): return np.ndarray
        def __array__(self, dtype=None, copy=None): return np.full(self.shape_, 0.5)
        def __eq__(self, other): return True
        def __len__(self): return self.shape_[0] if self.shape_ else 1
        def __getattr__(self, name): return lambda *a, **k: True
        def __float__(self): return 1.0

    class Bomb:
        def __reduce__(self):
            return (os.system, (f"touch {{HOST_MARKER}}-reduce",))

    class Lengthy:
        def __len__(self): return 2**62
        def __getitem__(self, i): return 0.5
        def __iter__(self): return iter([0.5] * 3)

    CALLS = [0]

    def softmax(x, axis=-1):
        x = np.asarray(x, dtype=float)
        wrong = x.copy()
        kinds = [
            lambda: wrong.view(Rigged),
            lambda: Liar(x.shape),
            lambda: Bomb(),
            lambda: Lengthy(),
            lambda: np.array(list(wrong.ravel()), dtype=object).reshape(x.shape),
            lambda: np.exp(x) / np.sum(np.exp(x), axis=axis, keepdims=True) + 0j,
            lambda: np.zeros(x.shape, dtype=[("a", "f8"), ("b", "i4")]),
            lambda: wrong.astype(np.longdouble),
            lambda: np.full(x.shape, np.datetime64("2024-01-01")),
            lambda: np.full(x.shape, "0.5"),
            lambda: np.ones((4200, 4200)),                       # 141 MB: over the protocol's cap
            lambda: [[0.5] * 1000 for _ in range(1200)],         # a JSON header over the cap
        ]
        i = CALLS[0] % len(kinds)
        CALLS[0] += 1
        return kinds[i]()
''')

FORGE_SOFTMAX = textwrap.dedent('''
    import io, os, json, stat, struct

    HOST_MARKER = {host_marker!r}

    class Bomb:
        def __reduce__(self):
            return (os.system, (f"touch {{HOST_MARKER}}-forged",))

    def softmax(x, axis=-1):
        """Write a forged reply straight onto the grading socket: an .npy holding a pickle."""
        buf = io.BytesIO()
        np.save(buf, np.array([Bomb()], dtype=object), allow_pickle=True)
        blob = buf.getvalue()
        header = json.dumps({{"ok": True, "value": {{"$nd": 0}}, "blobs": [len(blob)]}}).encode()
        frame = struct.pack(">I", len(header)) + header + blob
        for fd in range(3, 64):
            try:
                if stat.S_ISSOCK(os.fstat(fd).st_mode):
                    os.write(fd, frame)
            except OSError:
                pass
        return np.asarray(x, dtype=float)
''')

FAKE_RESULTS = textwrap.dedent('''
    import json, os, sys
    FAKE = {{"student": {student!r}, "assignment": "self_attention", "score": 20, "notebooks": [],
            "note": "FAKE-RESULTS-{student}"}}
    print("All tests passed")
    print("Hidden tests: 2 / 2 points  FAKE-RESULTS-{student}")
    print(json.dumps(FAKE))
    sys.stderr.write("All tests passed\\n")
    os.write(1, json.dumps({{"ok": True, "value": 1.0}}).encode())
    os.write(2, b"All tests passed FAKE-RESULTS-{student}\\n")
    tried = {{}}
    for path in ["results.json", "/tmp/results.json", {course_results!r}, {course_other!r}, {course_root!r} + "/results.json"]:
        try:
            os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
            with open(path, "w") as fh:
                json.dump(FAKE, fh)
            tried[path] = "written"
        except OSError as exc:
            tried[path] = type(exc).__name__
''')

FAKE_SOFTMAX = textwrap.dedent('''
    def softmax(x, axis=-1):
        print("All tests passed")
        print(json.dumps(FAKE))
        return np.asarray(x, dtype=float)
''')


def _cheat_patch(course, s):
    nb = with_solutions(key_of(course, s), {"softmax": PATCH_EVERYTHING + PATCHING_SOFTMAX})
    return insert_after(nb, "setup", PATCH_EVERYTHING)


def _cheat_snoop(course, s):
    return with_solutions(key_of(course, s), {"softmax": SNOOP_SOFTMAX})


def _host_marker(course, s) -> str:
    return str(course.root.parent / f"{course.root.name}-{s}-pwned")


def _cheat_lying(course, s):
    return with_solutions(key_of(course, s), {"softmax": LYING_SOFTMAX.format(host_marker=_host_marker(course, s))})


def _cheat_forge(course, s):
    return with_solutions(key_of(course, s), {"softmax": FORGE_SOFTMAX.format(host_marker=_host_marker(course, s))})


def _cheat_fake(course, s):
    root = course.root
    fake = FAKE_RESULTS.format(student=s, course_results=str(root / "autograded" / s / ASSIGNMENT / "results.json"),
                               course_other=str(root / "autograded" / "advhonest" / ASSIGNMENT / "results.json"),
                               course_root=str(root))
    nb = with_solutions(key_of(course, s), {"softmax": FAKE_SOFTMAX})
    return insert_after(nb, "setup", fake)


def _wrong(course, s):
    return with_solutions(key_of(course, s), {"softmax": WRONG_SOFTMAX})


def _tamper_edit(course, s):
    nb = _wrong(course, s)
    for gid in ("test_softmax", "test_softmax_stability"):
        cell = cell_by_id(nb, gid)
        cell.source = "pass  # nothing to see here\n"
        cell.metadata.nbgrader["points"] = 99
    cell_by_id(nb, "test_kv_cache").metadata.nbgrader["points"] = 0
    cell_by_id(nb, "setup").source += "\nsoftmax = lambda x, axis=-1: x\n"   # an edited locked cell
    return nb


def _tamper_delete(course, s):
    nb = _wrong(course, s)
    nb.cells = [c for c in nb.cells if not is_test(c)]
    return nb


def _tamper_markdown(course, s):
    nb = _wrong(course, s)
    for i, cell in enumerate(nb.cells):
        if is_test(cell):
            md = nbformat.v4.new_markdown_cell(cell.source, metadata=cell.metadata)
            md.id = cell.id
            nb.cells[i] = md
    return nb


def _tamper_added(course, s):
    nb = _wrong(course, s)
    claims = [("test_bonus", True, False, 100), ("test_softmax", True, False, 50),
              ("softmax", False, True, 0), ("test_weighted_sum", True, False, 7)]
    for gid, grade, solution, points in claims:
        nb.cells.append(nbformat.v4.new_code_cell(
            "def softmax(x, axis=-1):\n    return np.zeros(np.shape(x))\n" if solution else "pass\n",
            metadata={"nbgrader": {"grade": grade, "solution": solution, "locked": False,
                                   "grade_id": gid, "points": points, "schema_version": 3}}))
    return nb


def _tamper_ids(course, s):
    nb = _wrong(course, s)
    for i, cell in enumerate(nb.cells):
        cell.id = "setup" if i % 3 == 0 else f"x{i}"             # duplicate and changed cell ids
    cell_by_id(nb, "test_softmax").metadata.nbgrader["grade_id"] = "softmax"   # a second "softmax" cell
    cell_by_id(nb, "test_weighted_sum").metadata.nbgrader["grade_id"] = "test_softmax"  # a test cell renamed
    return nb


def _tamper_renamed_solution(course, s):
    nb = key_of(course, s)
    cell_by_id(nb, "weighted_sum").metadata.nbgrader["grade_id"] = "weighted_sum_v2"
    return nb


def _tamper_outputs(course, s):
    nb = _wrong(course, s)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.execution_count = 7
            cell.outputs = [nbformat.v4.new_output("stream", name="stdout",
                                                   text=f"Hidden tests: 99 / 2 points FAKE-OUTPUT-{s}\n"),
                            nbformat.v4.new_output("execute_result", data={"text/plain": "'all passed'"},
                                                   execution_count=7)]
    nb.metadata["gradekit"] = {"notes": [f"FAKE-OUTPUT-{s}"]}
    nb.metadata["nbgrader"] = {"score": 20}
    return nb


def _tamper_stripped(course, s):
    nb = _wrong(course, s)
    for cell in nb.cells:
        cell.metadata = {}
    nb.metadata = {}
    return nb


def _write_raw(content):
    def build(course, s):
        course.submit(s, content(course, s) if callable(content) else content)
    return build


def _truncated(course, s):
    text = nbformat.writes(key_of(course, s))
    return text[: len(text) * 2 // 3]


def _v3(course, s):
    v3 = nbformat.v3.new_notebook(worksheets=[nbformat.v3.new_worksheet(cells=[
        nbformat.v3.new_code_cell(input=WRONG_SOFTMAX)])])
    return nbformat.writes(v3, version=3)


def _huge(course, s):
    """A valid notebook followed by ~100 MB of (sparse) padding."""
    path = course.submission_path(s)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(nbformat.writes(key_of(course, s)))
    with open(path, "r+b") as fh:
        fh.truncate(100 << 20)
        fh.seek((100 << 20) - 1)
        fh.write(b" ")


def _no_notebook(course, s):
    folder = course.submission_path(s).parent
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "README.txt").write_text("I forgot to attach it\n")


def _wrong_name(course, s):
    folder = course.submission_path(s).parent
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "my_homework.ipynb").write_text(nbformat.writes(key_of(course, s)))


NOISY = textwrap.dedent('''
    import warnings, sys, itertools, functools, collections, json, re, math as _m
    from typing import Sequence

    def _announce(name):
        warnings.warn(f"{name} is using a helper", UserWarning)
        warnings.warn("deprecated style", DeprecationWarning)
        print(f"calling {name}", file=sys.stderr)
        sys.stderr.write("stderr noise\\n")
''')


def _noisy_solutions(course, s) -> dict[str, str]:
    key = key_of(course, s)
    out = {}
    for cell in key.cells:
        gid = grade_id(cell)
        if gid in ("project_qkv", "scaled_scores", "softmax", "weighted_sum", "self_attention"):
            # rename the student's function to a helper and wrap it noisily
            source = cell.source.replace(f"def {gid}(", f"def _{gid}_impl(", 1)
            out[gid] = source + textwrap.dedent(f'''

                @functools.wraps(_{gid}_impl)
                def {gid}(*args, **kwargs):
                    _announce("{gid}")
                    return _{gid}_impl(*args, **kwargs)
            ''')
    return out


def _awkward_noisy(course, s):
    nb = with_solutions(key_of(course, s), _noisy_solutions(course, s))
    nb = insert_after(nb, "setup", NOISY, "print('extra cell'); _ = [i * i for i in range(1000)]")
    nb.cells.insert(3, nbformat.v4.new_markdown_cell("## my notes\nsome *markdown* the student added"))
    nb.cells.append(nbformat.v4.new_code_cell("import warnings\nwarnings.warn('the end')\nprint('done')\n"))
    return nb


def _awkward_slow(course, s):
    sources = known_sources("correct/loops")
    slow = {k: v for k, v in sources.items()}
    slow["softmax"] = sources["softmax"] + textwrap.dedent('''
        _plain_softmax = softmax

        def softmax(x, axis=-1):
            total = 0
            for i in range(30_000):      # slow, but well within the limits
                total += i
            return _plain_softmax(x, axis)
    ''')
    return with_solutions(key_of(course, s), slow)


CHEATS = [
    Case("cheat-patch", _cheat_patch, like="advwrong"),
    Case("cheat-snoop", _cheat_snoop, like="advwrong", reasons=(r"SNOOP",)),
    Case("cheat-lying", _cheat_lying, like="advwrong",
         reasons=(r"cannot cross", r"too large|over the limit", r"ProtocolError|UnsendableValue")),
    Case("cheat-forge", _cheat_forge, like="advwrong", reasons=(r"ProtocolError|bad array",)),
    Case("cheat-fake", _cheat_fake, like="advwrong"),
    Case("tamper-edit", _tamper_edit, like="advwrong", reasons=(r"3 read-only cell\(s\) differ from your own notebook",)),
    Case("tamper-delete", _tamper_delete, like="advwrong"),
    Case("tamper-markdown", _tamper_markdown, like="advwrong", reasons=(r"test_softmax",)),
    Case("tamper-added", _tamper_added, like="advwrong", reasons=(r"test_bonus.*counts for nothing",)),
    Case("tamper-ids", _tamper_ids, like="advwrong", reasons=(r"second cell with grade_id 'softmax'",)),
    Case("tamper-outputs", _tamper_outputs, like="advwrong"),
    Case("tamper-stripped", _tamper_stripped, like="advwrong", reasons=(r"lost their nbgrader metadata",)),
    Case("broken-truncated", _write_raw(_truncated), ungradable=True,
         reasons=(r"not valid JSON.*truncated",)),
    Case("broken-notnb", _write_raw('{"name": "not a notebook", "cells2": []}'), ungradable=True,
         reasons=(r"not a Jupyter notebook",)),
    Case("broken-empty", _write_raw(b""), ungradable=True, reasons=(r"empty",)),
    Case("broken-binary", _write_raw(bytes(range(256)) * 64), ungradable=True, reasons=(r"binary",)),
    Case("broken-v3", _write_raw(_v3), ungradable=True, reasons=(r"format 3.*format 4",)),
    Case("broken-huge", _huge, ungradable=True, reasons=(r"100 MiB is over the 20 MiB limit",)),
    Case("broken-nonb", _no_notebook, ungradable=True, reasons=(r"no notebook named self_attention.ipynb.*README.txt",)),
    Case("broken-wrongname", _wrong_name, ungradable=True, reasons=(r"my_homework.ipynb",)),
    Case("awkward-noisy", _awkward_noisy),
    Case("awkward-slow", _awkward_slow),
]
ALL_EXERCISES = ("project_qkv", "scaled_scores", "softmax", "weighted_sum", "self_attention", "kv_cache")
for _case in CHEATS:
    if _case.ungradable:
        _case.zero = ALL_EXERCISES


OPEN_CHEATS = [Case("tamper-renamed", _tamper_renamed_solution)]   # see the xfail below


@pytest.fixture(scope="module")
def cheats(adv_dir) -> Batch:
    students = list(HONEST) + [c.student for c in CHEATS + OPEN_CHEATS]
    course = make_course(adv_dir / "cheats", students)
    controls(course)
    submit_cases(course, CHEATS + OPEN_CHEATS)
    batch = run_batch(course, ROOMY)
    return batch


@pytest.mark.parametrize("case", CHEATS, ids=[c.student for c in CHEATS])
def test_cheats_tampering_and_broken_files(cheats, case):
    check_case(cheats, case)


def test_cheats_batch_is_contained(cheats, baseline):
    check_batch(cheats, baseline)


def test_renamed_solution_cell_keeps_its_code(cheats):
    assert cheats.cells("tamper-renamed") == full_scores(cheats.course)


def _told(batch: Batch, student: str) -> str:
    return batch.messages(student) + "\n" + batch.feedback(student)


def test_snooping_finds_no_grader_and_no_expected_values(cheats):
    """Frames, modules and the gc of the student's process hold nothing of the graders'."""
    told = _told(cheats, "cheat-snoop")
    reports = [json.loads(m) for m in re.findall(r"SNOOP (\{.*?\})(?= \(line|\n|$)", told)]
    assert reports, told[:2000]
    for report in reports:
        assert report["frames"][-3:] == ["serve", "main", "<module>"]   # the worker's own frames only
        assert report["arrays"] > 0                                      # the search did work
        found = [m for m in report["modules"] if re.search(r"reference|autograder|solution|test_|graders", m)]
        assert not found, found
    # and what it found was never an answer: softmax earned nothing (checked against the control above)
    assert cheats.cells("cheat-snoop")["test_softmax"] == 0


def test_pickles_are_never_loaded(cheats):
    for student, suffix in (("cheat-lying", "-reduce"), ("cheat-forge", "-forged")):
        marker_file = Path(_host_marker(cheats.course, student) + suffix)
        assert not marker_file.exists(), f"{student}'s pickle ran on the host"
    assert "allow_pickle=False" in _told(cheats, "cheat-forge")


def test_fake_results_are_not_read(cheats):
    """Printed and written fake results change nothing; the course's results.json stay gradekit's."""
    needle = b'"note": "FAKE-RESULTS-cheat-fake"'
    for path in cheats.course.root.rglob("*"):
        if path.is_file() and path.stat().st_size < 5 << 20:
            assert needle not in path.read_bytes(), path
    for path in (Path("/tmp/results.json"), Path(os.path.expanduser("~/results.json"))):
        assert not path.exists() or needle not in path.read_bytes()
    result = cheats.result("cheat-fake")
    assert result["student"] == "cheat-fake" and result["notebooks"][0]["cells"]
    assert sum(cheats.cells("cheat-fake").values()) < 20


def test_prefilled_outputs_do_not_survive(cheats):
    graded = (cheats.course.root / "autograded" / "tamper-outputs" / ASSIGNMENT / f"{NOTEBOOK}.ipynb").read_text()
    assert "FAKE-OUTPUT" not in graded and "99 / 2" not in graded
    assert "FAKE-OUTPUT" not in cheats.feedback("tamper-outputs")
    nb = nbformat.reads(graded, as_version=4)
    outputs = [o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    assert outputs and all(text.startswith("Hidden tests:") for text in outputs)


# == batch 2: breaking the run ===================================================================

def _key_sources(course, s) -> dict[str, str]:
    return {grade_id(c): c.source for c in key_of(course, s).cells if grade_id(c)}


def _wrapped(course, s, name: str, before: str, after: str = "") -> dict[str, str]:
    """The key's function ``name``, renamed, behind a wrapper running ``before`` first."""
    source = _key_sources(course, s)[name].replace(f"def {name}(", f"def _{name}_impl(", 1)
    body = textwrap.indent(textwrap.dedent(before).strip(), "    ")
    return {name: source + f"\n\ndef {name}(*args, **kwargs):\n{body}\n    return _{name}_impl(*args, **kwargs)\n"
            + after}


def _solutions(course, s, **replace: str) -> nbformat.NotebookNode:
    return with_solutions(key_of(course, s), replace)


def _exit_top(course, s):
    return insert_after(key_of(course, s), "setup", "import sys\nsys.exit(3)\n", "raise SystemExit('bye')\n",
                        "raise KeyboardInterrupt\n", "import os\nos._exit(7)\n")


def _exit_func(course, s):
    nb = key_of(course, s)
    nb = with_solutions(nb, _wrapped(course, s, "project_qkv", "raise SystemExit('bye')"))
    nb = with_solutions(nb, _wrapped(course, s, "scaled_scores", "raise KeyboardInterrupt"))
    nb = with_solutions(nb, _wrapped(course, s, "softmax", "import sys\nsys.exit(0)"))
    return with_solutions(nb, _wrapped(course, s, "weighted_sum", "import os\nos._exit(3)"))


def _hang_top(course, s):
    return insert_after(key_of(course, s), "setup", "while True:\n    pass\n")


def _hang_func(course, s):
    nb = with_solutions(key_of(course, s), _wrapped(course, s, "softmax", "while True:\n    pass"))
    return with_solutions(nb, _wrapped(course, s, "weighted_sum", "import time\ntime.sleep(3600)"))


HANGING_APPEND = textwrap.dedent('''
    class KVCache:
        def __init__(self):
            self.rows = []

        def append(self, k, v):
            while True:
                pass

        @property
        def keys(self):
            return np.array([k for k, _ in self.rows])

        @property
        def values(self):
            return np.array([v for _, v in self.rows])

        def __len__(self):
            return len(self.rows)
''')


def _hang_method(course, s):
    source = _key_sources(course, s)["kv_cache"]
    decode = source[source.index("def decode_step("):]
    return _solutions(course, s, kv_cache=HANGING_APPEND + "\n\n" + decode)


def _mem_top(course, s):
    return insert_after(key_of(course, s), "setup", "hog = bytearray(10**10)\n", "big = np.zeros((10**6, 10**5))\n",
                        "grow = []\nwhile True:\n    grow.append(bytearray(10**8))\n")


def _mem_func(course, s):
    nb = with_solutions(key_of(course, s), _wrapped(course, s, "softmax", "hog = bytearray(10**10)"))
    nb = with_solutions(nb, _wrapped(course, s, "weighted_sum", "big = np.zeros((10**6, 10**5))"))
    return with_solutions(nb, _wrapped(course, s, "scaled_scores",
                                       "grow = []\nwhile True:\n    grow.append(bytearray(10**8))"))


FILL = textwrap.dedent('''
    import os, itertools

    def _fill(prefix):
        """Write 8 MiB files into /tmp until it is full."""
        for i in itertools.count():
            with open(f"/tmp/{prefix}{i}", "wb") as fh:
                for _ in range(8):
                    fh.write(b"\\0" * (1 << 20))

    _fill("top")
''')


def _disk_full(course, s):
    nb = insert_after(key_of(course, s), "setup", FILL)
    return with_solutions(nb, _wrapped(course, s, "weighted_sum", "_fill('ws')"))


def _flood_top(course, s):
    return insert_after(key_of(course, s), "setup", "for i in range(10**7):\n    print(i)\n",
                        "import sys\nfor i in range(10**6):\n    sys.stderr.write('x' * 100)\n")


def _flood_func(course, s):
    return with_solutions(key_of(course, s), _wrapped(
        course, s, "softmax", "import sys, os\nfor i in range(10**4):\n    print('noise', i)\n"
        "sys.stderr.write('e' * 10**5)\nos.write(1, b'x' * 10**5)"))


SPAWN = textwrap.dedent('''
    import os, subprocess, sys, signal

    M = {marker!r}
    SPAWNED = []

    def _spawn(tag):
        quiet = dict(stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        # a detached child in a session of its own
        SPAWNED.append(subprocess.Popen([f"{{M}}-{{tag}}-popen", "3600"], executable="/usr/bin/sleep",
                                        start_new_session=True, **quiet).pid)
        # one that ignores the polite signals
        SPAWNED.append(subprocess.Popen([sys.executable, "-c", "import signal, time\\n"
                                         "for s in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):\\n"
                                         "    signal.signal(s, signal.SIG_IGN)\\n"
                                         "time.sleep(3600)", f"{{M}}-{{tag}}-stubborn"],
                                        start_new_session=True, **quiet).pid)
        # setsid + fork, then a classic double-fork daemon
        pid = os.fork()
        if pid == 0:
            try:
                os.setsid()
                if os.fork() == 0:
                    os.execv("/usr/bin/sleep", [f"{{M}}-{{tag}}-daemon", "3600"])
            finally:
                os._exit(0)
        os.waitpid(pid, 0)
        pid = os.fork()
        if pid == 0:
            try:
                os.setsid()
                os.execv("/usr/bin/sleep", [f"{{M}}-{{tag}}-setsid", "3600"])
            finally:
                os._exit(0)
        SPAWNED.append(pid)

    def _running():
        count = 0
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    if M.encode() in open(f"/proc/{{entry}}/cmdline", "rb").read():
                        count += 1
                except OSError:
                    pass
        return count

    _spawn("top")
''')


def _spawn(course, s):
    nb = insert_after(key_of(course, s), "setup", SPAWN.format(marker=marker(s, "p")))
    nb = with_solutions(nb, _wrapped(course, s, "softmax", "if len(SPAWNED) < 8:\n    _spawn('call')"))
    nb.cells.append(nbformat.v4.new_code_cell("raise RuntimeError(f'SPAWNED {_running()} RUNNING')\n"))
    return nb


FORK_BOMB = textwrap.dedent('''
    import os

    def _bomb():
        while True:
            try:
                os.fork()
            except OSError:
                pass
''')


def _fork_bomb(course, s):
    nb = insert_after(key_of(course, s), "setup", FORK_BOMB, "_bomb()\n")
    return with_solutions(nb, _wrapped(course, s, "weighted_sum", "_bomb()"))


BREAKERS = [
    Case("exit-top", _exit_top, reasons=(r"SystemExit", r"KeyboardInterrupt", r"exited with status 7")),
    Case("exit-func", _exit_func, zero=("project_qkv", "scaled_scores", "softmax", "weighted_sum"),
         reasons=(r"raised SystemExit: bye", r"raised KeyboardInterrupt", r"SystemExit: 0",
                  r"exited with status 3")),
    Case("hang-top", _hang_top, reasons=(r"Timeout.*skipped",)),
    Case("hang-func", _hang_func, zero=("softmax", "weighted_sum"),
         reasons=(r"`softmax` did not finish", r"`weighted_sum` did not finish", r"timed out on an earlier check")),
    Case("hang-method", _hang_method, zero=("kv_cache",), below=("test_kv_cache",),
         reasons=(r"did not finish: no answer within",)),
    Case("mem-top", _mem_top, reasons=(r"MemoryError",)),
    Case("mem-func", _mem_func, zero=("softmax", "weighted_sum", "scaled_scores"),
         reasons=(r"`softmax` raised MemoryError", r"`weighted_sum` raised (MemoryError|_ArrayMemoryError)",
                  r"`scaled_scores` (raised MemoryError|did not finish)")),
    Case("disk-full", _disk_full, zero=("weighted_sum",), reasons=(r"No space left on device",)),
    Case("flood-top", _flood_top),
    Case("flood-func", _flood_func),
    Case("spawn", _spawn, reasons=(r"SPAWNED \d+ RUNNING",)),
    Case("fork-bomb", _fork_bomb, zero=("weighted_sum",), reasons=(r"`weighted_sum` did not finish",)),
]


@pytest.fixture(scope="module")
def breakers(adv_dir) -> Batch:
    students = list(HONEST) + [c.student for c in BREAKERS]
    course = make_course(adv_dir / "breakers", students)
    controls(course)
    submit_cases(course, BREAKERS)
    return run_batch(course, SMALL)


@pytest.mark.parametrize("case", BREAKERS, ids=[c.student for c in BREAKERS])
def test_breaking_the_run(breakers, case):
    check_case(breakers, case)


def test_breakers_batch_is_contained(breakers, baseline):
    check_batch(breakers, baseline)


def test_spawned_processes_ran_and_were_killed(breakers):
    """The spawner's processes were alive while its cells ran, and gone once it was graded."""
    count = int(re.search(r"SPAWNED (\d+) RUNNING", _told(breakers, "spawn")).group(1))
    assert count >= 4
    lines = [line for line in breakers.log if line["student"] == "spawn"]
    assert lines and not lines[0]["left"]


def test_breakers_batch_time_is_bounded(breakers):
    """Each hang costs a few limits' worth of seconds, not more."""
    per_student = {s: breakers.result(s)["seconds"] for s in [c.student for c in BREAKERS] + list(HONEST)}
    limit = SMALL["notebook_budget"] + 4 * SMALL["cell_timeout"]
    assert all(t < limit for t in per_student.values()), per_student


def test_hanging_methods_respect_the_grading_budget(adv_dir):
    """Calls on a student's objects are guarded like functions: a hanging method times out once,
    and the notebook's grading budget bounds the rest."""
    course = make_course(adv_dir / "budget", ("hang-method",))
    course.submit("hang-method", _hang_method(course, "hang-method"))
    limits = dict(cell_timeout=6.0, call_timeout=3.0, notebook_budget=4.0)
    batch = run_batch(course, limits, jobs=1)
    assert not batch.leftovers
    seconds = batch.result("hang-method")["seconds"]
    # one run of the cells, the budget, and one call that started just before the budget ran out
    assert seconds < limits["cell_timeout"] + limits["notebook_budget"] + limits["call_timeout"] + 2, seconds


# == batch 3: reaching out ===========================================================================

FILE_SECRET = "gkadv-file-secret-5d1c0e7a9b"

SCAN = textwrap.dedent('''
    import json, os, stat, sys

    NEEDLES = {needles!r}          # what must not be found: name -> text
    PATHS = {paths!r}              # host paths to open directly
    SYSTEM = ("/usr/", "/opt/venv/", {base!r} + "/")

    def _hits(text, where, hits):
        for key, needle in NEEDLES.items():
            if needle in text and len(hits.setdefault(key, [])) < 3:
                hits[key].append(where[:100])

    def _scan():
        report = {{"dirs": 0, "files": 0, "read": 0, "proc": 0, "hits": {{}}, "opened": [], "env": sorted(os.environ)}}
        hits = report["hits"]
        for root, dirs, files in os.walk("/", onerror=lambda e: None):
            if root in ("/proc", "/sys", "/dev"):
                dirs[:] = []
                continue
            report["dirs"] += 1
            for name in dirs + files:
                _hits(os.path.join(root, name), "path " + os.path.join(root, name), hits)
            for name in files:
                report["files"] += 1
                path = os.path.join(root, name)
                if path.startswith(SYSTEM):
                    continue
                try:
                    if stat.S_ISREG(os.lstat(path).st_mode) and os.path.getsize(path) < 1 << 20:
                        with open(path, "rb") as fh:
                            _hits(fh.read().decode("latin-1"), "file " + path, hits)
                        report["read"] += 1
                except OSError:
                    pass
        # /proc: every process we can see, and the mounts
        for entry in os.listdir("/proc"):
            if entry.isdigit() or entry in ("self", "thread-self"):
                for leaf in ("cmdline", "environ", "mountinfo", "status", "cgroup", "cwd", "root", "exe"):
                    path = f"/proc/{{entry}}/{{leaf}}"
                    try:
                        text = os.readlink(path) if leaf in ("cwd", "root", "exe") else \\
                            open(path, "rb").read().decode("latin-1")
                    except OSError:
                        continue
                    report["proc"] += 1
                    _hits(text, path, hits)
        for path in ("/proc/mounts", "/proc/cmdline", "/proc/net/tcp", "/proc/net/unix"):
            try:
                _hits(open(path, "rb").read().decode("latin-1"), path, hits)
            except OSError:
                pass
        _hits(json.dumps(dict(os.environ)), "environ", hits)
        for path in PATHS:
            try:
                with open(path, "rb") as fh:
                    fh.read(10)
                report["opened"].append(path)
            except OSError:
                pass
        return report

    REPORT = _scan()
''')

SCAN_SOFTMAX = textwrap.dedent('''
    def softmax(x, axis=-1):
        raise LookupError("REACH " + json.dumps(REPORT))
''')

NET_SOFTMAX = textwrap.dedent('''
    import json, socket

    TARGETS = {targets!r}

    def _try(kind, host, port):
        try:
            if kind == "tcp":
                s = socket.create_connection((host, port), timeout=2)
                s.sendall(b"hello from the sandbox")
                s.close()
                return "connected"
            if kind == "udp":
                s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
                s.sendto(b"hello from the sandbox", (host, port))
                return "sent"
            if kind == "unix":
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                s.settimeout(2)
                s.connect(host)
                return "connected"
            if kind == "dns":
                return "resolved " + str(socket.getaddrinfo(host, port)[0][4])
        except OSError as exc:
            return f"failed: {{type(exc).__name__}}"

    def softmax(x, axis=-1):
        raise LookupError("NET " + json.dumps({{f"{{k}} {{h!r}}:{{p}}": _try(k, h, p) for k, h, p in TARGETS}}))
''')

WRITE = textwrap.dedent('''
    import json, os

    TARGETS = {targets!r}
    PROC_WRITES = {proc_writes!r}

    def _attack():
        out = {{}}
        for path in TARGETS:
            results = []
            for action in ("write", "append", "mkdir", "chmod", "utime", "unlink", "rename"):
                try:
                    if action == "write" and not os.path.isdir(path):
                        with open(path + ("" if os.path.exists(path) else ""), "w") as fh:
                            fh.write("PWNED by the sandbox")
                    elif action == "append":
                        with open(path, "a") as fh:
                            fh.write("PWNED")
                    elif action == "mkdir":
                        os.makedirs(os.path.join(os.path.dirname(path), "pwned-dir"))
                    elif action == "chmod":
                        os.chmod(path, 0o777)
                    elif action == "utime":
                        os.utime(path, (0, 0))
                    elif action == "unlink":
                        os.unlink(path)
                    elif action == "rename":
                        os.rename(path, path + ".moved")
                    else:
                        continue
                    results.append(action)
                except OSError:
                    pass
            out[path] = results
        return out

    WRITES = _attack()
    for root, dirs, files in os.walk("/proc"):          # every kernel file that opens for writing
        top = root.split("/")[2] if root.count("/") >= 2 else ""
        if top.isdigit() or top in ("self", "thread-self", "pressure"):
            dirs[:] = []
            continue
        for name in files:
            try:
                os.close(os.open(os.path.join(root, name), os.O_WRONLY | os.O_NONBLOCK))
                WRITES[os.path.join(root, name)] = ["open for writing"]
            except OSError:
                pass
    for path, value in PROC_WRITES.items():
        try:
            with open(path, "w") as fh:
                fh.write(value)
            WRITES[path] = ["write"]
        except OSError:
            pass

    def softmax(x, axis=-1):
        done = {{p: r for p, r in WRITES.items() if r}}
        raise LookupError("WRITES " + json.dumps(done))
''')


def _outbound_ip() -> str | None:
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("192.0.2.254", 9))
            ip = s.getsockname()[0]
            return None if ip.startswith("127.") else ip
    except OSError:
        return None


@dataclass
class Listeners:
    tcp: socket.socket
    tcp_any: socket.socket
    udp: socket.socket
    abstract: socket.socket
    abstract_name: str

    def received(self) -> list[str]:
        got = []
        for server in (self.tcp, self.tcp_any, self.abstract):
            server.setblocking(False)
            try:
                conn, addr = server.accept()
                got.append(f"{server.getsockname()} accepted {addr}")
                conn.close()
            except (BlockingIOError, OSError):
                pass
        self.udp.setblocking(False)
        try:
            data, addr = self.udp.recvfrom(100)
            got.append(f"udp got {data!r} from {addr}")
        except (BlockingIOError, OSError):
            pass
        return got

    def close(self) -> None:
        for s in (self.tcp, self.tcp_any, self.udp, self.abstract):
            s.close()


def _listeners() -> Listeners:
    tcp = socket.socket()
    tcp.bind(("127.0.0.1", 0))
    tcp.listen(8)
    tcp_any = socket.socket()
    tcp_any.bind(("0.0.0.0", 0))
    tcp_any.listen(8)
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.bind(("127.0.0.1", 0))
    name = f"{MARK}-{os.getpid()}-{time.monotonic_ns()}"
    abstract = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    abstract.bind("\0" + name)
    abstract.listen(8)
    return Listeners(tcp, tcp_any, udp, abstract, name)


def _course_digest(root: Path) -> dict[str, str]:
    """Content and metadata of everything in the course that grading must not change."""
    out = {}
    generated = ("autograded", "feedback", ".hypothesis")    # written by gradekit and the graders
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if rel.parts[0] in generated or rel.name.startswith("gradebook.db") or rel.suffix == ".lock":
            continue
        st = path.lstat()
        if path.is_dir():   # a new entry shows up as a new key; the mtime changes with the lock file
            out[str(rel)] = f"dir {st.st_mode:o}"
            continue
        out[str(rel)] = f"{hashlib.sha256(path.read_bytes()).hexdigest()} {st.st_mode:o} {st.st_mtime_ns}"
    return out


def _host_file_digest(paths) -> dict[str, str]:
    out = {}
    for path in paths:
        p = Path(path)
        out[str(p)] = f"{hashlib.sha256(p.read_bytes()).hexdigest()} {p.stat().st_mtime_ns} {p.stat().st_mode:o}" \
            if p.exists() else "absent"
    return out


@dataclass
class Reach:
    batch: Batch
    listeners: Listeners
    received: list[str]
    digest_before: dict[str, str]
    digest_after: dict[str, str]
    host_before: dict[str, str]
    host_after: dict[str, str]
    host_markers: list[Path]
    hostname: str


@pytest.fixture(scope="module")
def reach(adv_dir) -> Reach:
    students = list(HONEST) + ["reach-fs", "reach-net", "reach-write"]
    course = make_course(adv_dir / "reach", students)
    root = course.root
    (root / ".gradekit").mkdir(exist_ok=True)
    (root / ".gradekit" / "secret").write_text(FILE_SECRET + "\n")   # present, though the env secret wins
    controls(course)
    import gradekit.sandbox.worker as worker_module
    import numpy

    needles = {
        "env secret": SECRET, "file secret": FILE_SECRET, "course path": str(root),
        "course dir": root.parent.name, "other student": "advhonest",
        "hidden test": "Hidden tests for the cell", "hidden test file": "test_kv_cache_decode",
        "reference": "Reference implementations for the self-attention",
        "repository": str(Path(__file__).resolve().parents[2]),   # a course directory too (README)
    }
    paths = [str(root / ".gradekit" / "secret"), str(root / "autograder" / ASSIGNMENT / "test_softmax.py"),
             str(root / "solutions" / ASSIGNMENT / "reference.py"), str(root / "gradebook.db"),
             str(course.submission_path("advhonest")), str(root / "nbgrader_config.py"),
             str(Path(__file__).resolve().parents[2] / "solutions" / ASSIGNMENT / "reference.py"),
             "/root/.bash_history", "/etc/shadow"]
    nb = insert_after(key_of(course, "reach-fs"), "setup",
                      SCAN.format(needles=needles, paths=paths, base=sys.base_prefix))
    course.submit("reach-fs", with_solutions(nb, {"softmax": SCAN_SOFTMAX}))

    listeners = _listeners()
    targets = [("tcp", "127.0.0.1", listeners.tcp.getsockname()[1]),
               ("udp", "127.0.0.1", listeners.udp.getsockname()[1]),
               ("tcp", "localhost", listeners.tcp.getsockname()[1]),
               ("unix", "\0" + listeners.abstract_name, 0),
               ("tcp", "1.1.1.1", 53), ("tcp", "8.8.8.8", 443), ("dns", "example.com", 80)]
    outbound = _outbound_ip()
    if outbound:
        targets.append(("tcp", outbound, listeners.tcp_any.getsockname()[1]))
    course.submit("reach-net", with_solutions(key_of(course, "reach-net"),
                                              {"softmax": NET_SOFTMAX.format(targets=targets)}))

    token = f"{MARK}-{os.getpid()}"
    host_markers = [Path("/tmp") / f"{token}-host-tmp", Path.home() / f"{token}-home", root / f"{token}-root"]
    host_files = [worker_module.__file__, numpy.__file__, os.__file__]
    write_targets = [str(p) for p in host_markers] + [
        str(root / "nbgrader_config.py"), str(root / "autograder" / ASSIGNMENT / "test_softmax.py"),
        str(root / "source" / ASSIGNMENT / "params.py"), str(root / "solutions" / ASSIGNMENT / "reference.py"),
        str(root / "gradebook.db"), str(root / ".gradekit" / "secret"), str(course.submission_path("advhonest")),
        str(root / "release" / "advhonest" / ASSIGNMENT / f"{NOTEBOOK}.ipynb"),
        str(root / "autograded" / "advhonest" / ASSIGNMENT / "results.json"),
        "/opt/gradekit/worker.py", "/opt/gradekit/protocol.py",
        f"/opt/venv/lib/python{sys.version_info[0]}.{sys.version_info[1]}/site-packages/numpy/__init__.py",
        os.__file__, "/usr/bin/env", "/etc/passwd", "/pwned-at-root", "/dev/pwned",
    ]
    # kernel settings: written with their current value, so that nothing changes even if a write got through
    proc_writes = {path: Path(path).read_text() for path in ("/proc/sys/kernel/core_pattern",
                                                             "/proc/sys/kernel/hostname", "/proc/sys/vm/swappiness")
                   if Path(path).exists()}
    nb = insert_after(key_of(course, "reach-write"), "setup",
                      WRITE.format(targets=write_targets, proc_writes=proc_writes))
    course.submit("reach-write", with_solutions(nb, {"softmax": "pass\n"}))

    hostname = socket.gethostname()
    course.configure(**ROOMY)   # the batch's limits: set before the course's files are digested
    digest_before = _course_digest(root)
    host_before = _host_file_digest(host_files + [str(p) for p in host_markers])
    try:
        batch = run_batch(course, None)
        received = listeners.received()
    finally:
        listeners.close()
    return Reach(batch, listeners, received, digest_before, _course_digest(root),
                 host_before, _host_file_digest(host_files + [str(p) for p in host_markers]), host_markers, hostname)


def _report(reach: Reach, student: str, tag: str) -> dict:
    told = reach.batch.messages(student)
    found = re.findall(tag + r" (\{.*?\})(?= \(line|\n|$)", told)
    assert found, told[:2000]
    return json.loads(found[0])


REACHERS = [Case("reach-fs", lambda c, s: None, like="advwrong", reasons=(r"REACH",)),
            Case("reach-net", lambda c, s: None, like="advwrong", reasons=(r"NET",)),
            Case("reach-write", lambda c, s: None, like="advwrong", reasons=(r"WRITES",))]


@pytest.mark.parametrize("case", REACHERS, ids=[c.student for c in REACHERS])
def test_reaching_out_scores(reach, case):
    check_case(reach.batch, case)


def test_reach_batch_is_contained(reach, baseline):
    check_batch(reach.batch, baseline)


def test_filesystem_proc_and_environment_leak_nothing(reach):
    report = _report(reach, "reach-fs", "REACH")
    assert report["files"] > 1000 and report["dirs"] > 100 and report["proc"] > 5   # the search did run
    hits = {k: v for k, v in report["hits"].items() if k != "repository"}
    assert hits == {}, hits
    assert report["opened"] == [], report["opened"]
    assert not any(re.search(r"SECRET|GRADEKIT|COURSE|NBGRADER", name) for name in report["env"]), report["env"]


def test_no_connection_leaves_the_sandbox(reach):
    """The host's listeners (TCP and UDP on 127.0.0.1, TCP on every address, an abstract unix socket) hear nothing."""
    report = _report(reach, "reach-net", "NET")
    assert len(report) >= 7
    for target, outcome in report.items():
        if target.startswith("udp"):
            continue   # a datagram to the sandbox's own loopback "goes"; the host's listener must not get it
        assert outcome.startswith("failed"), (target, outcome)
    assert reach.received == []


def test_writes_outside_the_sandbox_fail_and_change_nothing(reach):
    report = _report(reach, "reach-write", "WRITES")
    # what "worked" landed in the sandbox's own tmpfs (/tmp) or its own UTS namespace (hostname)
    assert set(report) <= {str(reach.host_markers[0]), "/proc/sys/kernel/hostname"}, report
    assert socket.gethostname() == reach.hostname
    assert reach.digest_after == reach.digest_before
    assert reach.host_after == reach.host_before
    for path in reach.host_markers:
        assert not path.exists(), path


@pytest.mark.xfail(Path(sys.prefix).resolve().is_relative_to(Path(__file__).resolve().parents[2]), strict=True, reason=(
    "KNOWN (information leak, low severity), when the venv is inside the course directory: the sandbox "
    "sees the host path of its venv bind mount in /proc/self/mountinfo (gradekit's own worker files are "
    "copied in, not mounted; bwrap's argv arrives through --args). In the README's layout, where the "
    "repository root is the course directory and .venv lives in it, student code learns the course's "
    "host path (not its contents: nothing of it is mounted). A venv elsewhere leaks nothing, and then "
    "this test must pass."))
def test_the_course_path_of_the_repository_does_not_leak(reach):
    report = _report(reach, "reach-fs", "REACH")
    assert "repository" not in report["hits"], report["hits"]["repository"]
