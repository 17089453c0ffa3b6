"""A factor of its own per slice: each slice along an axis is the right one times a factor (a softmax
divided by a norm, each token scaled to length 1), or times a factor plus a constant (a LayerNorm of
each row); or each row and each column times a factor (cosine similarity)."""

from __future__ import annotations

import numpy as np

from gradekit.graders.relations import words
from gradekit.graders.relations.family import Family, Part, axis_of
from gradekit.graders.relations.values import close, finite
from gradekit.i18n.text import Text, phrase

SLICES = phrase(
    "each slice of your values along {axis} is the right one multiplied by a factor of its own",
    zh="你的结果沿{axis}的每个切片，都是对应的正确切片乘以它自己的一个系数",
)
ROWS = phrase(
    "each row of your values is the right row multiplied by a factor of its own",
    zh="你的结果的每一行，都是对应的正确行乘以它自己的一个系数",
)
COLUMNS = phrase(
    "each column of your values is the right column multiplied by a factor of its own",
    zh="你的结果的每一列，都是对应的正确列乘以它自己的一个系数",
)
ROWS_COLS = phrase(
    "your values are the right ones with each row and each column multiplied by a factor of its own",
    zh="你的结果是正确结果的每一行、每一列各乘以自己的一个系数",
)
AFFINE_SLICES = phrase(
    "each slice of your values along {axis} is the right one multiplied by a factor and shifted by a constant of "
    "its own",
    zh="你的结果沿{axis}的每个切片，都是对应的正确切片乘以它自己的一个系数、再加上它自己的一个常数",
)
AFFINE_ROWS = phrase(
    "each row of your values is the right row multiplied by a factor and shifted by a constant of its own",
    zh="你的结果的每一行，都是对应的正确行乘以它自己的一个系数、再加上它自己的一个常数",
)
AFFINE_COLUMNS = phrase(
    "each column of your values is the right column multiplied by a factor and shifted by a constant of its own",
    zh="你的结果的每一列，都是对应的正确列乘以它自己的一个系数、再加上它自己的一个常数",
)


class Scaled(Family):
    name = "scaled"
    rank = 145  # after the functions on changed inputs: "for Q with each row scaled to length 1" says more

    def search(self, part: Part) -> None:
        S, R, tol = part.S, part.R, part.tol
        if S.shape != R.shape or R.ndim == 0 or not finite(S, R):
            return
        ndim = R.ndim
        for axis in range(ndim):
            n, count = R.shape[axis], R.size // R.shape[axis]
            if n < 2 or count < 2:
                continue
            den = np.sum(R * R, axis=axis, keepdims=True)
            c = np.where(den > 0, np.sum(S * R, axis=axis, keepdims=True) / np.where(den > 0, den, 1.0), 0.0)
            # a factor of 0 for some slices is "only there, and 0 there": the where family says it
            holds = (
                close(S, c * R, tol)
                and not close(c, np.full_like(c, c.ravel()[0]), tol)
                and bool(np.all(np.abs(c) > 1e-9))
            )
            self.per_axis(part, "slices:{}", axis, holds, {"ndim": ndim})
            if n >= 3:
                self.per_axis(part, "affine:{}", axis, not holds and _affine(S, R, axis, tol), {"ndim": ndim})
        if ndim >= 2:
            rows, cols = R.shape[-2:]
            if (rows - 1) * (cols - 1) >= 2 and np.all(np.abs(R) > tol[1]) and np.all(np.abs(S) > tol[1]):
                self.test(part, "rows_cols", _rank_one(S / R, S, R, tol))

    def level(self, arg: str) -> int:
        return 1 if arg == "rows_cols" else 2 if arg.startswith("affine") else 0

    def specific(self, arg: str) -> bool:
        return False  # a factor of each slice's own: what made them may still be found by calling

    def alias(self, arg: str, detail: dict) -> str:
        parts = arg.split(":")
        return ":".join(parts[:1] + parts[2:])

    def sentence(self, arg, relation) -> Text | None:
        if arg == "rows_cols":
            return ROWS_COLS
        kind, axis = arg.split(":", 1)[0], axis_of(arg)
        ndim = (relation.details.get("ndim") or [0])[0]
        rows, columns, slices = (
            (ROWS, COLUMNS, SLICES) if kind == "slices" else (AFFINE_ROWS, AFFINE_COLUMNS, AFFINE_SLICES)
        )
        if ndim == 2 and axis in ("last", "1"):
            return rows
        if ndim == 2 and axis == "0":
            return columns
        return slices.format(axis=words.axis(axis))


def _affine(S: np.ndarray, R: np.ndarray, axis: int, tol) -> bool:
    """Whether each slice along ``axis`` is a·R + b with (a, b) its own, not one pair for all."""
    r_mean = R.mean(axis=axis, keepdims=True)
    s_mean = S.mean(axis=axis, keepdims=True)
    rc, sc = R - r_mean, S - s_mean
    den = np.sum(rc * rc, axis=axis, keepdims=True)
    if np.any(den <= tol[1] ** 2):
        return False
    a = np.sum(sc * rc, axis=axis, keepdims=True) / den
    if np.any(np.abs(a) <= 1e-9):
        return False  # a slice made constant: the where family says where the values differ
    b = s_mean - a * r_mean
    if not close(S, a * R + b, tol):
        return False
    return not (close(a, np.full_like(a, a.ravel()[0]), tol) and close(b, np.full_like(b, b.ravel()[0]), tol))


def _rank_one(M: np.ndarray, S: np.ndarray, R: np.ndarray, tol) -> bool:
    """Whether the ratios M = S / R are a_i · b_j in each of the last two axes' tables."""
    flat_m = M.reshape(-1, *M.shape[-2:])
    flat_r = R.reshape(-1, *R.shape[-2:])
    scale = np.empty_like(flat_m)
    for t, (m, r) in enumerate(zip(flat_m, flat_r, strict=False)):
        i, j = np.unravel_index(np.argmax(np.abs(r)), r.shape)
        if m[i, j] == 0:
            return False
        scale[t] = np.outer(m[:, j], m[i, :] / m[i, j])
    return close(S, scale.reshape(M.shape) * R, tol)


FAMILY = Scaled()
