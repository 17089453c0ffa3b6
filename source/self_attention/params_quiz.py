"""Per-student numbers and option orders for the thought-question quiz (quiz.ipynb).

Drawn from a stream of its own (see gradekit.authoring.template), so the exercise
notebook's numbers do not depend on this file. Every value is plain JSON.
The right answers are computed here too, rounded to three decimals as the
lecture rounds: they fill the answer key, and the hidden graders recompute
them independently from the same inputs.
"""

from __future__ import annotations

import numpy as np

from gradekit.i18n import N_   # marks the texts students read, for translation

LETTERS = "ABCD"
LECTURE_WEIGHTS = [0.670, 0.330]   # the worked example: x1 = (1, 0), x2 = (0, 1), W_v = 2·I
LECTURE_OUTPUT = [1.340, 0.660]

# The concept checks: the right answer and the real misconceptions as
# distractors, each with the one line of feedback that names it. Written
# against test-wise guessing (tests/test_concept_items.py): the options of an
# item are of about the same length and form -- the right one is the longest
# in one item (tied), the shortest in another, in between elsewhere -- and
# there is no "all of the above" and no absolute word that only distractors use.
QUESTIONS = [
    {
        "id": "mc_scaling",
        "question": N_("Why are the scores divided by $\\sqrt{d_k}$ before the softmax?"),
        "correct": N_("q·k has variance d_k; dividing by √d_k brings its spread back near 1, so the softmax does not "
                      "saturate."),
        "wrong": {
            N_("The softmax needs inputs that are non-negative and add up to 1, and dividing by √d_k is what makes "
               "them so."):
                N_("that is what the softmax itself does, not the scaling"),
            N_("Dividing by √d_k makes the product Q Kᵀ cheaper to compute, and that product is the slowest step of "
               "the layer."):
                N_("the scaling costs one division per score and saves nothing"),
            N_("Dividing by √d_k keeps the values V from influencing the weights, so only Q and K decide them."):
                N_("V never enters the weights whether or not you scale: only Q and K do"),
        },
    },
    {
        "id": "mc_weights",
        "question": N_("A trained model puts a large attention weight from token *i* on token *j*. "
                       "What does that tell you?"),
        "correct": N_("The scaled dot product of q_i and k_j stood out among i's scores: a clue, not proof of what the "
                      "model does."),
        "wrong": {
            N_("The model focuses on token j in the way a person pays attention to one word while reading a sentence."):
                N_("misconception: self-attention is a weighted sum, it does not model human attention"),
            N_("Token j caused the model's prediction, so the weights spell out how the model reasoned about the "
               "whole text."):
                N_("misconception: attention weights are not an explanation of the model's reasoning"),
            N_("Token j is the most important word of the sentence, for each layer and for each head of the model."):
                N_("misconception: one weight in one head of one layer says nothing about the others"),
        },
    },
    {
        "id": "mc_global",
        "question": N_("From which tokens can one self-attention layer let token *i* draw information directly?"),
        "correct": N_("From every token of the sequence, however far away it is, in one step."),
        "wrong": {
            N_("From the tokens inside a small window of neighbours around position i."):
                N_("misconception: self-attention is global, not local (windows are a later efficiency trick)"),
            N_("From the previous token, passed along one position per step as in an RNN."):
                N_("misconception: that is how an RNN moves information; attention connects any two positions at once"),
            N_("From the tokens whose embeddings are identical to the embedding of i."):
                N_("the weights are graded by similarity, and every token gets some weight"),
        },
    },
    {
        "id": "mc_order",
        "question": N_("You shuffle the input tokens of a self-attention layer that has no position encoding. "
                       "What happens to its outputs?"),
        "correct": N_("They are reordered the same way; the output of each token is unchanged."),
        "wrong": {
            N_("They come out in the original order, because attention sorts the tokens."):
                N_("nothing in the scores depends on positions, so nothing can sort them back"),
            N_("Each output changes, because every score depends on where the tokens are."):
                N_("the score of i and j depends only on the two vectors, not on their positions"),
            N_("They stay where they were: the dot products already encode the word order."):
                N_("misconception: without position encodings self-attention treats the input as a set"),
        },
    },
    {
        "id": "mc_cost",
        "question": N_("For a sequence of *n* tokens of width *d*, what do computing and storing the score table cost?"),
        "correct": N_("O(n²·d) time and O(n²) memory."),
        "wrong": {
            N_("O(n·d) time and O(n·d) memory."):
                N_("every pair of tokens gets a score: that is n² scores, not n"),
            N_("O(n³·d) time and O(n³) memory."):
                N_("one score is one dot product of length d, so n² scores cost n²·d and fill an n × n table"),
            N_("O(n²) time and O(1) memory."):
                N_("each score is a dot product of length d, and the whole n × n table is needed by the softmax "
                   "and the weighted sum"),
        },
    },
    {
        "id": "mc_projections",
        "question": N_("Why does self-attention project X with three different matrices $W_q$, $W_k$, $W_v$ "
                       "instead of comparing and mixing the raw vectors?"),
        "correct": N_("Looking for, being found and handing over content are different jobs, each learned separately."),
        "wrong": {
            N_("Three small matrices make the layer three times faster than one large matrix would make it."):
                N_("three projections cost more than none; they are there for what they let the model learn"),
            N_("The three matrices end up equal in training; they are written separately to make the formula clear."):
                N_("they are trained separately and differ: that is the point"),
            N_("W_v is the matrix that makes every row of the attention weights add up to one, as weights must."):
                N_("the softmax makes the weights add up to 1; W_v only shapes the content"),
        },
    },
]


