"""Hidden tests for the cell `test_self_attention`: self_attention(X, W_q, W_k, W_v) -> (output, weights).

The student's helpers (project_qkv, scaled_scores, softmax, weighted_sum) are
replaced by the reference ones, so only a mistake inside self_attention itself
costs points here.
"""

import functools

import numpy as np

from gradekit.graders import check

TOL = dict(rtol=1e-5, atol=1e-6)
HELPERS = ("project_qkv", "scaled_scores", "softmax", "weighted_sum")
LECTURE_WEIGHTS = np.array([[0.670, 0.330], [0.330, 0.670]])


def _mistakes(reference, X, W_q, W_k, W_v):
    n, d_model = X.shape
    d_k, d_v = W_k.shape[1], W_v.shape[1]
    variant = lambda **kw: reference.attention_variant(X, W_q, W_k, W_v, **kw)
    routes = {
        "no scaling: divide the scores by sqrt(d_k)": dict(scale=1.0),
        "divided the scores by d_k instead of sqrt(d_k)": dict(scale=float(d_k)),
        "Q and K swapped (computed K Qᵀ)": dict(swap_qk=True),
        "softmax along the wrong axis: each row (one query) should sum to 1": dict(axis=0),
        "used a causal mask: plain self-attention lets every token see every other token": dict(causal=True),
    }
    # scaling by the wrong width; only when it differs from d_k
    for name, size in (("d_model", d_model), ("d_v", d_v), ("n, the number of tokens", n)):
        if size != d_k:
            routes[f"scaled by sqrt({name}) instead of sqrt(d_k)"] = dict(scale=float(np.sqrt(size)))
    if W_v.shape != W_k.shape or not np.allclose(W_v, W_k):
        routes["projected the values with W_k instead of W_v"] = dict(value_matrix=W_k)
    out_m, w_m = {}, {}
    for text, kw in routes.items():
        out, w = variant(**kw)
        out_m[text], w_m[text] = out, w
    if n == 2:
        out_m["hard-coded the lecture's 0.670 / 0.330 weights"] = LECTURE_WEIGHTS @ (X @ W_v)
        w_m["hard-coded the lecture's 0.670 / 0.330 weights"] = LECTURE_WEIGHTS
    return out_m, w_m


def _check(student, reference, X, W_q, W_k, W_v, what):
    sa = student.with_reference(*HELPERS)
    got = sa.self_attention(X, W_q, W_k, W_v)
    assert isinstance(got, (tuple, list)) and len(got) == 2, \
        f"self_attention on {what}: should return the tuple (output, weights)"
    out, w = reference.self_attention(X, W_q, W_k, W_v)
    routes = functools.cache(lambda: _mistakes(reference, X, W_q, W_k, W_v))  # only for a wrong answer
    swapped = "returned (weights, output) instead of (output, weights)"
    check.array(got[1], w, what=f"the weights from self_attention on {what}", **TOL,
                mistakes=lambda: {**routes()[1], swapped: out})
    check.array(got[0], out, what=f"the output from self_attention on {what}", **TOL,
                mistakes=lambda: {**routes()[0], swapped: w})


def test_all_dimensions_different(student, reference, rng):
    X = rng.normal(size=(6, 5))
    W_q, W_k, W_v = rng.normal(size=(5, 3)), rng.normal(size=(5, 3)), rng.normal(size=(5, 4))
    _check(student, reference, X, W_q, W_k, W_v, "6 tokens, d_model=5, d_k=3, d_v=4")


def test_your_notebook_numbers(student, reference, params):
    X, W_q, W_k, W_v = (np.array(params[k]) for k in ("X", "W_q", "W_k", "W_v"))
    _check(student, reference, X, W_q, W_k, W_v, "the X, W_q, W_k, W_v of your notebook")


def test_your_hand_example(student, reference, params):
    X = np.array([params["x1"], params["x2"]])
    I = np.eye(2)
    _check(student, reference, X, I, I, params["c"] * I, "your hand example (x1, x2, W_q = W_k = I, W_v = c·I)")


def test_two_tokens(student, reference, rng):
    X = rng.normal(size=(2, 3))
    W_q, W_k, W_v = rng.normal(size=(3, 5)), rng.normal(size=(3, 5)), rng.normal(size=(3, 4))
    _check(student, reference, X, W_q, W_k, W_v, "2 tokens, d_model=3, d_k=5, d_v=4")


def test_sharp_scores(student, reference, rng):
    # larger scores, where the scaling decides which token dominates
    X = 2.0 * rng.normal(size=(7, 4))
    W_q, W_k, W_v = rng.normal(size=(4, 6)), rng.normal(size=(4, 6)), rng.normal(size=(4, 2))
    _check(student, reference, X, W_q, W_k, W_v, "7 tokens with large scores, d_model=4, d_k=6, d_v=2")


def test_single_token(student, reference, rng):
    # one token can only attend to itself: weight 1, output = its value
    X = rng.normal(size=(1, 3))
    W_q, W_k, W_v = rng.normal(size=(3, 2)), rng.normal(size=(3, 2)), rng.normal(size=(3, 4))
    _check(student, reference, X, W_q, W_k, W_v, "a single token (n=1), d_model=3, d_k=2, d_v=4")
