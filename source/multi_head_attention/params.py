"""Per-student numbers for multi_head_attention.ipynb.

``generate(rng)`` is a pure function of the seeded generator and returns plain
JSON data. The exercise matrices are rounded so that they print nicely; the
values the visible checks compare against are kept at full precision. The
thought questions' numbers are drawn here too, with their answers (which fill
the answer key; the hidden graders recompute them from the inputs).
"""

from __future__ import annotations

import numpy as np

from gradekit.i18n import N_   # marks the texts students read, for translation

# The student's layer: every size differs from the others, so a product in the
# wrong order, a wrong reshape or a scaling by the wrong width changes a shape
# or a value.
N_TOKENS = 5
D_MODEL = 7
N_HEADS = 2
D_K = 4          # per head: the queries and keys are N_HEADS * D_K = 8 wide
D_V = 3          # per head: the values are N_HEADS * D_V = 6 wide
D_OUT = 4

LETTERS = "ABCD"
HEADS_QUESTION = {
    "correct": N_("As many multiply-adds as one wide head, but n_heads score tables to keep: the heads buy "
                  "separate patterns, not speed."),
    "wrong": {
        N_("n_heads times cheaper: each head is only d_model / n_heads wide, so the score tables of all the "
           "heads cost that much less."):
            N_("each head is narrower, but there are n_heads of them: together they do the same work as one wide head"),
        N_("n_heads times dearer: every head computes a full-width score table over all d_model columns of "
           "the queries and keys."):
            N_("a head works on its own d_model / n_heads columns, not on all of d_model"),
        N_("No extra cost at all, neither in multiply-adds nor in memory, because all the heads share one "
           "single score table."):
            N_("every head keeps its own n × n table of weights: n_heads tables instead of one"),
    },
}


def _softmax(s: np.ndarray) -> np.ndarray:
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _matrix(rng: np.random.Generator, rows: int, cols: int) -> np.ndarray:
    return np.round(rng.uniform(-1.0, 1.0, size=(rows, cols)), 2)


def _layer(rng: np.random.Generator):
    """X and the four matrices, drawn until every head's weights clearly differ from uniform."""
    while True:
        X = _matrix(rng, N_TOKENS, D_MODEL)
        W_q, W_k = _matrix(rng, D_MODEL, N_HEADS * D_K), _matrix(rng, D_MODEL, N_HEADS * D_K)
        W_v, W_o = _matrix(rng, D_MODEL, N_HEADS * D_V), _matrix(rng, N_HEADS * D_V, D_OUT)
        Q = (X @ W_q).reshape(N_TOKENS, N_HEADS, D_K).transpose(1, 0, 2)
        K = (X @ W_k).reshape(N_TOKENS, N_HEADS, D_K).transpose(1, 0, 2)
        scores = Q @ K.transpose(0, 2, 1) / np.sqrt(D_K)
        if all(s.std() > 0.2 for s in scores) and np.abs(W_q - W_k).max() > 0.3:
            return X, W_q, W_k, W_v, W_o, Q, K


def _heads(X, W_q, W_k, W_v, W_o, causal: bool):
    """The reference computation, written out here so params.py stands alone."""
    split = lambda A: A.reshape(N_TOKENS, N_HEADS, -1).transpose(1, 0, 2)
    Q, K, V = split(X @ W_q), split(X @ W_k), split(X @ W_v)
    scores = Q @ K.transpose(0, 2, 1) / np.sqrt(D_K)
    if causal:
        scores = np.where(np.tril(np.ones((N_TOKENS, N_TOKENS), dtype=bool)), scores, -np.inf)
    weights = _softmax(scores)
    merged = (weights @ V).transpose(1, 0, 2).reshape(N_TOKENS, N_HEADS * D_V)
    return merged @ W_o, weights


def _questions(rng: np.random.Generator) -> dict:
    # the sizes are drawn from spaces wide enough that a classmate's right answer is right for another
    # student in at most about 4% of pairs (gradekit check's variant diversity)
    # 1: parameters of one layer
    d_head = int(rng.choice(range(16, 129, 8)))
    heads1 = int(rng.integers(2, 17))
    d_model1 = heads1 * d_head
    # 2: the FP16 KV cache
    heads2 = int(rng.choice([4, 6, 8, 10, 12, 14, 16, 20, 24, 28, 32, 40, 48, 64]))
    d_head2 = int(rng.choice([48, 56, 64, 80, 96, 112, 128]))
    layers = int(rng.choice([12, 24, 28, 32, 40]))
    context = int(rng.choice([2048, 4096, 8192, 16384, 32768]))
    per_token = 2 * heads2 * d_head2 * 2
    # 3: many heads or one wide head
    heads3 = int(rng.integers(2, 41))
    d_model3 = heads3 * int(rng.choice([32, 64, 96]))
    n3 = int(rng.choice([1024, 2048, 4096, 8192]))
    options = [HEADS_QUESTION["correct"], *HEADS_QUESTION["wrong"]]
    order = [options[i] for i in rng.permutation(len(options))]
    return {
        "tq1_d_model": d_model1, "tq1_heads": heads1,
        "tq2_heads": heads2, "tq2_d_head": d_head2, "tq2_layers": layers, "tq2_context": context,
        "tq3_heads": heads3, "tq3_d_model": d_model3, "tq3_n": n3,
        "tq3_options": order, "tq3_why": dict(HEADS_QUESTION["wrong"]),
        "key": {
            "tq1_params": 4 * d_model1 ** 2,
            "tq1_head_params": 3 * d_model1 * d_head,
            "tq2_bytes": per_token,
            "tq2_mib": context * layers * per_token / 2 ** 20,
            "tq3_compute_ratio": 1,
            "tq3_tables": heads3,
            "tq3_choice": LETTERS[order.index(HEADS_QUESTION["correct"])],
        },
    }


def generate(rng: np.random.Generator) -> dict:
    X, W_q, W_k, W_v, W_o, Q, K = _layer(rng)
    q0, k0, v0 = (X @ W_q)[:, :D_K], (X @ W_k)[:, :D_K], (X @ W_v)[:, :D_V]
    output, weights = _heads(X, W_q, W_k, W_v, W_o, causal=False)
    causal_output, causal_weights = _heads(X, W_q, W_k, W_v, W_o, causal=True)
    return {
        "n": N_TOKENS, "d_model": D_MODEL, "n_heads": N_HEADS, "d_k": D_K, "d_v": D_V, "d_out": D_OUT,
        "X": X.tolist(), "W_q": W_q.tolist(), "W_k": W_k.tolist(), "W_v": W_v.tolist(), "W_o": W_o.tolist(),
        # head 0 on its own, for the visible checks of attention()
        "head0_weights": _softmax(q0 @ k0.T / np.sqrt(D_K)).tolist(),
        "head0_output": (_softmax(q0 @ k0.T / np.sqrt(D_K)) @ v0).tolist(),
        "mha_output": output.tolist(), "mha_weights": weights.tolist(),
        "causal_output": causal_output.tolist(), "causal_weights": causal_weights.tolist(),
        **_questions(rng),
    }
