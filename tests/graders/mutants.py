"""Mistakes made automatically from an assignment's own answers, graded, and every sentence checked.

A *mutant* is the answer key's code of one exercise with one thing changed (:func:`mutants`): an
operator (+ for -, * for /, @ for *, < for <=), one operand of a sum or a product left out, a
constant (n for n ± 1, a float doubled or halved), an axis (-1 for 0 ...) or ``keepdims``, a slice,
the order of two arguments or of @'s operands, one input of a function for another, one function for
another (max for min, sum for mean, exp for log, sqrt for square, tril for triu ...), sqrt left out,
``.T`` left out, or the value returned doubled or negated. Every mutant that
still runs is graded as ``gradekit check`` grades a QA set (:func:`grade`: one variant each, packed
with mutants of other exercises, in this process), and what the engine said of it is audited
(:func:`audit`):

* **the verifier** -- each relation said is recomputed (:mod:`gradekit.grading.verify`) on the raw
  values of every failed check of its cell: false on none, true on as many as it says;
* **ground truth** -- the mutant's own code, run here (it is ours, not a student's), gives the values
  the sandbox brought back; and each relation whose meaning is a property of the function (a
  factor, a function of the right values, an order, the right function on changed inputs, where the
  answer is right, what changes ...) still holds on new inputs of the same shapes: a claim that holds
  only on the grader's own numbers was a coincidence;
* a catalogued mistake named is reproduced by the verifier on two inputs, and is the student's
  wherever it was compared.

``tests/graders/test_mutants.py`` runs a sample; ``bench/mutants.py`` all of them, with the share
that stays bare and the cost.
"""

from __future__ import annotations

import ast
import copy
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from gradekit.course import Course
from gradekit.qa import simulate

SWAPS = {
    ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Div, ast.Div: ast.Mult, ast.Pow: ast.Mult, ast.MatMult: ast.Mult,
    ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt,
}
FUNCTIONS = {"max": "min", "min": "max", "sum": "mean", "mean": "sum", "exp": "log", "log": "exp",
             "argmax": "argmin", "tril": "triu", "triu": "tril", "std": "var", "var": "std",
             "maximum": "minimum", "minimum": "maximum", "sqrt": "square", "abs": "negative", "cumsum": "cumprod"}
AXES = {-1: 0, 0: -1, 1: 0, -2: -1, 2: 1}


@dataclass
class Mutant:
    assignment: str
    cell: str  # the solution cell's grade_id
    kind: str  # the operator
    site: str  # where: line and what
    source: str  # the cell's code with the change

    @property
    def label(self) -> str:
        return f"{self.assignment}/{self.cell}/{self.kind}@{self.site}"


def mutants(cell: str, source: str, assignment: str = "") -> Iterator[Mutant]:
    """Every mutant of a cell's code: one change at a time, in the functions (and methods) it defines."""
    tree = ast.parse(source)
    sites = [n for fn in ast.walk(tree) if isinstance(fn, ast.FunctionDef) for n in ast.walk(fn)]
    params = {n.id: _params_of(tree, n) for n in sites if isinstance(n, ast.Name)}
    seen = {ast.unparse(tree)}
    for index, node in enumerate(sites):
        changes = list(_changes(node))
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            for other in params.get(node.id, []):  # one input for another (W_k for W_v)
                if other != node.id:
                    changes.append(("input for input", lambda n, o=other: _set(n, "id", o)))
        for kind, change in changes:
            new = ast.parse(source)  # the same tree afresh: parsing is several times faster than deepcopy
            target = [n for fn in ast.walk(new) if isinstance(fn, ast.FunctionDef) for n in ast.walk(fn)][index]
            if not change(target):
                continue
            try:
                text = ast.unparse(ast.fix_missing_locations(new))
                compile(text, "<mutant>", "exec")
            except (SyntaxError, ValueError, TypeError):
                continue
            if text in seen:
                continue
            seen.add(text)
            yield Mutant(assignment, cell, kind, f"{getattr(node, 'lineno', 0)}:{type(node).__name__}", text)


