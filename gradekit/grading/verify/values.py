"""Claims about what the values are, recomputed from S and R alone: a factor, a shift, a function of
each right value, an order, a normalisation, a precision, an input itself.

Each function takes the claim's argument and a :class:`Case` of one subject (one part) and says
True (the sentence is true here), False (it is not) or None (it cannot be told here: too few
values to refute it, or nothing the claim is about). A number fitted on each check counts as a
value the data must outnumber: a factor of its own on one number fits anything.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from gradekit.grading.verify.basics import Case, axis, evaluate, fit, sizes, two

Outcome = bool | None


def _erf(x: np.ndarray) -> np.ndarray:
    return np.vectorize(math.erf, otypes=[float])(x)


def _softplus(r: np.ndarray) -> np.ndarray:
    return np.where(r > 30, r, np.log1p(np.exp(np.minimum(r, 30))))


# each function a sentence names, written here again (not the search's)
FUNCTIONS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "abs": np.abs,
    "square": lambda r: r * r,
    "sqrt": np.sqrt,
    "exp": np.exp,
    "log": np.log,
    "relu": lambda r: np.where(r > 0, r, 0.0),
    "negative": lambda r: np.where(r < 0, r, 0.0),
    "sigmoid": lambda r: 1.0 / (1.0 + np.exp(-r)),
    "tanh": np.tanh,
    "sign": np.sign,
    "reciprocal": lambda r: 1.0 / r,
    "gelu": lambda r: r * 0.5 * (1.0 + _erf(r / math.sqrt(2.0))),
    "gelu_tanh": lambda r: 0.5 * r * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (r + 0.044715 * r**3))),
    "softplus": _softplus,
}


def transform(name: str) -> Callable[[np.ndarray], np.ndarray] | None:
    """A function a claim names: one of FUNCTIONS, ``round:k``, ``clip:low:high``, ``float16``."""
    if name in FUNCTIONS:
        return FUNCTIONS[name]
    kind, _sep, rest = name.partition(":")
    if kind == "round" and rest.isdigit():
        return lambda x: np.round(x, int(rest))
    if kind == "clip":
        low, _sep, high = rest.partition(":")
        try:
            lo, hi = float(low), float(high)
        except ValueError:
            return None
        return lambda x: np.minimum(np.maximum(x, lo), hi)
    if name == "float16":
        return lambda x: np.asarray(x, dtype=np.float16).astype(np.float64)
    return None


def comparable(S: np.ndarray, R: np.ndarray) -> bool:
    """The same shape, and every value finite on both sides: a claim about the values can be weighed."""
    return S.shape == R.shape and bool(np.all(np.isfinite(S)) and np.all(np.isfinite(R)))


def one(case: Case) -> tuple[np.ndarray, np.ndarray] | None:
    """The subject's one value and its right one (a value claim is about one part)."""
    if len(case.S) != 1:
        return None
    return case.S[0], case.R[0]


def factor(arg: str, case: Case) -> Outcome:
    pair = one(case)
    if pair is None:
        return None
    S, R = pair
    if not comparable(S, R):
        return False
    nonzero = int(np.count_nonzero(np.abs(R) > case.atol))
    if nonzero == 0:
        return None
    if arg == "zero":
        return case.near(S, np.zeros_like(S))
    if case.near(S, R):
        return False
    if arg == "c:-1":
        return case.near(S, -R)
    if arg.startswith("expr:"):
        c = evaluate(arg[5:], sizes(case))
        return None if c is None else case.near(S, c * R)
    c = fit(S, R)
    if c is None or not case.near(S, c * R) or case.near(S, np.zeros_like(S)):
        return False
    if nonzero < 2:  # one value: any number fits it
        return None
    if arg.startswith("c:"):
        return two(c) == two(float(arg[2:]))
    return arg == "any"


def shift(arg: str, case: Case) -> Outcome:
    pair = one(case)
    if pair is None:
        return None
    S, R = pair
    if not comparable(S, R):
        return False
    d = S - R
    c = float(np.mean(d))
    if not case.near(S, R + c) or case.near(S, R):
        return False
    if S.size < 2:  # one value: any constant fits it
        return None
    return arg == "any" or two(c) == two(float(arg[2:]))


def offset(arg: str, case: Case) -> Outcome:
    pair = one(case)
    if pair is None:
        return None
    S, R = pair
    sign, name = arg[:1], arg[1:]
    arrays = case.arrays()
    value = None
    for key in name.split(" @ "):
        if key not in arrays:
            return None
        value = arrays[key] if value is None else value @ arrays[key]
    if value is None or value.shape != S.shape or not np.any(value != 0):
        return False
    return case.near(S - R, value if sign == "+" else -value)


