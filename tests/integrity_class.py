"""A synthetic class for copy detection: honest students and planted copies, built without grading.

Used by tests/test_integrity.py and bench/integrity.py. The course is this
repository's (both notebooks); every student gets their own variant, and
their submission is their own release notebook with the answer cells filled:

* most students write each exercise step by step, every step one of several
  ways, with habits and touches of their own (tests/integrity_code.py);
* ``canonical`` students hand in the answer key's code; two ``unusual`` ones
  write loop-based code of their own, each differently (the course's
  QA set's correct/loops.py, and UNUSUAL_TWO below); ``lecture`` ones
  hand in the answer key with one of the course's known implementations that
  hard-code the lecture's numbers (the first one in the quiz too);
* honest quiz answers are the student's own right answers, with a few slips
  (a wrong number computed from their own numbers, a wrong letter);
* some students save their outputs (a printed matrix of their own numbers).

Planted copies, each a pair (source, copier); the sources are students who
write their own code:

* ``whole``: the copier hands in the source's notebooks as they are;
* ``exercise``: the source's hardest exercise (their longest answer, at least
  LONG_CELL_TOKENS long), renamed (consistently), reformatted, commented and
  with two independent statements swapped;
* ``quiz``: the source's right answers typed into the copier's own quiz;
* ``partial``: the first half of that answer (its first class or function, or
  the first half of its lines), disguised the same way, the rest the copier's;
* ``exercise_any`` (bench only): as ``exercise``, for any of the source's own
  answers of at least MIN_COPY_TOKENS tokens.

A copy of the reference solution, or of three canonical lines, cannot be
told from writing them: the copied cells are ones the source wrote their
own way.
"""

from __future__ import annotations

import json
import random
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
from integrity_code import Habits, honest_cell

from gradekit.integrity.fingerprints import normalise

REPO = Path(__file__).resolve().parents[1]
ASSIGNMENT = "self_attention"
NOTEBOOK = "self_attention"
QUIZ = "quiz"
EXERCISES = ("project_qkv", "scaled_scores", "softmax", "weighted_sum", "self_attention", "kv_cache")
UNUSUAL = ("loops",)   # the course's right answer written with loops: one of the unusual students
KINDS = ("whole", "exercise", "quiz", "partial")
EXTRA_KINDS = ("exercise_any",)   # bench only: one exercise, chosen at random, copied as in "exercise"
MIN_COPY_TOKENS = 30     # a copied cell has at least this many tokens: three canonical lines are no one's own
LONG_CELL_TOKENS = 100   # the hardest exercise's answer, copied whole or half, is at least this long