def pairs(cell: str, source: str, assignment: str = "", count: int = 200, seed: int = 20261204) -> Iterator[Mutant]:
    """Second-order mutants: two changes at once in the cell's code (two slips), ``count`` at most,
    drawn with a fixed seed from the pairs of single changes."""
    import random

    tree = ast.parse(source)
    sites = [n for fn in ast.walk(tree) if isinstance(fn, ast.FunctionDef) for n in ast.walk(fn)]
    options = [(i, k) for i, node in enumerate(sites) for k, _change in enumerate(_changes(node))]
    draw = random.Random(f"{seed}:{cell}")
    seen = {ast.unparse(tree)}
    for _attempt in range(count * 4):
        if len(seen) > count or len(options) < 2:
            return
        (i, a), (j, b) = draw.sample(options, 2)
        if i == j:
            continue
        new = ast.parse(source)
        nodes = [n for fn in ast.walk(new) if isinstance(fn, ast.FunctionDef) for n in ast.walk(fn)]
        try:
            first, second = list(_changes(nodes[i]))[a], list(_changes(nodes[j]))[b]
            if not (first[1](nodes[i]) and second[1](nodes[j])):
                continue
            text = ast.unparse(ast.fix_missing_locations(new))
            compile(text, "<mutant>", "exec")
        except (SyntaxError, ValueError, TypeError, IndexError):
            continue
        if text in seen:
            continue
        seen.add(text)
        yield Mutant(assignment, cell, f"{first[0]} + {second[0]}", f"{i}:{j}", text)


def _params_of(tree: ast.AST, name: ast.Name) -> list[str]:
    """The parameters of the function whose body holds ``name``, when ``name`` is one of them."""
    for fn in ast.walk(tree):
        if isinstance(fn, ast.FunctionDef) and any(n is name for n in ast.walk(fn)):
            args = [a.arg for a in fn.args.args if a.arg != "self"]
            return args if name.id in args else []
    return []


def _changes(node: ast.AST):
    """(kind, a function that changes a copy of ``node`` in place and says whether it did)."""
    if isinstance(node, ast.BinOp) and type(node.op) in SWAPS:
        yield "operator", lambda n: _set(n, "op", SWAPS[type(n.op)]())
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in SWAPS:
        yield "comparison", lambda n: _set(n, "ops", [SWAPS[type(n.ops[0])]()])
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
        if isinstance(node.value, int):
            yield "constant+1", lambda n: _set(n, "value", n.value + 1)
            if node.value != 0:
                yield "constant-1", lambda n: _set(n, "value", n.value - 1)
        else:
            yield "constant*2", lambda n: _set(n, "value", n.value * 2)
    if isinstance(node, ast.keyword) and node.arg == "axis" and isinstance(node.value, ast.Constant):
        value = node.value.value
        if isinstance(value, int) and value in AXES:
            yield "axis", lambda n: _set(n.value, "value", AXES[n.value.value])
    if isinstance(node, ast.keyword) and node.arg == "keepdims":
        yield "keepdims", lambda n: _set(n, "value", ast.Constant(False))
    if isinstance(node, ast.Slice) and (node.lower is not None or node.upper is not None):
        yield "slice", lambda n: _set(n, "lower", None) and _set(n, "upper", None)
    if isinstance(node, ast.Call) and len(node.args) >= 2 and not any(isinstance(a, ast.Starred) for a in node.args):
        yield "argument order", lambda n: _set(n, "args", [n.args[1], n.args[0], *n.args[2:]])
    if isinstance(node, ast.Attribute) and node.attr in FUNCTIONS:
        yield "function", lambda n: _set(n, "attr", FUNCTIONS[n.attr])
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "sqrt" and node.args:
        yield "no sqrt", _unwrap_call
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.Div)):
        yield "left operand only", lambda n: _become(n, n.left)  # a term or a factor left out
        yield "right operand only", lambda n: _become(n, n.right)
    if isinstance(node, ast.Constant) and isinstance(node.value, float) and node.value not in (0.0,):
        yield "constant/2", lambda n: _set(n, "value", n.value / 2)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
        yield "operands", _swapped
    if isinstance(node, ast.Attribute) and node.attr == "T":  # x.T -> x.T.T: no transpose
        yield "no transpose", lambda n: _set(n, "value", ast.Attribute(value=n.value, attr="T", ctx=ast.Load()))
    if isinstance(node, ast.Return) and node.value is not None and not isinstance(node.value, ast.Tuple):
        yield "returned times 2", lambda n: _set(n, "value", ast.BinOp(ast.Constant(2.0), ast.Mult(), n.value))
        yield "returned negated", lambda n: _set(n, "value", ast.UnaryOp(ast.USub(), n.value))