def elementwise(arg: str, case: Case) -> Outcome:
    pair = one(case)
    if pair is None:
        return None
    S, R = pair
    if S.shape != R.shape or case.near(S, R):
        return False
    kind, _sep, rest = arg.partition(":")
    if kind == "clip":
        return _clipped(rest, S, R, case)
    k = int(rest or 0) if kind == "trunc" else 0
    t = (lambda r: np.trunc(r * 10.0**k) / 10.0**k) if kind == "trunc" else transform(arg)
    if t is None:
        return None
    with np.errstate(all="ignore"):
        image = np.asarray(t(R), dtype=np.float64).ravel()
        # a function of few values (signs, numbers rounded or cut) that has one value here: a function
        # always answering that value matches it too -- no evidence (a number the student wrote, with
        # no call, is said as it is)
        if (
            kind in ("sign", "round", "trunc")
            and case.call is not None
            and case.near(image, np.full_like(image, image[0]))
        ):
            return None
        return case.near(S, t(R))


def _clipped(rest: str, S: np.ndarray, R: np.ndarray, case: Case) -> Outcome:
    """Where R is below the student's floor (above their ceiling), S is that floor (ceiling); S = R
    elsewhere; the bounds are the student's own values, said to two digits."""
    side, _sep, bounds = rest.partition(":")
    shown = [float(b) for b in bounds.split(":")]
    low = high = None
    if side in ("low", "both"):
        up = S > R + case.atol
        if not up.any():
            return None
        low = float(np.median(S[up]))
        if two(low) != two(shown[0]):
            return False
    if side in ("high", "both"):
        down = S < R - case.atol
        if not down.any():
            return None
        high = float(np.median(S[down]))
        if two(high) != two(shown[-1]):
            return False
    clipped = R
    if low is not None:
        clipped = np.maximum(clipped, low)
    if high is not None:
        clipped = np.minimum(clipped, high)
    return case.near(S, clipped)


def normalised(arg: str, case: Case) -> Outcome:
    pair = one(case)
    if pair is None:
        return None
    S, R = pair
    kind, _sep, name = arg.partition(":")
    if S.shape != R.shape or not np.all(np.isfinite(R)):
        return False
    a = axis(name, R.ndim, case)
    if a is None or R.shape[a] < 2:
        return None
    with np.errstate(all="ignore"):
        if kind == "normalised":
            return case.near(S, R / R.sum(axis=a, keepdims=True))
        if kind == "cumsum":
            return case.near(S, np.cumsum(R, axis=a))
        if kind == "softmax":
            e = np.exp(R - R.max(axis=a, keepdims=True))
            return case.near(S, e / e.sum(axis=a, keepdims=True))
        if kind == "logsm":  # log R plus a constant of each slice's own; -inf where R is 0
            if np.any(R < 0) or not np.array_equal(np.isneginf(S), R == 0) or np.any(np.isnan(S)):
                return False
            d = np.where(R > 0, S - np.log(np.where(R > 0, R, 1.0)), np.nan)
            spread = np.nanmax(d, axis=a) - np.nanmin(d, axis=a)
            if np.max(np.sum(R > 0, axis=a)) < 2:
                return None
            scale = case.atol + case.rtol * float(np.nanmax(np.abs(np.where(R > 0, S, 0.0))))
            return bool(np.all(np.nan_to_num(spread) <= 2 * scale))
    return None


def zeros(arg: str, case: Case) -> Outcome:
    pair = one(case)
    if pair is None:
        return None
    S, R = pair
    zero = R == 0
    if S.shape != R.shape or not zero.any() or zero.all():
        return None
    return bool(np.all(np.abs(np.nan_to_num(S[zero], nan=1.0)) > case.atol))


def scaled(arg: str, case: Case) -> Outcome:
    pair = one(case)
    if pair is None:
        return None
    S, R = pair
    if not comparable(S, R):
        return False
    if arg == "rows_cols":
        return _rows_cols(S, R, case)
    kind, _sep, name = arg.partition(":")
    a = axis(name, R.ndim, case)
    if a is None:
        return None
    n = R.shape[a]
    s, r = np.moveaxis(S, a, -1).reshape(-1, n), np.moveaxis(R, a, -1).reshape(-1, n)
    if kind == "slices":  # one factor per slice: two values a slice at least
        if n < 2 or len(r) < 2:
            return None
        cs = [fit(si, ri) for si, ri in zip(s, r, strict=True)]
        if any(c is None or abs(c) < 1e-9 for c in cs):
            return False
        return all(case.near(si, c * ri) for si, ri, c in zip(s, r, cs, strict=True)) and not case.near(
            np.array(cs), np.full(len(cs), cs[0])
        )
    if kind == "affine":  # a factor and a constant per slice: three values a slice at least
        if n < 3 or len(r) < 2:
            return None
        pairs = []
        for si, ri in zip(s, r, strict=True):
            rc = ri - ri.mean()
            c = fit(si - si.mean(), rc)
            if c is None or abs(c) < 1e-9:
                return False
            b = float(si.mean() - c * ri.mean())
            if not case.near(si, c * ri + b):
                return False
            pairs.append((c, b))
        return len({(two(c), two(b)) for c, b in pairs}) > 1
    return None


