"""What copy detection reads: each student's own variant, and what each student handed in.

From the variant (rebuilt from the student id with
:func:`gradekit.authoring.variant.build_variant`, solutions kept by
:meth:`gradekit.release.stripper.Stripper.answer_key`, stubs by
:meth:`~gradekit.release.stripper.Stripper.student_version`), a :class:`Personal`:

* the student's personal numbers: every number of the params, in order,
  quantised to 0.001, and the runs of three of them;
* the right answers: literal assignments in the answer key's answer cells
  (``q1_weights = [0.622, 0.378]``, ``q2_choice = "B"``);
* the read-only cells and their nbgrader checksums, as the student received them;
* per answer cell, the k-grams of its stub and of the reference solution:
  code everybody was given, or that the course expects, is no evidence.

From the submission (``submitted/<student>/<assignment>/*.ipynb``, read with
:func:`gradekit.intake.submission.read_notebook`; nothing in it is ever run), a
:class:`Handed`: the answer cells' code, literal answers, the numbers in the
code and in the saved outputs, the read-only cells as handed in, and the
fingerprints of each answer cell.
"""

from __future__ import annotations

import ast
import hashlib
import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
from nbgrader.utils import compute_checksum

from gradekit.authoring.template import AssignmentSource
from gradekit.authoring.variant import build_variant
from gradekit.course import Course
from gradekit.errors import SubmissionError
from gradekit.intake.submission import MAX_NOTEBOOK_BYTES, read_notebook
from gradekit.integrity.fingerprints import all_kgrams, fingerprint
from gradekit.release.stripper import Stripper
from gradekit.untrusted import find_notebook, read_bytes, submission_files

ADDED = "(added cells)"  # the unit of the code cells a student added to a notebook
MAX_OUTPUT_CHARS = 200_000  # of saved outputs read per notebook
_NUMBER = re.compile(r"(?<![\w.])-?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?")

Key = tuple[str, str]  # (notebook, grade_id or variable name)


def quantise(value: float) -> int | None:
    """A number at the precision people copy it with: 0.001 (None for inf/nan and absurd sizes)."""
    if not math.isfinite(value) or abs(value) > 1e12:
        return None
    q = round(value * 1000)
    return 0 if q == 0 else q


def normal_value(value):
    """An answer in a comparable form: numbers quantised, lists as tuples, text stripped and folded."""
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, (int, float)):
        return quantise(float(value))
    if isinstance(value, str):
        return value.strip().casefold()
    if isinstance(value, (list, tuple)):
        return tuple(normal_value(v) for v in value)
    return None


def literal_answers(source: str) -> dict[str, object]:
    """``name = <literal>`` at the top level of a cell: the last assignment of each name wins."""
    try:
        statements = ast.parse(source).body
    except (SyntaxError, ValueError):
        statements = []
        for line in source.splitlines():  # a cell that does not parse: line by line
            try:
                statements += ast.parse(line.strip()).body
            except (SyntaxError, ValueError):
                continue
    found: dict[str, object] = {}
    for node in statements:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            try:
                value = normal_value(ast.literal_eval(node.value))
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                continue
            if value is not None and value != ():
                found[node.targets[0].id] = value
    return found


def numbers_in_params(params) -> list[int]:
    """Every number of the params, depth first in their own order, quantised."""
    out: list[int] = []

    def walk(value):
        if isinstance(value, bool):
            return
        if isinstance(value, (int, float)):
            q = quantise(float(value))
            if q is not None:
                out.append(q)
        elif isinstance(value, dict):
            for item in value.values():
                walk(item)
        elif isinstance(value, (list, tuple)):
            for item in value:
                walk(item)

    walk(params)
    return out


def numbers_in_code(source: str) -> list[int]:
    """The numeric literals of a piece of code (a leading minus sign included), quantised."""
    return numbers_in_text(re.sub(r"#[^\n]*", " ", source))


def numbers_in_text(text: str) -> list[int]:
    out = []
    for match in _NUMBER.finditer(text):
        try:
            q = quantise(float(match.group()))
        except (ValueError, OverflowError):
            continue
        if q is not None:
            out.append(q)
    return out


def runs(numbers: list[int], length: int = 3) -> set[tuple[int, ...]]:
    """Every run of ``length`` consecutive numbers."""
    return {tuple(numbers[i : i + length]) for i in range(len(numbers) - length + 1)}


_LITERAL = re.compile(r'"[^"\\\n]*"|(?<![\w.])\d+(?:\.\d*)?(?:[eE][-+]?\d+)?')


def _shape(source: str) -> str:
    """``source`` with every simple string and number replaced by one of the same kind (a cache key)."""
    return _LITERAL.sub(lambda m: '""' if m.group().startswith('"') else _bucket_literal(m.group()), source)