def _set(node: ast.AST, name: str, value: Any) -> bool:
    setattr(node, name, value)
    return True


def _become(node: ast.BinOp, part: ast.expr) -> bool:
    """The expression becomes one of its operands: (a + b) -> (a + 0)... written as ``part * 1``'s
    node, in place (a node of the same place: a BinOp ``part + 0`` for a sum, ``part * 1`` else)."""
    keep = copy.deepcopy(part)
    neutral = 0 if isinstance(node.op, (ast.Add, ast.Sub)) else 1
    node.left, node.right = keep, ast.Constant(neutral)
    node.op = ast.Add() if neutral == 0 else ast.Mult()
    return True


def _swapped(node: ast.BinOp) -> bool:
    node.left, node.right = node.right, node.left
    return True


def _unwrap_call(node: ast.Call) -> bool:
    """np.sqrt(x) -> (x), in place: the call becomes x + 0 (a node of the same place)."""
    inner = node.args[0]
    node.func = ast.Attribute(value=ast.Name("np", ast.Load()), attr="asarray", ctx=ast.Load())
    node.args = [inner]
    return True


# -- grading ---------------------------------------------------------------------------------------


@dataclass
class Seen:
    """What the engine said of one graded cell, with its checks' raw values (before they are dropped)."""

    grade_id: str
    score: float
    points: float
    relations: list
    findings: list
    notes: list[str]
    raws: list  # every failed check's witness, further cases included
    passed: list  # the witnesses of its passing comparisons with known mistakes
    seconds: float  # the weighing and the verifying of this cell
    messages: list[str] = field(default_factory=list)  # its failed checks' own messages
    holds: list[dict] = field(default_factory=list)  # the search's findings on each raw's check


@dataclass
class Graded:
    mutant: Mutant
    cells: dict[str, Seen] = field(default_factory=dict)
    error: str | None = None
    namespace: dict | None = None  # the mutant's notebook, run here (ground truth)


