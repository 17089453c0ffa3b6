"""Hidden tests for the cell `test_project_qkv`: project_qkv(X, W_q, W_k, W_v) -> (Q, K, V)."""

import numpy as np

from gradekit.graders import check

TOL = dict(rtol=1e-5, atol=1e-6)  # loose enough for float32 answers


def _weights(rng, n, d_model, d_k, d_v):
    X = rng.normal(size=(n, d_model))
    return X, rng.normal(size=(d_model, d_k)), rng.normal(size=(d_model, d_k)), rng.normal(size=(d_model, d_v))


def _check(student, reference, X, W_q, W_k, W_v, what):
    got = student.project_qkv(X, W_q, W_k, W_v)
    assert isinstance(got, (tuple, list)) and len(got) == 3, \
        f"project_qkv on {what}: should return the tuple (Q, K, V), got {type(got).__name__}" + \
        (f" of length {len(got)}" if isinstance(got, (tuple, list)) else "")
    Q, K, V = reference.project_qkv(X, W_q, W_k, W_v)
    wrong_order = "multiplied in the wrong order: the token rows of X go on the left, X @ W"
    check.array(got[0], Q, what=f"Q from project_qkv on {what}", **TOL, mistakes={
        "Q and K swapped: this is X @ W_k": K,
        "used W_v for the queries": V,
        wrong_order: Q.T,
    })
    check.array(got[1], K, what=f"K from project_qkv on {what}", **TOL, mistakes={
        "Q and K swapped: this is X @ W_q": Q,
        "used W_v for the keys": V,
        wrong_order: K.T,
    })
    check.array(got[2], V, what=f"V from project_qkv on {what}", **TOL, mistakes={
        "used W_k for the values (V should be X @ W_v)": K,
        "used W_q for the values (V should be X @ W_v)": Q,
        wrong_order: V.T,
    })


def test_all_dimensions_different(student, reference, rng):
    X, W_q, W_k, W_v = _weights(rng, n=6, d_model=5, d_k=3, d_v=4)
    _check(student, reference, X, W_q, W_k, W_v, "6 tokens, d_model=5, d_k=3, d_v=4")


def test_your_notebook_numbers(student, reference, params):
    X, W_q, W_k, W_v = (np.array(params[k]) for k in ("X", "W_q", "W_k", "W_v"))
    _check(student, reference, X, W_q, W_k, W_v, "the X, W_q, W_k, W_v of your notebook")


def test_values_wider_than_keys(student, reference, rng):
    X, W_q, W_k, W_v = _weights(rng, n=7, d_model=3, d_k=2, d_v=9)
    _check(student, reference, X, W_q, W_k, W_v, "7 tokens, d_model=3, d_k=2, d_v=9")


def test_single_token(student, reference, rng):
    X, W_q, W_k, W_v = _weights(rng, n=1, d_model=4, d_k=6, d_v=2)
    _check(student, reference, X, W_q, W_k, W_v, "a single token (n=1), d_model=4, d_k=6, d_v=2")