# the second unusual student: loop-based too, written independently of the QA set's loops.py
UNUSUAL_TWO = {
    "project_qkv": "def project_qkv(X, W_q, W_k, W_v):\n    rows = []\n    for W in (W_q, W_k, W_v):\n"
                   "        M = [[float(np.dot(x, col)) for col in np.transpose(W)] for x in X]\n        rows.append(np.array(M))\n"
                   "    return rows[0], rows[1], rows[2]\n",
    "scaled_scores": "def scaled_scores(Q, K):\n    out = []\n    root = np.sqrt(len(K[0]))\n    for q in Q:\n"
                     "        out.append([np.dot(q, k) / root for k in K])\n    return np.array(out)\n",
    "softmax": "def softmax(x, axis=-1):\n    x = np.swapaxes(np.asarray(x, float), axis, -1)\n    flat = x.reshape(-1, x.shape[-1])\n"
               "    res = np.zeros_like(flat)\n    for r in range(flat.shape[0]):\n        shifted = flat[r] - flat[r].max()\n"
               "        res[r] = np.exp(shifted) / np.exp(shifted).sum()\n    return np.swapaxes(res.reshape(x.shape), axis, -1)\n",
    "weighted_sum": "def weighted_sum(weights, V):\n    V = np.asarray(V)\n    result = np.zeros((len(weights), V.shape[1]))\n"
                    "    for i, row in enumerate(weights):\n        for j, w in enumerate(row):\n            result[i] += w * V[j]\n"
                    "    return result\n",
    "self_attention": "def self_attention(X, W_q, W_k, W_v):\n    Q, K, V = project_qkv(X, W_q, W_k, W_v)\n"
                      "    A = np.apply_along_axis(softmax, 1, scaled_scores(Q, K))\n    return weighted_sum(A, V), A\n",
    "kv_cache": "class KVCache:\n    def __init__(self, capacity=4):\n        self.size = 0\n        self.kbuf = None\n"
                "        self.vbuf = None\n        self.capacity = capacity\n\n    def _grow(self, width_k, width_v):\n"
                "        new_k = np.empty((self.capacity, width_k))\n        new_v = np.empty((self.capacity, width_v))\n"
                "        if self.kbuf is not None:\n            new_k[:self.size] = self.kbuf[:self.size]\n"
                "            new_v[:self.size] = self.vbuf[:self.size]\n        self.kbuf, self.vbuf = new_k, new_v\n\n"
                "    def append(self, k, v):\n        k, v = np.ravel(k), np.ravel(v)\n"
                "        if self.kbuf is None or self.size == self.capacity:\n            self.capacity *= 2\n"
                "            self._grow(k.size, v.size)\n        self.kbuf[self.size] = k\n        self.vbuf[self.size] = v\n"
                "        self.size += 1\n\n    keys = property(lambda self: self.kbuf[:self.size])\n"
                "    values = property(lambda self: self.vbuf[:self.size])\n\n    def __len__(self):\n        return self.size\n\n\n"
                "def decode_step(x_t, W_q, W_k, W_v, cache):\n    x_t = np.ravel(x_t)\n"
                "    cache.append(np.dot(x_t, W_k), np.dot(x_t, W_v))\n    q = np.dot(x_t, W_q)\n"
                "    logits = np.array([np.dot(q, key) for key in cache.keys]) / np.sqrt(q.size)\n"
                "    return np.dot(softmax(logits), cache.values)\n",
}

def pools() -> tuple[dict[str, dict[str, str]], dict[str, dict[str, str]]]:
    """The course's QA set: known wrong answers (name -> sections), and the unusual ones."""
    from gradekit.qa import qaset

    graders = REPO / "autograder" / ASSIGNMENT
    known = {p.stem: qaset.parse(p)[2] for p in qaset.files(graders, "mistakes")}
    unusual = {p.stem: qaset.parse(p)[2] for p in qaset.files(graders, "correct") if p.stem in UNUSUAL}
    unusual["unusual_two"] = UNUSUAL_TWO
    return known, unusual


# -- per-student variation -------------------------------------------------------------

_ASSIGN = re.compile(r"^(\s*)([A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)*)\s*=(?!=)(.*)$")


def swap_independent(source: str, rng: random.Random) -> str:
    """Swap two consecutive assignments that do not use each other's results."""
    lines = source.split("\n")
    spots = []
    for i in range(len(lines) - 1):
        a, b = _ASSIGN.match(lines[i]), _ASSIGN.match(lines[i + 1])
        if a and b and a.group(1) == b.group(1):
            ta = {t.strip() for t in a.group(2).split(",")}
            tb = {t.strip() for t in b.group(2).split(",")}
            uses_a = set(re.findall(r"\b\w+\b", a.group(3)))
            uses_b = set(re.findall(r"\b\w+\b", b.group(3)))
            if not (ta & uses_b) and not (tb & uses_a) and not (ta & tb):
                spots.append(i)
    if spots:
        i = rng.choice(spots)
        lines[i], lines[i + 1] = lines[i + 1], lines[i]
    return "\n".join(lines)


