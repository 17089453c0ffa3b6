"""Reference implementations for the long-context assignment.

The names the notebook asks for (``window_mask``, ``window_attention``,
``online_step``, ``blockwise_attention``) match the solution cells of
``source/long_context/long_context.ipynb``; ``scaled_dot`` and
``full_attention`` are the helpers its setup cell gives the students. The
functions after them compute what classic wrong routes give, so that the hidden
graders can name a mistake in their feedback.

Shapes: Q is (n_q, d_k), K is (n_k, d_k), V is (n_k, d_v). A score function
``score(Q, K_block)`` returns the (n_q, b) scores of the queries against a block
of b keys. The running state of the online softmax, for n_q queries, is
``m`` (n_q,), the largest score seen so far in each row; ``l`` (n_q,), the sum of
exp(score - m) over the keys seen so far; and ``acc`` (n_q, d_v), the sum of
exp(score - m) * value over the same keys. The empty state is (-inf, 0, 0).
"""

from __future__ import annotations

import numpy as np

from gradekit.i18n import _

# ---------------------------------------------------------------------------
# the students' helpers (the notebook's setup cell defines the same)


def scaled_dot(Q, K):
    """The lecture's scores, Q Kᵀ / √d_k: (n_q, d_k), (b, d_k) -> (n_q, b)."""
    Q, K = np.asarray(Q, dtype=float), np.asarray(K, dtype=float)
    return Q @ K.T / np.sqrt(K.shape[-1])


def softmax(x, axis=-1):
    """Numerically stable softmax along ``axis``."""
    x = np.asarray(x, dtype=float)
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)


def full_attention(Q, K, V, score=scaled_dot):
    """softmax(score(Q, K)) V, with the whole (n_q, n_k) table at once."""
    return softmax(score(Q, K), axis=-1) @ np.asarray(V, dtype=float)


# ---------------------------------------------------------------------------
# the exercises


def window_mask(n, w=None):
    """(n, n) booleans: query i may see key j when j <= i and i - j < w.

    The last w tokens, the token itself included; ``w=None`` is the causal mask
    (the whole past).
    """
    i, j = np.arange(n)[:, None], np.arange(n)[None, :]
    allowed = j <= i
    if w is not None:
        allowed = allowed & (i - j < w)
    return allowed


def window_attention(Q, K, V, w=None):
    """Self-attention in which token i sees only the tokens window_mask(n, w) allows.

    Q, K (n, d_k) and V (n, d_v) belong to the same n tokens; returns (n, d_v).
    """
    Q, K, V = (np.asarray(a, dtype=float) for a in (Q, K, V))
    scores = np.where(window_mask(len(Q), w), scaled_dot(Q, K), -np.inf)
    return softmax(scores, axis=-1) @ V


def online_step(m, l, acc, s, v):
    """One block of keys folded into the running softmax; returns (m, l, acc).

    s (n_q, b): the block's scores; v (b, d_v): its values.
    """
    m, l, acc = np.asarray(m, dtype=float), np.asarray(l, dtype=float), np.asarray(acc, dtype=float)
    s, v = np.asarray(s, dtype=float), np.asarray(v, dtype=float)
    m_new = np.maximum(m, s.max(axis=1))
    alpha = np.exp(m - m_new)                 # 0 for the empty state (m = -inf)
    p = np.exp(s - m_new[:, None])
    return m_new, alpha * l + p.sum(axis=1), alpha[:, None] * acc + p @ v


def empty_state(n_q, d_v):
    """The running state before any key: (-inf, 0, 0)."""
    return np.full(n_q, -np.inf), np.zeros(n_q), np.zeros((n_q, d_v))


def blockwise_attention(Q, K, V, block, score):
    """Attention over key blocks of ``block`` keys, with the online softmax.

    Equal to softmax(score(Q, K)) V, but score is never called on more than
    ``block`` keys: the scores take O(n_q · block) memory, not O(n_q · n_k).
    """
    Q, K, V = (np.asarray(a, dtype=float) for a in (Q, K, V))
    m, l, acc = empty_state(len(Q), V.shape[1])
    for start in range(0, len(K), block):
        s = np.asarray(score(Q, K[start:start + block]), dtype=float)
        m, l, acc = online_step(m, l, acc, s, V[start:start + block])
    return acc / l[:, None]


# ---------------------------------------------------------------------------
# helpers for the graders: the states of the online softmax, and classic wrong routes


def state_after(s, v, upto):
    """The running state after the first ``upto`` keys of scores s (n_q, n_k) and values v."""
    s, v = np.asarray(s, dtype=float), np.asarray(v, dtype=float)
    if upto == 0:
        return empty_state(s.shape[0], v.shape[1])
    return online_step(*empty_state(s.shape[0], v.shape[1]), s[:, :upto], v[:upto])