def _bucket_literal(text: str) -> str:
    try:
        value = int(text)
    except ValueError:
        return "0.5"
    return text if value in (0, 1, 2) else "3"


def _digest(text: str) -> str:
    return hashlib.sha1(text.encode()).hexdigest()[:16]


def _meta(cell) -> dict:
    meta = cell.get("metadata", {}).get("nbgrader")
    return meta if isinstance(meta, dict) else {}


def _editable(cell) -> bool:
    meta = _meta(cell)
    return bool(meta.get("solution")) and not meta.get("locked", False)


@dataclass
class Personal:
    """One student's own variant, as far as copy detection needs it."""

    student: str
    numbers: list[int]  # the params' numbers, quantised, in order
    number_runs: set[tuple[int, ...]]
    answers: dict[Key, object]  # right answers: (notebook, name) -> value
    cells: dict[Key, str]  # read-only cell -> digest of its source
    checksums: dict[Key, str]  # read-only cell -> nbgrader checksum
    code_cells: dict[str, list[str]]  # notebook -> its answer code cells' grade_ids
    answer_cells: set[Key] = field(default_factory=set)  # the answer cells with literal right answers
    references: dict[Key, str] = field(default_factory=dict)  # answer cell -> digest of the answer key's
    common: dict[Key, frozenset[int]] = field(default_factory=dict)  # answer cell -> stub and reference k-grams


@dataclass
class Handed:
    """What one student handed in, as far as copy detection needs it."""

    student: str
    code: dict[Key, str] = field(default_factory=dict)  # answer code cell (or ADDED) -> source
    marks: dict[Key, frozenset[int]] = field(default_factory=dict)  # its fingerprints
    answers: dict[Key, object] = field(default_factory=dict)  # (notebook, name) -> literal answer
    numbers: dict[str, list[int]] = field(default_factory=dict)  # where -> numbers in code or outputs
    cells: dict[Key, str] = field(default_factory=dict)  # read-only cells as handed in -> digest
    checksums: dict[Key, str] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)  # notebooks that could not be read


