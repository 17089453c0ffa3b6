"""Per-student numbers for the self-attention notebook.

``generate(rng)`` is a pure function of the seeded generator and returns plain
JSON data (lists, floats, ints). Every array is rounded so that it prints
nicely in the notebook; the derived values of the hand example are kept at
full precision so the visible tests can compare against them.
"""

from __future__ import annotations

import numpy as np

# Shapes of the student's small example: all four sizes differ, so a
# transposed product or a wrong scaling dimension shows up as a shape error
# or a wrong value.
N_TOKENS = 5
D_MODEL = 4
D_K = 2
D_V = 3


def _vector(rng: np.random.Generator) -> list[float]:
    """A 2-d vector with one-decimal entries in [-1.5, 1.5], both non-zero."""
    while True:
        v = rng.integers(-15, 16, size=2)
        if np.all(v != 0):
            return [float(x) / 10 for x in v]


def _hand_example(rng: np.random.Generator) -> tuple[list[float], list[float]]:
    """x1, x2 well apart from parallel and different from the lecture's [1,0], [0,1]."""
    while True:
        x1, x2 = _vector(rng), _vector(rng)
        a, b = np.array(x1), np.array(x2)
        det = abs(a[0] * b[1] - a[1] * b[0])
        if det < 0.4 or np.linalg.norm(a) < 0.6 or np.linalg.norm(b) < 0.6:
            continue
        # the two softmax weights of token 1 must be clearly unequal
        s = np.array([a @ a, a @ b]) / np.sqrt(2)
        if abs(s[0] - s[1]) < 0.3:
            continue
        return x1, x2


def _softmax(s: np.ndarray) -> np.ndarray:
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _matrix(rng: np.random.Generator, rows: int, cols: int) -> np.ndarray:
    return np.round(rng.uniform(-1.0, 1.0, size=(rows, cols)), 2)


def generate(rng: np.random.Generator) -> dict:
    x1, x2 = _hand_example(rng)
    # W_v = c * I with c != 2 (the lecture's value) and c != 1 (then V would equal X)
    while True:
        c = float(rng.integers(5, 36)) / 10
        if c not in (1.0, 2.0):
            break

    hx = np.array([x1, x2])
    hand_scores = hx @ hx.T / np.sqrt(2.0)
    hand_weights = _softmax(hand_scores)
    hand_output = hand_weights @ (c * hx)

    while True:
        X = _matrix(rng, N_TOKENS, D_MODEL)
        W_q = _matrix(rng, D_MODEL, D_K)
        W_k = _matrix(rng, D_MODEL, D_K)
        W_v = _matrix(rng, D_MODEL, D_V)
        scores = (X @ W_q) @ (X @ W_k).T / np.sqrt(D_K)
        # non-degenerate: the scores must spread, no all-zero row anywhere,
        # and W_q must not equal W_k (else swapping Q and K goes unnoticed)
        rows_ok = all(np.abs(m).sum(axis=1).min() > 0.3 for m in (X, W_q, W_k, W_v))
        if rows_ok and scores.std() > 0.15 and np.abs(W_q - W_k).max() > 0.3:
            break

    # a vector that overflows a naive exp(): values around 1000
    big = [round(1000.0 + float(v), 1) for v in rng.uniform(-4.0, 4.0, size=4)]

    return {
        "x1": x1,
        "x2": x2,
        "c": c,
        "hand_scores": hand_scores.tolist(),
        "hand_weights": hand_weights.tolist(),
        "hand_output": hand_output.tolist(),
        "n": N_TOKENS,
        "d_model": D_MODEL,
        "d_k": D_K,
        "d_v": D_V,
        "X": X.tolist(),
        "W_q": W_q.tolist(),
        "W_k": W_k.tolist(),
        "W_v": W_v.tolist(),
        "big": big,
    }