def online_step_variant(m, l, acc, s, v, *, rescale_l=True, rescale_acc=True, inverted=False,
                        old_max_in_p=False, block_max=False):
    """online_step with one ingredient changed; returns (m, l, acc).

    ``rescale_l`` / ``rescale_acc``: multiply the old sums by exp(m - m_new);
    ``inverted``: by exp(m_new - m) instead; ``old_max_in_p``: the block's
    exponentials taken against the old maximum; ``block_max``: the new maximum is
    the block's alone, forgetting the old one.
    """
    m, l, acc = np.asarray(m, dtype=float), np.asarray(l, dtype=float), np.asarray(acc, dtype=float)
    s, v = np.asarray(s, dtype=float), np.asarray(v, dtype=float)
    with np.errstate(all="ignore"):
        m_new = s.max(axis=1) if block_max else np.maximum(m, s.max(axis=1))
        alpha = np.exp(m_new - m) if inverted else np.exp(m - m_new)
        p = np.exp(s - (m if old_max_in_p else m_new)[:, None])
        l_new = (alpha * l if rescale_l else l) + p.sum(axis=1)
        acc_new = (alpha[:, None] * acc if rescale_acc else acc) + p @ v
    return m_new, l_new, acc_new


def attention_over_keys(Q, K, V, keys, score=scaled_dot):
    """softmax over the listed key positions only (a position listed twice counts twice).

    What a loop over blocks that skips or repeats keys computes. ``None`` when
    no key is left.
    """
    keys = list(keys)
    if not keys:
        return None
    K, V = np.asarray(K, dtype=float), np.asarray(V, dtype=float)
    return full_attention(Q, K[keys], V[keys], score)


def blocks_dropping_the_last(n_k, block):
    """The key positions a loop that drops the last partial block visits."""
    return list(range(n_k - n_k % block))


def blocks_one_short(n_k, block):
    """The positions a loop visits that slices K[start:start + block - 1]: each block loses its last key."""
    return [j for start in range(0, n_k, block) for j in range(start, min(start + block - 1, n_k))]


def blocks_overlapping(n_k, block):
    """The positions a loop visits that slices K[start:start + block + 1]: each block also takes the next one's first key."""
    return [j for start in range(0, n_k, block) for j in range(start, min(start + block + 1, n_k))]


def unnormalised(Q, K, V, score=scaled_dot):
    """acc without the final division by l: Σ_j exp(s_j - max s) v_j."""
    s = np.asarray(score(Q, K), dtype=float)
    return np.exp(s - s.max(axis=1, keepdims=True)) @ np.asarray(V, dtype=float)


def window_attention_variant(Q, K, V, w=None, *, mask=None, mode="before", scale=None):
    """window_attention with one ingredient changed.

    ``mask`` replaces window_mask(n, w); ``mode``: "before" (right), "after"
    (weights zeroed after the softmax, not renormalised), "zero" (masked scores
    set to 0 instead of -inf), "ignore" (no mask); ``scale`` divides the scores
    instead of √d_k.
    """
    Q, K, V = (np.asarray(a, dtype=float) for a in (Q, K, V))
    allowed = window_mask(len(Q), w) if mask is None else np.asarray(mask, dtype=bool)
    scores = Q @ K.T / (np.sqrt(K.shape[-1]) if scale is None else scale)
    if mode == "before":
        scores = np.where(allowed, scores, -np.inf)
    elif mode == "zero":
        scores = np.where(allowed, scores, 0.0)
    with np.errstate(all="ignore"):        # a row with no key left: NaN, as the student's code gives
        weights = softmax(scores, axis=-1)
        if mode == "after":
            weights = np.where(allowed, weights, 0.0)
        return weights @ V


def band_mask(n, w):
    """|i - j| < w: a window that also looks ahead."""
    i, j = np.arange(n)[:, None], np.arange(n)[None, :]
    return np.abs(i - j) < (n if w is None else w)


# ---------------------------------------------------------------------------
# the catalogue of wrong loops, shared by the graders of blockwise_attention

DROPS_LAST = _("dropped the last, shorter block: when n_k is not a multiple of block, its keys count too")
ONE_SHORT = _("every block stops one key short: K[start:start + block] already ends before key start + block")
OVERLAP = _("the blocks overlap: the next block starts at start + block, and K[start:start + block] stops before it")
NO_DIVISION = _("forgot to divide the accumulator by the denominator after the last block")
RESET = _("the running state was reset in every block: only the last block counted")
SCALED_AGAIN = _("divided the scores by sqrt(d_k) again: score already returns the scores, use them as they are")


def blockwise_routes(Q, K, V, block, score):
    """{mistake: output} for ``blockwise_attention(Q, K, V, block, score)`` (None: not defined here)."""
    Q, K, V = (np.asarray(a, dtype=float) for a in (Q, K, V))
    n_k, d_k = len(K), K.shape[1]
    over = lambda keys: attention_over_keys(Q, K, V, keys, score)
    last_start = (n_k - 1) // block * block
    return {
        DROPS_LAST: over(blocks_dropping_the_last(n_k, block)) if n_k % block else None,
        ONE_SHORT: over(blocks_one_short(n_k, block)),
        OVERLAP: over(blocks_overlapping(n_k, block)),
        NO_DIVISION: unnormalised(Q, K, V, score),
        RESET: over(range(last_start, n_k)) if n_k > block else None,
        SCALED_AGAIN: full_attention(Q, K, V, lambda q, k: np.asarray(score(q, k)) / np.sqrt(d_k)),
    }