def grade(course_root: Path, assignment: str, chosen: list[Mutant], seed_student: int = 1) -> list[Graded]:
    """Grade mutants on one variant each, packed as ``gradekit check`` packs its mistakes, in this process."""
    from gradekit.authoring.template import AssignmentSource
    from gradekit.authoring.variant import build_variant
    from gradekit.grading import stages
    from gradekit.qa.tasks import Task, grade_tasks
    from gradekit.release.stripper import Stripper

    captured: dict[str, dict[str, Seen]] = {}
    current: dict[str, str] = {}
    original_score, original_diagnose = stages.Score.__call__, stages.diagnose

    def score(self, job):
        current["folder"] = str(Path(job.path).parent) if job.path else ""
        return original_score(self, job)

    def diagnose(cell):
        started = time.perf_counter()
        raws = []
        passed = []
        holds = []  # what the search found on each raw's check (a fitted c: the witness the verifier checks)
        for check in cell.checks:
            evidence = check.evidence or {}
            if not check.passed and evidence.get("raw") is not None:
                raws.append(evidence["raw"])
                holds.append(evidence.get("holds", {}))
            for more in evidence.get("more", []):
                if (more.evidence or {}).get("raw") is not None:
                    raws.append(more.evidence["raw"])
                    holds.append(more.evidence.get("holds", {}))
            passed += evidence.get("passed", [])
        original_diagnose(cell)
        from gradekit.grading.diagnosis import notes

        seen = Seen(cell.grade_id, cell.score or 0.0, cell.points, list(cell.relations), list(cell.findings),
                    [str(n) for n in notes(cell)], raws, passed, time.perf_counter() - started,
                    [str(c.message) for c in cell.checks if not c.passed], holds)
        captured.setdefault(current.get("folder", ""), {})[cell.grade_id] = seen

    os.environ.setdefault("GRADEKIT_SECRET", "gradekit-test-suite-secret")
    out: list[Graded] = []
    stages.Score.__call__, stages.diagnose = score, diagnose
    try:
        with simulate.simulated_course(Course.load(course_root), assignment) as qa:
            source = AssignmentSource.load(qa, assignment)
            student = simulate.students(seed_student)[-1]
            key = {n: Stripper().answer_key(nb) for n, nb in build_variant(qa, source, student).notebooks.items()}
            tests = simulate.exercise_tests(key)
            files = [simulate.QAFile(Path(f"{i:05d}.py"), "mistakes", None, tests[m.cell], {m.cell: m.source})
                     for i, m in enumerate(chosen)]
            by_file = {id(f): m for f, m in zip(files, chosen, strict=True)}
            tasks = []
            for group in simulate.groups(files):
                sections = {g: code for f in group for g, code in f.sections.items()}
                folder = simulate.write_submission(qa.root / "mutants" / f"{len(tasks):05d}", simulate.fill(key, sections))
                tasks.append(Task("+".join(f.label for f in group), student, folder, group))
            outcomes = grade_tasks(qa, assignment, tasks, jobs=1, sandboxed=True, stages=())
            for index, task in enumerate(tasks):
                result = outcomes[index].result
                cells = captured.get(str(task.folder), {})
                for qa_file in task.files:
                    mutant = by_file[id(qa_file)]
                    mine = {g: cells[g] for g in qa_file.breaks if g in cells}
                    others = {g: c for g, c in cells.items() if g not in qa_file.breaks}
                    graded = Graded(mutant, {**mine, **{f"other:{g}": c for g, c in others.items()}}, result.error)
                    graded.namespace = _run_here(key, {mutant.cell: mutant.source})
                    out.append(graded)
    finally:
        stages.Score.__call__, stages.diagnose = original_score, original_diagnose
    return out


def _run_here(key: dict, sections: dict[str, str]) -> dict | None:
    """The mutant's notebook's code cells run in this process (the mutant is ours): its functions."""
    from gradekit.notebook.cells import is_solution

    namespace: dict[str, Any] = {}
    for nb in simulate.fill(key, sections).values():
        for cell in nb.cells:
            if cell.cell_type != "code" or not is_solution(cell):
                continue
            try:
                exec(compile(cell.source, "<cell>", "exec"), namespace)  # noqa: S102 - our own generated code
            except Exception:  # noqa: BLE001 - a cell that fails here says nothing
                continue
    return namespace


def exercise_cells(course_root: Path, assignment: str) -> dict[str, str]:
    """The answer key's code of each exercise (solution cells that the hidden graders call)."""
    from gradekit.authoring.template import AssignmentSource
    from gradekit.authoring.variant import build_variant
    from gradekit.notebook.cells import grade_id, is_solution
    from gradekit.release.stripper import Stripper

    os.environ.setdefault("GRADEKIT_SECRET", "gradekit-test-suite-secret")
    with simulate.simulated_course(Course.load(course_root), assignment) as qa:
        source = AssignmentSource.load(qa, assignment)
        student = simulate.students(1)[0]
        key = {n: Stripper().answer_key(nb) for n, nb in build_variant(qa, source, student).notebooks.items()}
        tests = simulate.exercise_tests(key)
        out = {}
        for nb in key.values():
            for cell in nb.cells:
                gid = grade_id(cell)
                if is_solution(cell) and gid in tests and "def " in cell.source:
                    out[gid] = cell.source
        return out