def disguise(source: str, rng: random.Random) -> str:
    """What a copier does to a copied cell: renames, reformatting, comments, a statement swapped."""
    targets = set()
    for line in source.split("\n"):
        m = _ASSIGN.match(line)
        if m:
            targets |= {t.strip() for t in m.group(2).split(",")}
        m = re.match(r"^\s*for (\w+)(?:\s*,\s*(\w+))? in", line)
        if m:
            targets |= {g for g in m.groups() if g}
    targets -= {"self", "np", "math"}
    for name in sorted(targets):
        new = f"{rng.choice(['my', 'the', 'new', 'tmp'])}_{name.lower()}{rng.randint(1, 9)}"
        source = re.sub(rf"(?<![.\w]){re.escape(name)}(?!\w)", new, source)
    source = swap_independent(source, rng)
    out = []
    for line in source.split("\n"):
        line = re.sub(r",\s*", ", " if rng.random() < 0.5 else ",", line)
        if not line.strip().startswith(("#", '"', "'", "@")):
            line = re.sub(r"(?<=\S)\s*([@*/+])\s*(?=[\w(])", r" \1 " if rng.random() < 0.5 else r"\1", line)
        if line.strip() and rng.random() < 0.2:
            out.append(re.match(r"^\s*", line).group() + rng.choice(["# step", "# compute it", "# my approach", "# TODO check"]))
        out.append(line)
        if rng.random() < 0.15:
            out.append("")
    return "\n".join(out)