def _answer_positions(rng: np.random.Generator, count: int) -> list[int]:
    """Where the right option goes in each item: every letter equally often (4 items: each once;
    6 items: two letters twice), in a random order. "Always the same letter" then scores at most
    ceil(count / 4) of count for every student."""
    positions = [i % len(LETTERS) for i in range(count - count % len(LETTERS))]
    positions += [int(p) for p in rng.choice(len(LETTERS), size=count % len(LETTERS), replace=False)]
    return [positions[i] for i in rng.permutation(count)]


def _softmax(s: np.ndarray) -> np.ndarray:
    e = np.exp(s - s.max())
    return e / e.sum()


def _two_tokens(rng: np.random.Generator) -> tuple[list[float], list[float]]:
    while True:
        x1, x2 = (rng.integers(-15, 16, size=2) / 10 for _ in range(2))
        if np.any(x1 == 0) or np.any(x2 == 0):
            continue
        if abs(x1[0] * x2[1] - x1[1] * x2[0]) < 0.4:
            continue  # nearly parallel: the weights would say little
        s1, s2 = np.array([x1 @ x1, x1 @ x2]) / np.sqrt(2), np.array([x2 @ x1, x2 @ x2]) / np.sqrt(2)
        if abs(s1[0] - s1[1]) < 0.3 or abs(s2[0] - s2[1]) < 0.3:
            continue
        if np.allclose(np.sort(np.abs(x1)), [0.0, 1.0]):
            continue
        return [float(v) for v in x1], [float(v) for v in x2]


def _r(values) -> list[float] | float:
    arr = np.round(np.asarray(values, dtype=float), 3)
    return arr.tolist() if arr.ndim else float(arr)


def _apart(*answers, gap: float = 0.02) -> bool:
    """Whether every two of these answers differ somewhere by more than ``gap``: the right answer
    and each wrong route the graders name must not coincide within their tolerance (±0.005), or
    a student's mistake could not be told apart from another one -- or from the right answer."""
    flat = [np.atleast_1d(np.asarray(a, dtype=float)) for a in answers]
    return all(np.abs(flat[i] - flat[j]).max() > gap for i in range(len(flat)) for j in range(i + 1, len(flat)))


def generate(rng: np.random.Generator) -> dict:
    while True:
        x1, x2 = _two_tokens(rng)
        c = float(rng.integers(5, 36)) / 10
        if c in (1.0, 2.0):
            continue
        X = np.array([x1, x2])
        raw1, raw2 = X[0] @ X.T, X[1] @ X.T
        w1, w2 = _softmax(raw1 / np.sqrt(2)), _softmax(raw2 / np.sqrt(2))
        out1, out2 = c * (w1 @ X), c * (w2 @ X)
        # thought questions 1 and 3: the right answers and the routes their graders name, apart
        unscaled, by_dk = _softmax(raw1), _softmax(raw1 / 2)
        if (_apart(w1, LECTURE_WEIGHTS, unscaled, by_dk, w2, raw1 / np.sqrt(2), [0.5, 0.5])
                and _apart(out1, LECTURE_OUTPUT, 2 * (w1 @ X), w1 @ X, c * (unscaled @ X), c * (by_dk @ X), out2)
                and _apart(out2, out1, LECTURE_OUTPUT[::-1], w2 @ X)):
            break

    # the growth factor sqrt(b / a) = sqrt(m): 39 values at least 1.3% apart, so that a classmate's
    # right answer (within 1%) is another student's in about 3% of pairs (gradekit check's variant
    # diversity; perfect squares alone were shared by 11%)
    a = int(rng.choice([2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64]))
    m = int(rng.integers(2, 41))
    b = a * m

    while True:   # both drawn again: a W4 with a zero column would make every x4 fail
        x4 = np.round(rng.uniform(-1, 1, size=3), 1)
        W4 = np.round(rng.uniform(-1, 1, size=(3, 2)), 1)
        if np.abs(x4).min() > 0 and np.abs(x4 @ W4).min() >= 0.05:
            break

    # the text grows by a ratio of 2.5, 3, ..., 20 (36 ratios, their squares at least 5% apart: a
    # classmate's factor is right for another student in about 3% of pairs; whole ratios 2 to 8 were 14%)
    n1 = int(rng.choice([500, 800, 1000, 1500, 2000]))
    k = float(rng.integers(5, 41)) / 2
    n_mem = int(rng.integers(3, 97)) * 1024

    mc = []
    for q, position in zip(QUESTIONS, _answer_positions(rng, len(QUESTIONS))):
        wrong = list(q["wrong"])
        order = [wrong[i] for i in rng.permutation(len(wrong))]
        order.insert(position, q["correct"])
        mc.append({"id": q["id"], "question": q["question"], "options": order,
                   "answer": LETTERS[position], "why": dict(q["wrong"])})

    return {
        "q1_x1": x1, "q1_x2": x2, "q1_c": c,
        "q2_a": a, "q2_b": b,
        "q4_x": x4.tolist(), "q4_Wv": W4.tolist(),
        "q5_n1": n1, "q5_n2": int(n1 * k), "q5_n": n_mem,
        "mc": mc,
        "key": {
            "tq1_weights": _r(w1), "tq1_output": _r(out1), "tq1_weights_change": "no",
            "tq2_factor": _r(np.sqrt(m)), "tq2_variance": b,
            "tq3_output": _r(out2),
            "tq4_weight": 1.0, "tq4_output": _r(x4 @ W4),
            "tq5_factor": _r(k * k), "tq5_mib": _r(2 * n_mem ** 2 / 2 ** 20),
        },
    }
