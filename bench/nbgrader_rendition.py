"""The self-attention assignment as a plain nbgrader course, for the benchmark.

gradekit keeps its hidden graders in ``autograder/self_attention/test_*.py``
(pytest, run against a sandbox). nbgrader has no such thing: its hidden tests
are ``### BEGIN HIDDEN TESTS`` regions inside the autograder test cells, run
by a Jupyter kernel. This module translates the first into the second:

* the source notebook is one student's gradekit answer key (solution regions
  kept) with, in each of the nine test cells, a hidden-tests region appended;
* each region is an assert-based rendition of the matching
  ``autograder/self_attention/test_<cell>.py``: the same kinds of checks on
  a few fixed inputs (seeded), against an inline numpy reference. What it
  does not copy: the "which classic mistake is this" feedback, hypothesis,
  and the swapping-in of reference helpers (a wrong ``softmax`` costs points
  again in later cells here, as it would in any plain nbgrader assignment).

The submission mix (answer key / wrong answer / untouched release notebook)
is shared with the gradekit side through :func:`make_submission`.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import nbformat

ASSIGNMENT = "self_attention"
NOTEBOOK = "self_attention"

# Defined at the top of every hidden region, so each test cell stands alone
# (nbgrader runs them in one kernel, but a failing visible part stops a cell).
PRELUDE = '''
def _sm(x, axis=-1):
    x = np.asarray(x, dtype=float)
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)
def _attn(X, W_q, W_k, W_v, causal=False):
    Q, K, V = X @ W_q, X @ W_k, X @ W_v
    s = Q @ K.T / np.sqrt(K.shape[1])
    if causal:
        s = np.where(np.tril(np.ones(s.shape, dtype=bool)), s, -np.inf)
    w = _sm(s)
    return w @ V, w
def _close(got, want, what, rtol=1e-5, atol=1e-6):
    got = np.asarray(got, dtype=float)
    assert got.shape == np.shape(want), f"{what}: shape {got.shape}, expected {np.shape(want)}"
    assert np.allclose(got, want, rtol=rtol, atol=atol), f"{what}: wrong values"
def _mats(n, d_model, d_k, d_v):
    return (_rng.normal(size=(n, d_model)), _rng.normal(size=(d_model, d_k)),
            _rng.normal(size=(d_model, d_k)), _rng.normal(size=(d_model, d_v)))
'''

HIDDEN = {
    "test_project_qkv": '''
for _args in [_mats(6, 5, 3, 4), _mats(7, 3, 2, 9), _mats(1, 4, 6, 2), (X, W_q, W_k, W_v)]:
    _got = project_qkv(*_args)
    assert isinstance(_got, (tuple, list)) and len(_got) == 3, "project_qkv should return (Q, K, V)"
    for _g, _W, _name in zip(_got, _args[1:], "QKV"):
        _close(_g, _args[0] @ _W, f"{_name} for X of shape {_args[0].shape}")
''',
    "test_scaled_scores": '''
_H = np.array([x1, x2])
_cases = [(_rng.normal(size=(6, 3)), _rng.normal(size=(7, 3))), (_rng.normal(size=(5, 3)), _rng.normal(size=(5, 3))),
          (_rng.normal(size=(2, 8)), _rng.normal(size=(4, 8))), (_H, _H)]
for _ in range(8):
    _nq, _nk, _dk = _rng.integers(1, 7), _rng.integers(1, 7), _rng.integers(2, 8)
    _cases.append((2 * _rng.normal(size=(_nq, _dk)), _rng.normal(size=(_nk, _dk))))
for _Q, _K in _cases:
    _close(scaled_scores(_Q, _K), _Q @ _K.T / np.sqrt(_Q.shape[1]), f"scaled_scores on Q {_Q.shape}, K {_K.shape}")
''',
    "test_softmax": '''
_x = 2 * _rng.normal(size=7)
_close(softmax(_x), _sm(_x), "softmax of a vector of length 7", atol=1e-7)
_x = _rng.normal(size=(3, 4, 5))
_close(softmax(_x), _sm(_x), "softmax with the default axis on a 3x4x5 input", atol=1e-7)
for _shape, _axes in [((3, 4, 5), (0, 1, 2, -2)), ((2, 3, 4, 5), (0, 1, 2, 3, -1)), ((4, 4), (-1, 0))]:
    _x = 2 * _rng.normal(size=_shape)
    for _a in _axes:
        _close(softmax(_x, axis=_a), _sm(_x, axis=_a), f"softmax(x, axis={_a}) on shape {_shape}", atol=1e-7)
for _ in range(8):  # laws: slices sum to 1; a constant added to a slice changes nothing
    _shape = tuple(_rng.integers(1, 6, size=_rng.integers(1, 5)))
    _a = int(_rng.integers(-len(_shape), len(_shape)))
    _x = 3 * _rng.normal(size=_shape)
    _p = np.asarray(softmax(_x, axis=_a))
    _close(_p, _sm(_x, axis=_a), f"softmax(x, axis={_a}) on shape {_shape}", atol=1e-7)
    assert np.allclose(_p.sum(axis=_a), 1.0), f"slices along axis {_a} should sum to 1"
    _shift = list(_shape); _shift[_a] = 1
    _close(softmax(_x + _rng.uniform(-20, 20, size=_shift), axis=_a), _p,
           f"softmax(x + c, axis={_a}) should equal softmax(x, axis={_a})", atol=1e-7)
''',
    "test_softmax_stability": '''
_offsets = np.array([[-1000.0], [0.0], [1000.0], [500.0]]) + 2 * _rng.normal(size=(4, 5))
for _x, _a in [(np.array(big), -1), (1000 + 3 * _rng.normal(size=(4, 6)), -1), (-1000 + 3 * _rng.normal(size=(5, 3)), -1),
               (_offsets, -1), (_offsets.T, 0), (np.array([1000.0, -1000.0, 0.0, 995.0]) + _rng.uniform(-1, 1, 4), -1),
               (800 * np.sign(_rng.normal(size=(2, 1, 3))) + 4 * _rng.normal(size=(2, 5, 3)), 1)]:
    with np.errstate(all="ignore"):
        _got = softmax(_x, axis=_a)
    _close(_got, _sm(_x, axis=_a), f"softmax(x, axis={_a}) on scores of shape {_x.shape} near +-1000", rtol=1e-3)
''',
    "test_weighted_sum": '''
_cases = [(_sm(_rng.normal(size=(6, 7))), _rng.normal(size=(7, 4))), (_sm(2 * _rng.normal(size=(5, 5))), _rng.normal(size=(5, 3))),
          (_rng.uniform(0.1, 2.0, size=(3, 4)), _rng.normal(size=(4, 6))), (_sm(_rng.normal(size=(1, 8))), _rng.normal(size=(8, 2))),
          (np.array(_hand_weights), c * np.array([x1, x2]))]
for _w, _V in _cases:
    _close(weighted_sum(_w, _V), _w @ _V, f"weighted_sum on weights {_w.shape} and values {_V.shape}")
''',
    "test_self_attention": '''
_I = np.eye(2)
_X7, _Wq7, _Wk7, _Wv7 = _mats(7, 4, 6, 2)
for _args in [_mats(6, 5, 3, 4), (X, W_q, W_k, W_v), (np.array([x1, x2]), _I, _I, c * _I), _mats(2, 3, 5, 4),
              (2 * _X7, _Wq7, _Wk7, _Wv7), _mats(1, 3, 2, 4)]:
    _got = self_attention(*_args)
    assert isinstance(_got, (tuple, list)) and len(_got) == 2, "self_attention should return (output, weights)"
    _out, _w = _attn(*_args)
    _close(_got[1], _w, f"the weights from self_attention on X of shape {_args[0].shape}")
    _close(_got[0], _out, f"the output from self_attention on X of shape {_args[0].shape}")
''',
    "test_self_attention_permutation": '''
def _run(*args):
    _o, _w = (np.asarray(a, dtype=float) for a in self_attention(*args))
    assert np.allclose(_w.sum(axis=1), 1.0, atol=1e-5), "each row of the weights should sum to 1"
    return _o, _w
_X6, _Wq6, _Wk6, _Wv6 = _mats(6, 5, 3, 4)
_o, _w = _run(_X6, _Wq6, _Wk6, _Wv6)
for _ in range(3):
    _p = _rng.permutation(6)
    _op, _wp = _run(_X6[_p], _Wq6, _Wk6, _Wv6)
    _close(_op, _o[_p], "reordering the tokens should reorder the output rows")
    _close(_wp, _w[_p][:, _p], "reordering the tokens should reorder the weights' rows and columns")
_o, _w = _run(X, W_q, W_k, W_v)
_or, _wr = _run(X[::-1], W_q, W_k, W_v)
_close(_or, _o[::-1], "your X reversed: the output rows should reverse")
_close(_wr, _w[::-1, ::-1], "your X reversed: the weights should reverse")
_X5, _Wq5, _Wk5, _Wv5 = _mats(5, 4, 2, 3)
_X5[3] = _X5[0]
_o, _ = _run(_X5, _Wq5, _Wk5, _Wv5)
_close(_o[3], _o[0], "identical tokens should get identical outputs")
''',
    "test_kv_cache": '''
assert len(KVCache()) == 0, "a new cache should be empty"
_c = KVCache()
_K, _V = _rng.normal(size=(6, 3)), _rng.normal(size=(6, 4))
for _t in range(6):
    _c.append(_K[_t], _V[_t])
    assert len(_c) == _t + 1, f"after {_t + 1} appends len(cache) should be {_t + 1}"
_close(_c.keys, _K, "cache.keys after 6 appends")
_close(_c.values, _V, "cache.values after 6 appends")
_c = KVCache()
_k, _v = _rng.normal(size=2), _rng.normal(size=5)
_c.append(_k, _v)
_close(_c.keys, _k[None, :], "cache.keys after one append (shape (1, d_k))")
_close(_c.values, _v[None, :], "cache.values after one append (shape (1, d_v))")
_a, _b = KVCache(), KVCache()
_a.append(_K[0], _V[0]); _a.append(_K[1], _V[1]); _b.append(_K[2], _V[2])
assert (len(_a), len(_b)) == (2, 1), "two caches must not share their storage"
_close(_b.keys, _K[2:3], "cache.keys of a second cache")
''',
    "test_kv_cache_decode": '''
def _decode_all(X_, Wq_, Wk_, Wv_):
    _c = KVCache()
    _want, _ = _attn(X_, Wq_, Wk_, Wv_, causal=True)
    for _t in range(X_.shape[0]):
        _close(decode_step(X_[_t], Wq_, Wk_, Wv_, _c), _want[_t], f"decode_step for token {_t + 1} (row {_t + 1} of causal attention)")
        assert len(_c) == _t + 1, f"after {_t + 1} decode steps the cache should hold {_t + 1} tokens"
    return _c
_decode_all(*_mats(6, 5, 3, 4))
_decode_all(*_mats(4, 3, 2, 5))
_c = _decode_all(X, W_q, W_k, W_v)
_close(_c.keys, X @ W_k, "cache.keys after decoding your X")
_close(_c.values, X @ W_v, "cache.values after decoding your X")
_I = np.eye(2)
_decode_all(np.array([x1, x2]), _I, _I, c * _I)
_, _Wq, _Wk, _Wv = _mats(1, 5, 3, 4)
_Ko, _Vo = 2 * _rng.normal(size=(4, 3)), _rng.normal(size=(4, 4))
_c = KVCache()
for _k, _v in zip(_Ko, _Vo):
    _c.append(_k, _v)
_x = _rng.normal(size=5)
_q, _K, _V = _x @ _Wq, np.vstack([_Ko, _x @ _Wk]), np.vstack([_Vo, _x @ _Wv])
_close(decode_step(_x, _Wq, _Wk, _Wv, _c), _sm(_K @ _q / np.sqrt(3)) @ _V, "decode_step on a cache already holding 4 tokens")
assert len(_c) == 5, "a cache holding 4 tokens should hold 5 after one decode_step"
''',
}

# Two classic wrong answers (from gradekit's own test implementations).
WRONG = {
    "softmax": ("softmax", '''def softmax(x, axis=-1):
    e = np.exp(np.asarray(x, dtype=float))          # no max shift: overflows near 1000
    return e / np.sum(e, axis=axis, keepdims=True)
'''),
    "qkv": ("project_qkv", '''def project_qkv(X, W_q, W_k, W_v):
    X = np.asarray(X, dtype=float)
    return X @ W_k, X @ W_q, X @ W_v                 # queries and keys swapped
'''),
}
_MARKER = re.compile(r"^[ \t]*### (BEGIN|END) SOLUTION[ \t]*\n?", re.M)


def _grade_id(cell) -> str | None:
    return cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")


def make_submission(release: nbformat.NotebookNode, key: nbformat.NotebookNode, kind: str) -> nbformat.NotebookNode:
    """A student's submission: ``answer`` (the key's solutions, markers removed),
    ``wrong-softmax`` / ``wrong-qkv`` (the same with one function wrong) or
    ``empty`` (the release notebook as handed out). Solution cells match by grade_id."""
    nb = nbformat.from_dict(json.loads(json.dumps(release)))
    if kind == "empty":
        return nb
    answers = {_grade_id(c): _MARKER.sub("", c.source) for c in key.cells
               if c.get("metadata", {}).get("nbgrader", {}).get("solution")}
    if kind.startswith("wrong-"):
        gid, code = WRONG[kind[len("wrong-"):]]
        answers[gid] = code
    for cell in nb.cells:
        if _grade_id(cell) in answers:
            cell.source = answers[_grade_id(cell)]
    return nb


def source_notebook(answer_key: nbformat.NotebookNode, params: dict) -> nbformat.NotebookNode:
    """The answer key with a hidden-tests region appended to each test cell."""
    nb = nbformat.from_dict(json.loads(json.dumps(answer_key)))
    done = set()
    for i, cell in enumerate(nb.cells):
        gid = _grade_id(cell)
        if gid in HIDDEN:
            # seed per cell; the hand weights as this student's params give them
            setup = f"_rng = np.random.default_rng({i})\n_hand_weights = {params['hand_weights']!r}\n"
            cell.source = (cell.source.rstrip("\n") + "\n### BEGIN HIDDEN TESTS" + PRELUDE + setup
                           + HIDDEN[gid].strip("\n") + "\n### END HIDDEN TESTS\n")
            done.add(gid)
    missing = set(HIDDEN) - done
    if missing:
        raise RuntimeError(f"the answer key has no test cells {sorted(missing)}: has the notebook changed?")
    return nb


NBGRADER_CONFIG = '''c = get_config()  # noqa: F821
c.CourseDirectory.course_id = "bench"
c.CourseDirectory.root = "."
c.CourseDirectory.db_url = "sqlite:///gradebook.db"
'''


def build_course(root: Path, students: list[str], kinds: list[str], answer_key: nbformat.NotebookNode,
                 params: dict, env: dict) -> None:
    """An nbgrader course in ``root``: source, release (nbgrader generate_assignment), submissions."""
    from nbgrader.api import Gradebook

    root.mkdir(parents=True, exist_ok=True)
    (root / "nbgrader_config.py").write_text(NBGRADER_CONFIG)
    src = root / "source" / ASSIGNMENT
    src.mkdir(parents=True, exist_ok=True)
    nbformat.write(source_notebook(answer_key, params), src / f"{NOTEBOOK}.ipynb")
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gb:
        gb.update_or_create_assignment(ASSIGNMENT)
        for student in students:
            gb.update_or_create_student(student)
    run = subprocess.run(["nbgrader", "generate_assignment", ASSIGNMENT, "--force"], cwd=root, env=env,
                         capture_output=True, text=True)
    if run.returncode != 0:
        raise RuntimeError(f"nbgrader generate_assignment failed:\n{run.stderr[-3000:]}")
    release = nbformat.read(root / "release" / ASSIGNMENT / f"{NOTEBOOK}.ipynb", as_version=4)
    for student, kind in zip(students, kinds):
        out = root / "submitted" / student / ASSIGNMENT
        out.mkdir(parents=True, exist_ok=True)
        nbformat.write(make_submission(release, answer_key, kind), out / f"{NOTEBOOK}.ipynb")
        (out / "timestamp.txt").write_text("2025-01-01 12:00:00.000000 UTC")


def scores(root: Path, students: list[str]) -> dict[str, float | None]:
    """Each student's total from nbgrader's gradebook (None: not graded)."""
    from nbgrader.api import Gradebook, MissingEntry

    out = {}
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gb:
        for student in students:
            try:
                out[student] = gb.find_submission(ASSIGNMENT, student).score
            except MissingEntry:
                out[student] = None
    return out