# -- the audit -------------------------------------------------------------------------------------

# families whose claims are properties of the function, to hold on other inputs of the same shapes (the
# where family's places and the precision's digits depend on the numbers; the step on the grader's loop)
GENERAL = frozenset({"factor", "elementwise", "order", "normalised", "changed", "transformed", "keyword",
                     "pieces", "offset", "input"})


@dataclass
class Problem:
    mutant: str
    cell: str
    what: str


def audit(graded: list[Graded], fresh: int = 2) -> list[Problem]:
    """Every sentence of every graded mutant checked (see the module's docstring)."""
    from gradekit.grading.verify import claims as verify

    problems = []
    rng = np.random.default_rng(20261204)
    for g in graded:
        for cell, seen in g.cells.items():
            for relation in seen.relations:
                for subject in relation.of.split(","):
                    for arg in relation.args:
                        key = f"{subject}|{relation.family}|{arg}"
                        outcomes = [verify.claim(relation.family, arg, subject, raw, found.get(key), relation.details)
                                    for raw, found in zip(seen.raws, seen.holds, strict=True)]
                        true = sum(1 for o in outcomes if o)
                        if any(o is False for o in outcomes):
                            problems.append(Problem(g.mutant.label, cell, f"false on a failed check: {relation}"))
                        if true < min(2, relation.tried):
                            problems.append(Problem(g.mutant.label, cell, f"true on {true} checks, said on "
                                                    f"{relation.tried}: {relation}"))
                        if relation.family in GENERAL or relation.family == "probed":
                            problems += _fresh(g, cell, relation, arg, subject, seen, rng, fresh)
            for raw in seen.raws:
                problems += _transport(g, cell, raw)
            for finding in seen.findings:
                for name in finding.mistakes:
                    hits = {raw.fingerprint() for raw in seen.raws if verify.mistake(name, raw)}
                    against = [raw for raw in seen.raws if verify.mistake(name, raw) is False]
                    answer = not any(raw.call is not None for raw in seen.raws)
                    if (len(hits) < 2 and not answer) or against:
                        problems.append(Problem(g.mutant.label, cell, f"named on {len(hits)} input(s), against on "
                                                f"{len(against)}: {name}"))
    return problems


def _transport(g: Graded, cell: str, raw) -> list[Problem]:
    """The values the sandbox brought back are the mutant's own, run here on the same inputs."""
    call = raw.call
    if call is None or g.namespace is None:
        return []
    name = getattr(call.student, "__name__", "")
    function = g.namespace.get(name)
    if not callable(function) or call.reference is None:
        return []
    try:
        with np.errstate(all="ignore"):
            value = function(*copy.deepcopy(list(call.inputs.values())), **call.keywords)
    except Exception:  # noqa: BLE001 - a function that needs the grader's helpers: not checked here
        return []
    parts = _parts(value, call, len(raw.got))
    if parts is None:
        return []
    for got, mine in zip(raw.got, parts, strict=True):
        if got.shape != mine.shape or not np.allclose(got, mine, rtol=1e-9, atol=1e-12, equal_nan=True):
            return [Problem(g.mutant.label, cell, f"the sandbox's value is not the mutant's own ({name})")]
    return []


def _parts(value, call, count: int):
    if call.part is not None:
        value = [value[call.part]]
    elif count > 1:
        value = list(value)
    else:
        value = [value]
    try:
        return [np.asarray(v, dtype=np.float64) for v in value]
    except (TypeError, ValueError):
        return None


