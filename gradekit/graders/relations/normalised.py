"""The right values renormalised or accumulated along an axis: divided by their sum there, put
through a softmax there, the logarithms plus a constant per slice (scores returned in place of the
weights), or summed up as they go (a running sum)."""

from __future__ import annotations

import numpy as np

from gradekit.graders.relations import words
from gradekit.graders.relations.family import Family, Part, axis_of
from gradekit.graders.relations.values import close
from gradekit.i18n.text import Text, phrase

NORMALISED = phrase(
    "your values are the right ones divided by their sum along {axis}", zh="你的结果是正确结果除以它沿{axis}的和"
)
SOFTMAX = phrase(
    "your values are the softmax of the right ones along {axis}", zh="你的结果是正确结果沿{axis}再做一次 softmax"
)
RUNNING = phrase(
    "your values are the running sums of the right ones along {axis} (entry i: the right entries 0 … i added up)",
    zh="你的结果是正确结果沿{axis}的累加和（第 i 个是正确结果第 0 到第 i 个之和）",
)
LOG_SLICES = phrase(
    "your values are the logarithms of the right ones plus a constant for each slice along {axis}",
    zh="你的结果是正确结果的对数，沿{axis}的每个切片再各加一个常数",
)


class Normalised(Family):
    name = "normalised"
    rank = 60
    legacy = {"function": ("normalised", "logsm")}

    def search(self, part: Part) -> None:
        S, R, tol = part.S, part.R, part.tol
        if S.shape != R.shape or not np.all(np.isfinite(R)):
            return
        for axis in range(R.ndim):
            if R.shape[axis] < 2:
                continue
            total = np.sum(R, axis=axis, keepdims=True)
            if np.all(np.abs(total) > tol[1]) and not close(total, np.ones_like(total), tol):
                self.per_axis(part, "normalised:{}", axis, close(S, R / total, tol))
            self.per_axis(part, "cumsum:{}", axis, close(S, np.cumsum(R, axis=axis), tol))
            e = np.exp(R - np.max(R, axis=axis, keepdims=True))
            self.per_axis(part, "softmax:{}", axis, close(S, e / np.sum(e, axis=axis, keepdims=True), tol))
            if np.all(R >= 0):
                match = _log_up_to_constant(S, R, axis, tol)
                if match is not None:
                    self.per_axis(part, "logsm:{}", axis, match)

    def alias(self, arg: str, detail: dict) -> str:
        return arg.split(":", 1)[0]

    def sentence(self, arg, relation) -> Text | None:
        kind, axis = arg.split(":", 1)[0], words.axis(axis_of(arg))
        said = {"normalised": NORMALISED, "softmax": SOFTMAX, "logsm": LOG_SLICES, "cumsum": RUNNING}.get(kind)
        return said.format(axis=axis) if said is not None else None


def _log_up_to_constant(S: np.ndarray, R: np.ndarray, axis: int, tol) -> bool | None:
    """Whether S = log R + a constant per slice along ``axis`` (-inf where R is 0); None: untestable."""
    positive = R > 0
    if not np.all(np.sum(positive, axis=axis) >= 1) or np.max(np.sum(positive, axis=axis)) < 2:
        return None
    if np.any(np.isnan(S)) or not np.array_equal(np.isneginf(S), ~positive):
        return False
    d = np.where(positive, S - np.log(np.where(positive, R, 1.0)), np.nan)
    first = np.nanmean(d, axis=axis, keepdims=True)
    slack = tol[1] + tol[0] * np.nanmax(np.abs(np.where(positive, S, 0.0)))
    same = np.all(np.where(positive, np.abs(d - first) <= slack, True))
    return bool(same) and not close(S, np.log(np.where(positive, R, 0.0)), tol)


FAMILY = Normalised()