def _rows_cols(S: np.ndarray, R: np.ndarray, case: Case) -> Outcome:
    """S = a_i·b_j·R in each table of the last two axes: rows + columns - 1 numbers, which the
    values must outnumber by two."""
    if R.ndim < 2 or np.any(np.abs(R) <= case.atol) or np.any(np.abs(S) <= case.atol):
        return None
    rows, cols = R.shape[-2:]
    if (rows - 1) * (cols - 1) < 2:
        return None
    M = (S / R).reshape(-1, rows, cols)
    for m, s, r in zip(M, S.reshape(-1, rows, cols), R.reshape(-1, rows, cols), strict=True):
        u, sv, vt = np.linalg.svd(m)
        rank_one = sv[0] * np.outer(u[:, 0], vt[0])
        if not case.near(s, rank_one * r):
            return False
    return not case.near(S, R)


def precision(arg: str, case: Case) -> Outcome:
    pair = one(case)
    if pair is None:
        return None
    S, R = pair
    if not comparable(S, R):
        return False
    scale = float(np.max(np.abs(R)))
    error = float(np.max(np.abs(S - R))) / scale if scale else 0.0
    if error <= 0:
        return False
    digits = math.floor(-math.log10(error))
    shown = case.said.get("digits") or []
    return digits >= 2 and (not shown or min(shown) <= digits <= max(shown))


def of_input(arg: str, case: Case) -> Outcome:
    pair = one(case)
    if pair is None:
        return None
    S, _R = pair
    kind, _sep, rest = arg.partition(":")
    arrays = case.arrays()
    if kind == "normalised":
        name, _sep, key = rest.partition(":")
        A = arrays.get(key)
        if A is None:
            return None
        a = axis(name, A.ndim, case)
        if a is None:
            return None
        with np.errstate(all="ignore"):
            return case.near(S, A / A.sum(axis=a, keepdims=True))
    A = arrays.get(rest)
    if A is None:
        return None
    if kind == "same":
        return case.near(S, A)
    t = transform(kind)
    if t is None:
        return None
    with np.errstate(all="ignore"):
        return case.near(S, t(A)) and not case.near(S, A)


def sums(arg: str, case: Case) -> Outcome:
    pair = one(case)
    if pair is None:
        return None
    S, R = pair
    if S.shape != R.shape or S.ndim < 2:
        return False
    a = axis(arg.partition(":")[2], S.ndim, case)
    if a is None or S.shape[a] < 2 or S.size // S.shape[a] < 2:
        return None
    s, r = S.sum(axis=a), R.sum(axis=a)
    total = float(s.flat[0])
    if abs(total) <= case.atol or not case.near(s, np.full_like(s, total)) or case.near(r, np.full_like(r, r.flat[0])):
        return False
    shown = case.said.get("total") or []
    return len(shown) != 1 or two(total) == shown[0]


def composition(arg: str, case: Case) -> Outcome:
    """The value claims of the composition family: c·t(R), a·R + b (its 'again' calls: calls.again)."""
    pair = one(case)
    if pair is None:
        return None
    S, R = pair
    kind, _sep, rest = arg.partition(":")
    if not comparable(S, R) or case.near(S, R):
        return False
    if kind == "times":
        name, _sep, number = rest.partition(":")
        t = FUNCTIONS.get(name)
        if t is None:
            return None
        with np.errstate(all="ignore"):
            T = t(R)
        if not np.all(np.isfinite(T)):
            return False
        if number.startswith("expr:"):
            c = evaluate(number[5:], sizes(case))
            return None if c is None else case.near(S, c * T)
        c = fit(S, T)
        return c is not None and case.near(S, c * T) and two(c) == two(float(number[2:]))
    if kind == "affine":
        a_text, _sep, b_text = rest.partition(":")
        rc = R - R.mean()
        a = fit(S - S.mean(), rc)
        if a is None:
            return None
        b = float(S.mean() - a * R.mean())
        if not case.near(S, a * R + b) or two(a) != two(float(a_text)):
            return False
        if b_text == "any":
            return True if S.size >= 3 else None
        return two(b) == two(float(b_text)) and S.size >= 3
    return None


def step(arg: str, case: Case) -> Outcome:
    t = case.raw.step
    if t is None:
        return None
    if arg == "some":
        return t >= 1
    return arg == f"first:{t}"