def first_half(source: str) -> str:
    """The first top-level block of a cell with several (a class and a function), else half its lines."""
    blocks = re.split(r"\n(?=(?:def|class) )", source.strip("\n"))
    if len(blocks) > 1:
        return blocks[0] + "\n"
    lines = source.rstrip("\n").split("\n")
    return "\n".join(lines[:max(2, len(lines) // 2 + 1)]) + "\n"


def second_half(source: str) -> str:
    blocks = re.split(r"\n(?=(?:def|class) )", source.strip("\n"))
    if len(blocks) > 1:
        return "\n\n" + "\n".join(blocks[1:]) + "\n"
    lines = source.rstrip("\n").split("\n")
    return "\n".join(lines[len(lines) // 2 + 1:]) + "\n"


# -- the class ---------------------------------------------------------------------------

@dataclass
class SyntheticClass:
    root: Path
    students: list[str]
    planted: dict[tuple[str, str], str] = field(default_factory=dict)   # (source, copier) -> kind
    canonical: list[str] = field(default_factory=list)
    unusual: list[str] = field(default_factory=list)
    lecture: list[str] = field(default_factory=list)
    untouched: list[str] = field(default_factory=list)
    copied_cell: dict[tuple[str, str], str] = field(default_factory=dict)  # exercise/partial: which cell

    def planted_pairs(self) -> dict[tuple[str, str], str]:
        return {tuple(sorted(pair)): kind for pair, kind in self.planted.items()}


def make_course(root: Path, secret: str = "integrity-synthetic-secret") -> None:
    root.mkdir(parents=True, exist_ok=True)
    shutil.copy2(REPO / "nbgrader_config.py", root / "nbgrader_config.py")
    shutil.copytree(REPO / "source", root / "source", dirs_exist_ok=True,
                    ignore=shutil.ignore_patterns("__pycache__"))
    (root / ".gradekit").mkdir(mode=0o700, exist_ok=True)
    (root / ".gradekit" / "secret").write_text(secret)


def _cells(nb) -> dict[str, object]:
    return {c.metadata.get("nbgrader", {}).get("grade_id"): c for c in nb.cells}


class _Builder:
    def __init__(self, root: Path, seed: int):
        from gradekit.course import Course
        from gradekit.release.stripper import Stripper
        from gradekit.authoring.template import AssignmentSource

        self.course = Course.load(root)
        self.source = AssignmentSource.load(self.course, ASSIGNMENT)
        self.secret = self.course.secret()
        self.stripper = Stripper()
        self.rng = random.Random(seed)
        self.pool, self.unusual = pools()   # known wrong implementations, unusual ones
        self.code: dict[str, dict[str, str]] = {}      # student -> exercise -> source
        self.style: dict[str, dict[str, str]] = {}     # student -> exercise -> "key" or "own"

    def notebooks(self, student: str):
        from gradekit.authoring.variant import build_variant

        release = {n: self.stripper.student_version(nb)
                   for n, nb in build_variant(self.course, self.source, student, self.secret).notebooks.items()}
        variant = build_variant(self.course, self.source, student, self.secret)
        key = {n: self.stripper.answer_key(nb) for n, nb in variant.notebooks.items()}
        return release, key, variant.params

    def honest_code(self, student: str, key, mode: str = "mixed") -> dict[str, str]:
        """Exercise -> code: canonical (the answer key), unusual (reserved styles), or own."""
        rng = self.rng
        habits = Habits(rng)
        key_cells = _cells(key[NOTEBOOK])
        code, style = {}, {}
        for gid in EXERCISES:
            roll = rng.random()
            if mode == "canonical" or mode == "mixed" and roll < 0.1:
                code[gid], style[gid] = key_cells[gid].source, "key"
            elif mode in self.unusual:
                code[gid], style[gid] = self.unusual[mode][gid], "unusual"
            elif mode in self.pool and gid in self.pool[mode]:  # a known wrong route in canonical code
                code[gid], style[gid] = self.pool[mode][gid], "mistake"
            elif mode in self.pool:
                code[gid], style[gid] = key_cells[gid].source, "key"
            else:
                code[gid], style[gid] = honest_cell(gid, habits), "own"
        self.code[student], self.style[student] = code, style
        return code

    def quiz_answers(self, key, rng, slips: bool = True) -> dict[str, str]:
        """gid -> the answer lines of an honest student: their own right answers, a few slips."""
        out = {}
        for gid, cell in _cells(key[QUIZ]).items():
            if not cell.metadata.get("nbgrader", {}).get("solution") or cell.cell_type != "code":
                continue
            body = cell.source.split("### BEGIN SOLUTION")[-1].split("### END SOLUTION")[0]
            lines = []
            for line in body.strip().split("\n"):
                name, _, value = line.partition(" = ")
                if slips and rng.random() < 0.12:
                    value = _slip(value, rng)
                lines.append(f"{name} = {value}")
            out[gid] = "\n".join(lines) + "\n"
        return out

    def submission(self, student, release, code: dict[str, str], quiz: dict[str, str], outputs: bool,
                   params) -> dict[str, nbformat.NotebookNode]:
        nbs = {n: nbformat.from_dict(json.loads(json.dumps(nb))) for n, nb in release.items()}
        for gid, cell in _cells(nbs[NOTEBOOK]).items():
            if gid in code:
                cell.source = code[gid]
        for gid, cell in _cells(nbs[QUIZ]).items():
            if gid in quiz:
                cell.source = quiz[gid]
            elif gid in ("tq1_explain", "tq5_explain"):
                cell.source = f"My own words ({student}): {self.rng.choice(['weights', 'values', 'cost'])}."
        if outputs:
            cell = nbformat.v4.new_code_cell("print(X)")
            import numpy as np

            cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=str(np.array(params["X"])) + "\n")]
            nbs[NOTEBOOK].cells.insert(2, cell)
        return nbs


def _slip(value: str, rng: random.Random) -> str:
    """A wrong answer of the student's own making."""
    if value.strip().startswith('"'):
        return rng.choice(['"A"', '"B"', '"C"', '"D"', '"yes"'])
    try:
        parsed = json.loads(value)
    except ValueError:
        return value
    factor = rng.choice([1.41421, 0.70711, 2.0, 0.5])
    if isinstance(parsed, list):
        return json.dumps([round(v * factor, 3) for v in parsed])
    return json.dumps(round(parsed * factor, 3))


def _tokens(source: str) -> int:
    return len(normalise(source).text)


def _sources(builder, candidates: list[str], kinds: list[str], rng: random.Random) -> list[str]:
    """A different source student for each copy; for the hardest exercise and the partial copy,
    one whose longest answer is their own and at least LONG_CELL_TOKENS long."""
    lengths: dict[str, int] = {}

    def longest_own(student):   # tokenizing is slow: once per student, not once per copy
        if student not in lengths:
            own = [code for gid, code in builder.code[student].items() if builder.style[student][gid] == "own"]
            lengths[student] = max((_tokens(code) for code in own), default=0)
        return lengths[student]

    pool = list(candidates)
    rng.shuffle(pool)
    chosen = []
    for kind in kinds:
        fits = [s for s in pool if kind not in ("exercise", "partial") or longest_own(s) >= LONG_CELL_TOKENS]
        chosen.append(fits[0])
        pool.remove(fits[0])
    return chosen


LECTURE_FILES = ("attention_hardcoded_lecture", "kv_hardcoded_lecture")


def build(root: Path, honest: int, plants: dict[str, int], canonical: int = 0, unusual: bool = False,
          lecture: int = 0, untouched: int = 0, outputs_share: float = 0.3, seed: int = 0) -> SyntheticClass:
    """A class of honest students plus ``plants[kind]`` (source, copier) pairs of each kind.

    ``honest`` students write their own code, ``canonical`` ones the answer key's,
    two ``unusual`` ones loop-based code of their own (each differently), and
    ``lecture`` ones the answer key with the lecture's numbers hard-coded in one
    cell (and, for the first, in the quiz); ``untouched`` ones hand in their
    release as it is (the stub: everybody's). The sources of the copies are among
    the ``honest`` students; the copiers come on top.
    """
    from gradekit.atomic import write_notebooks

    make_course(root)
    builder = _Builder(root, seed)
    rng = builder.rng
    n_pairs = sum(plants.values())
    groups = {"canonical": canonical, "unusual": 2 if unusual else 0, "lecture": lecture, "untouched": untouched,
              "copiers": n_pairs}
    ids = [f"s{i:04d}" for i in range(1, honest + sum(groups.values()) + 1)]
    rng.shuffle(ids)
    klass = SyntheticClass(root, sorted(ids))
    taken = {}
    start = 0
    for group, count in groups.items():
        taken[group], start = ids[start:start + count], start + count
    rest = ids[start:]
    klass.canonical, klass.unusual, klass.lecture = taken["canonical"], taken["unusual"], taken["lecture"]
    klass.untouched = taken["untouched"]
    for student in taken["untouched"]:
        write_notebooks(builder.course.submitted_dir(student, ASSIGNMENT), builder.notebooks(student)[0])
    modes = {s: "canonical" for s in taken["canonical"]}
    modes.update(zip(taken["unusual"], ["loops", "unusual_two"]))
    modes.update({s: LECTURE_FILES[i % len(LECTURE_FILES)] for i, s in enumerate(taken["lecture"])})
    material = {}
    for student in taken["canonical"] + taken["unusual"] + taken["lecture"] + rest:
        mode = modes.get(student, "mixed")
        release, key, params = builder.notebooks(student)
        code = builder.honest_code(student, key, mode)
        quiz = builder.quiz_answers(key, rng, slips=mode == "mixed")
        if student in taken["lecture"][:1]:
            quiz["tq1"] = quiz["tq1"].replace(quiz["tq1"].split("\n")[0], "tq1_weights = [0.670, 0.330]")
        nbs = builder.submission(student, release, code, quiz, rng.random() < outputs_share, params)
        write_notebooks(builder.course.submitted_dir(student, ASSIGNMENT), nbs)
        material[student] = key
    kinds = [kind for kind in KINDS + EXTRA_KINDS for _ in range(plants.get(kind, 0))]
    sources = _sources(builder, rest, kinds, rng)
    for source, copier, kind in zip(sources, taken["copiers"], kinds):
        klass.planted[(source, copier)] = kind
        folder = builder.course.submitted_dir(copier, ASSIGNMENT)
        if kind == "whole":
            shutil.copytree(builder.course.submitted_dir(source, ASSIGNMENT), folder)
            continue
        release, key, params = builder.notebooks(copier)
        code = builder.honest_code(copier, key)
        quiz = builder.quiz_answers(key, rng)
        own = [g for g in EXERCISES if builder.style[source][g] == "own"
               and _tokens(builder.code[source][g]) >= MIN_COPY_TOKENS] or list(EXERCISES)
        if kind in ("exercise", "exercise_any"):  # the hardest exercise (the longest answer), or any
            gid = max(own, key=lambda g: len(builder.code[source][g])) if kind == "exercise" else rng.choice(own)
            code[gid] = disguise(builder.code[source][gid], rng)
            klass.copied_cell[(source, copier)] = gid
        elif kind == "partial":
            gid = max(own, key=lambda g: len(builder.code[source][g]))
            code[gid] = disguise(first_half(builder.code[source][gid]), rng) + second_half(code[gid])
            klass.copied_cell[(source, copier)] = gid
        elif kind == "quiz":
            quiz = builder.quiz_answers(material[source], rng, slips=False)
        nbs = builder.submission(copier, release, code, quiz, rng.random() < outputs_share, params)
        write_notebooks(folder, nbs)
    return klass