def _fresh(g: Graded, cell: str, relation, arg: str, subject: str, seen: Seen, rng, count: int) -> list[Problem]:
    """The relation on new inputs of the shapes of its checks, with the mutant's own code: a claim true
    only of the grader's numbers was a coincidence."""
    from gradekit.graders.check import Call
    from gradekit.graders.witness import Witness
    from gradekit.grading.verify import claims as verify
    from gradekit.grading.verify.probes import probe_inputs

    problems = []
    for raw in [r for r in seen.raws if r.call is not None][:count]:
        call = raw.call
        function = g.namespace.get(getattr(call.student, "__name__", "")) if g.namespace else None
        if not callable(function) or call.reference is None:
            continue
        inputs = {k: _renewed(v, rng) for k, v in call.inputs.items()}
        try:
            with np.errstate(all="ignore"):
                mine = _parts(function(*copy.deepcopy(list(inputs.values())), **call.keywords), call, len(raw.got))
                right = _parts(call.reference(*list(inputs.values()), **call.keywords), call, len(raw.got))
        except Exception:  # noqa: BLE001 - these inputs do not suit it: nothing to hold it to
            continue
        if mine is None or right is None or all(np.allclose(a, b, equal_nan=True) for a, b in zip(mine, right, strict=True)
                                                if a.shape == b.shape):
            continue  # right here: the claim is about wrong values
        new_call = Call(function, call.reference, inputs, keywords=call.keywords, sizes=call.sizes, part=call.part,
                        returns=call.returns)
        fresh = Witness(mine, right, raw.tol, subjects=list(raw.subjects), whole=raw.whole, call=new_call)
        if relation.family == "probed":
            fresh.asked = _probed_answers(function, new_call, arg, fresh, probe_inputs)
        if fresh.part(subject.split("~", 1)[0]) is None:
            continue
        outcome = verify.claim(relation.family, arg, subject, fresh, None, relation.details)
        if outcome is False:
            problems.append(Problem(g.mutant.label, cell, f"false on new inputs of the same shapes: "
                                    f"{relation.family} {arg}"))
    return problems


def _probed_answers(function, call, arg, witness, probe_inputs) -> list:
    from gradekit.graders.witness import Asked
    from gradekit.grading.verify.basics import Case

    probe = arg.split(":", 1)[1]
    case = Case(witness, witness.whole or (witness.subjects or [""])[0], None, {})
    changes = probe_inputs(probe, case)
    if not changes:
        return []
    args = [changes.get(k, v) for k, v in call.inputs.items()]
    try:
        with np.errstate(all="ignore"):
            parts = _parts(function(*copy.deepcopy(args), **call.keywords), call, len(witness.got))
    except Exception:  # noqa: BLE001
        return []
    return [Asked("probed", args, parts)]


def _renewed(value: Any, rng) -> Any:
    """A float input with new values of its shape and spread; anything else as it was."""
    if isinstance(value, np.ndarray) and value.dtype.kind == "f" and value.size and np.all(np.isfinite(value)):
        spread = float(value.std()) or 1.0
        return float(value.mean()) + spread * rng.standard_normal(value.shape)
    return value


def verdict(g: Graded) -> str:
    """What the engine said of a mutant on its own cells: named, said (a relation), other (more than that
    values differ: a shape, an exception), bare, or missed (no point lost: it gives the right answer)."""
    import re

    mine = [c for k, c in g.cells.items() if not k.startswith("other:")]
    lost = [c for c in mine if c.score < c.points - 1e-9]
    if g.error or not lost:
        return "missed" if not g.error else "error"
    if any(c.findings for c in lost):
        return "named"
    if any(c.relations for c in lost):
        return "said"
    plain = re.compile(r"(values differ from the reference|: wrong value)( \(tolerance [^)]*\))?$")
    messages = [m for c in lost for m in c.messages]
    return "bare" if messages and all(plain.search(m) for m in messages) else "other"