class Reader:
    """Builds :class:`Personal` and :class:`Handed` for the students of one assignment."""

    def __init__(self, course: Course, assignment: str, secret: bytes | None = None):
        self.course = course
        self.source = AssignmentSource.load(course, assignment)
        self.secret = secret if secret is not None else course.secret()
        self.stripper = Stripper()
        self._common: dict[tuple[str, str, str], frozenset[int]] = {}  # answer cell's shape -> common k-grams
        self._literals: dict[str, dict] = {}  # answer-key cell source -> its literal answers
        self._checksums: dict[tuple[str, str, str], str] = {}  # (notebook, grade_id, digest) -> checksum
        self._prints: dict[tuple[str, frozenset], frozenset[int]] = {}  # (source, common) -> fingerprints
        self._ids: dict[str, dict[str, str]] = {}  # notebook -> {cell id: grade_id} (the template's)

    @property
    def assignment(self) -> str:
        return self.source.name

    def personal(self, student: str) -> Personal:
        variant = build_variant(self.course, self.source, student, self.secret)
        numbers = numbers_in_params(variant.params)
        me = Personal(student, numbers, runs(numbers), {}, {}, {}, {})
        for name, full in variant.notebooks.items():
            # the answer cells as rendered, solution markers included: what ClearSolutions makes the stub of
            marked = {_meta(c).get("grade_id"): c.source for c in full.cells if _meta(c).get("solution")}
            key = self.stripper.answer_key(full)
            me.code_cells[name] = []
            todo = []  # answer cells whose common k-grams are not known yet
            for cell in key.cells:
                meta = _meta(cell)
                gid = meta.get("grade_id")
                if not gid:
                    continue
                if not meta.get("solution") or meta.get("locked"):
                    digest = me.cells[(name, gid)] = _digest(cell.source)
                    known = self._checksums.get((name, gid, digest))
                    if known is None:  # the same cell as another student's: the same checksum
                        known = self._checksums[(name, gid, digest)] = compute_checksum(cell)
                    me.checksums[(name, gid)] = known
                    continue
                if cell.cell_type != "code":
                    continue
                me.code_cells[name].append(gid)
                me.references[(name, gid)] = _digest(cell.source)
                for var, value in self._answers(cell.source).items():
                    me.answers[(name, var)] = value
                    me.answer_cells.add((name, gid))
                # numbers and strings normalise to their kind: answer-key cells that differ only in
                # those (one student's right answers and another's) have the same k-grams
                shape = (name, gid, _shape(cell.source))
                if shape in self._common:
                    me.common[(name, gid)] = self._common[shape]
                else:
                    todo.append((cell, gid, shape))
            if todo:
                stubs = self._stubs(key, [(c, marked.get(gid, c.source)) for c, gid, _ in todo])
                for (cell, gid, shape), stub in zip(todo, stubs, strict=False):
                    me.common[(name, gid)] = self._common[shape] = all_kgrams(stub) | all_kgrams(cell.source)
            self._ids.setdefault(
                name, {c.get("id"): _meta(c)["grade_id"] for c in key.cells if c.get("id") and _meta(c).get("grade_id")}
            )
        return me

    def _answers(self, source: str) -> dict[str, object]:
        if source not in self._literals:
            self._literals[source] = literal_answers(source)
        return self._literals[source]

    def _stubs(self, key, cells) -> list[str]:
        """The stubs of (answer cell, its source with the solution markers), as released:
        nbgrader's ClearSolutions on copies of them."""
        mini = nbformat.v4.new_notebook(metadata=key.metadata)
        mini.cells = [nbformat.from_dict({**json.loads(json.dumps(cell)), "source": source}) for cell, source in cells]
        return [stripped.source for stripped in self.stripper.student_version(mini).cells]

    def handed(self, me: Personal) -> Handed:
        files = submission_files(self.course.submitted_dir(me.student, self.assignment))  # no links followed
        out = Handed(me.student)
        for name, code_gids in me.code_cells.items():
            path, _ = find_notebook(files, f"{name}.ipynb")
            if path is None:
                continue
            try:
                nb = read_notebook(path)
            except SubmissionError as exc:
                out.problems.append(str(exc))
                continue
            self._read_cells(out, me, name, nb, set(code_gids))
            self._read_outputs(out, name, path)
        for key, source in out.code.items():
            if me.references.get(key) == _digest(source):
                out.marks[key] = frozenset()  # the answer key's own code: all of it is common
                continue
            common = me.common.get(key, frozenset())
            cached = self._prints.get((source, common))
            if cached is None:  # the same text twice: an untouched stub, a copy, the answer key
                cached = self._prints[(source, common)] = frozenset(fingerprint(source, common).marks)
            out.marks[key] = cached
        return out

    def _read_cells(self, out: Handed, me: Personal, name: str, nb, code_gids: set[str]) -> None:
        ids = self._ids.get(name, {})
        claimed = {_meta(c).get("grade_id") for c in nb.cells}
        added = []
        for cell in nb.cells:
            gid = _meta(cell).get("grade_id")
            if not isinstance(gid, str):
                gid = None
            if gid is None and "nbgrader" not in cell.get("metadata", {}) and ids.get(cell.get("id")) not in claimed:
                gid = ids.get(cell.get("id"))  # lost its metadata: recognised by its cell id, as sanitize does
            if gid and isinstance(_meta(cell).get("checksum"), str):
                out.checksums.setdefault((name, gid), _meta(cell)["checksum"][:64])
            if gid in code_gids and (name, gid) not in out.code:
                out.code[(name, gid)] = cell.source
                out.numbers[f"{name}/{gid}"] = numbers_in_code(cell.source)
                if (name, gid) in me.answer_cells:  # only where the key has answers to compare with
                    for var, value in literal_answers(cell.source).items():
                        out.answers[(name, var)] = value
            elif gid is not None and (name, gid) in me.cells:
                out.cells.setdefault((name, gid), _digest(cell.source))
            elif gid is None and cell.cell_type == "code":
                added.append(cell.source)
        if added:
            text = "\n\n".join(added)
            out.code[(name, ADDED)] = text
            out.numbers[f"{name}/{ADDED}"] = numbers_in_code(text)

    def _read_outputs(self, out: Handed, name: str, path: Path) -> None:
        """The numbers in the saved outputs (read_notebook drops them; read the file again)."""
        try:
            raw = read_bytes(path, MAX_NOTEBOOK_BYTES)
            if b'"output_type"' not in raw:
                return  # no outputs saved: nothing to parse again
            data = json.loads(raw)
        except (SubmissionError, ValueError, RecursionError):
            return
        budget = MAX_OUTPUT_CHARS
        pieces = []
        for cell in data.get("cells", []) if isinstance(data, dict) else []:
            outputs = cell.get("outputs") if isinstance(cell, dict) else None
            for output in outputs if isinstance(outputs, list) else []:
                if not isinstance(output, dict):
                    continue
                texts = [output.get("text")]
                if isinstance(output.get("data"), dict):
                    texts.append(output["data"].get("text/plain"))
                for text in texts:
                    if isinstance(text, list):
                        text = "".join(t for t in text if isinstance(t, str))
                    if isinstance(text, str) and budget > 0:
                        pieces.append(text[:budget])
                        budget -= len(pieces[-1])
        if pieces:
            out.numbers[f"{name}/outputs"] = numbers_in_text("\n".join(pieces))
