"""Per-student numbers for long_context.ipynb.

``generate(rng)`` is a pure function of the seeded generator and returns plain
JSON data. The exercise matrices are rounded to one decimal so that they print
nicely; the thought question's sizes are drawn from spaces wide enough that a
classmate's right answer is rarely another student's (gradekit check's variant
diversity), and its answers fill the answer key (the hidden graders recompute
them from the sizes).
"""

from __future__ import annotations

import numpy as np

from gradekit.i18n import N_   # marks the texts students read, for translation

D_K, D_V = 4, 3
LETTERS = "ABCD"
MB = 2 ** 20        # the lecture's table counts 1 MB as 2^20 bytes
GB = 2 ** 30

# The concept checks: the right answer and real misconceptions as distractors, each with the line of
# feedback that names it. The options of an item are of about the same length and form, the right one
# the longest in some items and the shortest in others, and there is no "all of the above".
QUESTIONS = [
    {
        "id": "mc_cost",
        "question": N_("Why does a long context make self-attention so costly?"),
        "correct": N_("Every token scores every token: the n × n table grows as n², in time and memory."),
        "wrong": {
            N_("Every token's vector gets longer as the text grows, so each dot product costs more."):
                N_("d stays the same however long the text is: it is the number of pairs that grows"),
            N_("A longer context needs more layers, and every layer adds the whole cost once more."):
                N_("the number of layers belongs to the model, not to the length of its input"),
            N_("The cost grows with n as in an RNN, but attention cannot run its steps in parallel."):
                N_("attention runs all its tokens in parallel; its cost grows with n², not with n"),
        },
    },
    {
        "id": "mc_flash",
        "question": N_("FlashAttention never stores the n × n table. What does it trade for that?"),
        "correct": N_("Nothing in the result: the scores are computed block by block and recomputed, not kept."),
        "wrong": {
            N_("Exactness: it approximates the softmax with a cheaper function, so the output is only close."):
                N_("that is linear attention; FlashAttention's output equals full attention"),
            N_("Reach: each token sees only its nearest neighbours, so the long-range pairs are skipped."):
                N_("that is a sliding window; under FlashAttention every token still sees every token"),
            N_("Work: it skips the small scores, so the multiply-adds drop from O(n²·d) to O(n·d)."):
                N_("it computes every score: the work stays O(n²·d), only the memory for the scores drops to O(n)"),
        },
    },
    {
        "id": "mc_sparse",
        "question": N_("Sparse attention lets each token attend to a fixed pattern of positions (some near, a few "
                       "far). What does it give up?"),
        "correct": N_("Direct links: pairs outside the pattern meet only through other tokens or layers."),
        "wrong": {
            N_("Nothing: on every input it returns exactly the output of full attention, only faster."):
                N_("a pattern leaves pairs out, so the output differs from full attention's"),
            N_("The normalisation: the weights of a token no longer sum to 1 over the keys it sees."):
                N_("the softmax still normalises over the keys in the pattern"),
            N_("Parallelism: the tokens must then be processed one after another, as in an RNN."):
                N_("every token's pattern is known in advance, so all the tokens still run in parallel"),
        },
    },
    {
        "id": "mc_linear",
        "question": N_("Linear attention replaces exp(q·k) by a product of feature maps φ(q)·φ(k). What makes it "
                       "linear in n, and what does it trade?"),
        "correct": N_("φ(K)ᵀV is summed once for all queries, so no n × n table forms; the softmax is approximated."),
        "wrong": {
            N_("It keeps only the largest scores of each row, so it is exact wherever the others are small."):
                N_("that is a form of sparse attention; linear attention forms no table at all"),
            N_("It folds the keys in block by block with a running maximum, so it equals the softmax exactly."):
                N_("that is FlashAttention's online softmax, which is exact and still O(n²) in time"),
            N_("It attends over the first n / k tokens only, so the table becomes k² times smaller."):
                N_("it keeps every token: what changes is how the scores are combined"),
        },
    },
    {
        "id": "mc_window",
        "question": N_("With a sliding window of w tokens, what does attention over n tokens cost, and what is "
                       "lost?"),
        "correct": N_("O(n·w) scores; a token sees past w tokens back only through the layers above it."),
        "wrong": {
            N_("O(n²) as before, because the mask is applied after the whole table has been computed."):
                N_("a window implementation computes only the n·w scores inside the windows"),
            N_("O(w²) in all, whatever n is, because only one window is attended to at a time."):
                N_("each of the n tokens has a window of its own: n·w scores in all"),
            N_("O(n·w) scores, and nothing is lost, because a window's softmax equals full attention."):
                N_("the keys outside the window get no weight at all, unlike in full attention"),
        },
    },
]


def _answer_positions(rng: np.random.Generator, count: int) -> list[int]:
    """Where the right option goes in each item: every letter about equally often, in a random order.
    "Always the same letter" then scores at most ceil(count / 4) of count for every student."""
    positions = [i % len(LETTERS) for i in range(count - count % len(LETTERS))]
    positions += [int(p) for p in rng.choice(len(LETTERS), size=count % len(LETTERS), replace=False)]
    return [positions[i] for i in rng.permutation(count)]


def _matrix(rng: np.random.Generator, rows: int, cols: int) -> np.ndarray:
    return np.round(rng.uniform(-1.5, 1.5, size=(rows, cols)), 1) + 0.0   # + 0.0: no -0.0 printed


def _sequence(rng: np.random.Generator, n: int, block: int):
    """Q, K, V whose row maxima grow after the first key block in some rows and stay in
    others: then forgetting to rescale, or rescaling only one of the running sums, changes the
    result, and the visible checks on the student's own numbers show it."""
    while True:
        Q, K, V = _matrix(rng, n, D_K), _matrix(rng, n, D_K), _matrix(rng, n, D_V)
        s = Q @ K.T / np.sqrt(D_K)
        first = s[:, :block].max(axis=1)
        later = s[:, block:].max(axis=1)
        grows, stays = later > first + 0.2, later < first
        if grows.sum() >= 2 and stays.sum() >= 2 and s.std() > 0.5:
            return Q, K, V


def _memory(rng: np.random.Generator) -> dict:
    n = int(rng.integers(2, 257)) * 512           # 1,024 ... 131,072 tokens
    gib = int(rng.integers(2, 97))                # a memory of 2 ... 96 GB
    block = int(rng.choice([64, 128, 256, 512]))
    return {
        "tq1_n": n, "tq1_gb": gib, "tq1_block": block,
        "key": {
            "tq1_mb": 2 * n * n / MB,
            "tq1_max_n": float(np.sqrt(gib * GB / 2)),
            "tq1_block_mb": 2 * n * block / MB,
        },
    }


def generate(rng: np.random.Generator) -> dict:
    n = int(rng.choice([9, 10, 11, 13]))
    block = int(rng.choice([b for b in (2, 3, 4, 5) if n % b]))   # the last block is a partial one
    w = int(rng.integers(2, 5))
    Q, K, V = _sequence(rng, n, block)

    mc = []
    for q, position in zip(QUESTIONS, _answer_positions(rng, len(QUESTIONS))):
        wrong = list(q["wrong"])
        order = [wrong[i] for i in rng.permutation(len(wrong))]
        order.insert(position, q["correct"])
        mc.append({"id": q["id"], "question": q["question"], "options": order,
                   "answer": LETTERS[position], "why": dict(q["wrong"])})

    memory = _memory(rng)
    return {
        "n": n, "d_k": D_K, "d_v": D_V, "block": block, "w": w,
        "Q": Q.tolist(), "K": K.tolist(), "V": V.tolist(),
        "mc": mc,
        **{k: v for k, v in memory.items() if k != "key"},
        "key": {**memory["key"], **{q["id"]: q["answer"] for q in mc}},
    }
