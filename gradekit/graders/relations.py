"""How a wrong value relates to the right one: the evidence of one failed check.

When a check's value S is wrong, this module compares it with the right value
R -- and, when the grader passed the :class:`Call` that produced S, with what
the reference and the student's function give on related inputs -- and
records, for each relation it tried, whether it holds on this input. One
input proves little (a table whose sizes are all 3 cannot tell ÷ n from
÷ d), so nothing is said here: the cell's relations are weighed over all its
failed checks (:mod:`gradekit.grading.relate`), by the rule the known
mistakes follow. It is imported only when a check has failed: a right answer
costs nothing.

The relations, in the order they are tried::

    factor       S = c·R: c a simple expression of the inputs' sizes (n, 1/n, √d, 1/√d, 2/√d,
                 √d/2, 2, ½), a constant, 0, −1, or a factor that changes from input to input
    shift        S = R + c for a constant c
    offset       S = R ± A for an input A of the call, or a product of inputs (X @ W_v)
    function     S = f(R): log, exp, the transpose, all axes reversed, reversed or moved one
                 place along an axis, divided by its sum along an axis, the log up to a constant
                 per slice, the right values reshaped, or in another order
    zeros        S is not 0 anywhere R is 0
    changed      S = ref(changed inputs): an input times −1, 2 or ½, its rows scaled to length 1
                 or centred, replaced by the identity or by another input, two inputs swapped,
                 an integer input 1, one less or one more
    scaled       S = a·R with a factor per slice along an axis, or per row and per column
    independent  S does not change when one input changes (the right value does): the
                 student's function is called again
    step         the value is step t of an output built step by step, whose earlier steps
                 were right

The call that produced S is a :class:`gradekit.graders.check.Call`: the
student's function, the reference one, the inputs by name (positional, in
order), keywords passed as they are, the sizes a factor may be made of
(default: the integer inputs and every input's shape, as ``K.shape[0]``), the
index of the checked part in what the function returns, and the names a
student reads for the parts.

A relation's key is ``"<subject>|<family>|<argument>"``: the subject names the
value compared (``"softmax#0"``: the function and the part of what it returns,
``"#all"`` for every part at once), the argument what is specific (``"1/sqrt(d_k)"``,
``"flip:last"``). Keys do not depend on the input, so that the evidence of
several inputs adds up. The evidence of one check is a plain dict::

    {"tested": [keys tried here; "...|c:*" stands for every argument so beginning],
     "holds": {key: {what the sentence shows: sizes, the factor c, the step}},
     "labels": {subject: the name a student reads for it, or ""},
     "known": True when a known mistake matched the value here}

Nothing here says a cause, and nothing shows an expected value: a factor is
kept to two significant digits in the sentences, sizes are the inputs'.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    from gradekit.graders.check import Call

__all__ = ["search", "FAMILIES"]

FAMILIES = ("factor", "shift", "offset", "function", "zeros", "changed", "scaled", "independent", "step")

# failed checks of one function, per submission, whose search calls the functions again (the changed
# inputs and independence): the relations need two checks that agree, and a wrong submission stays cheap
DEEP_SEARCHES = 3  # per graded cell


class _Evidence:
    def __init__(self, known: bool):
        self.tested: list[str] = []
        self.holds: dict[str, dict] = {}
        self.labels: dict[str, str] = {}
        self.known = known

    def test(self, key: str, holds: bool, detail: dict | None = None) -> None:
        self.tested.append(key)
        if holds:
            self.holds[key] = detail or {}

    def plain(self) -> dict:
        return {"tested": self.tested, "holds": self.holds, "labels": self.labels, "known": self.known}


def search(
    got: Sequence[np.ndarray],
    expected: Sequence[np.ndarray],
    *,
    what: Sequence[Any],
    call: Call | None,
    rtol: float,
    atol: float,
    step: int | None = None,
    known: bool = False,
) -> dict:
    """The evidence of one failed check (see the module's docstring)."""
    evidence = _Evidence(known)
    tol = (max(rtol, 1e-6), max(atol, 1e-8))
    name = _name(call)
    single = len(got) == 1
    indices = [call.part if call is not None and call.part is not None else i for i in range(len(got))]
    if call is not None and call.part is not None and not single:
        raise ValueError("check.Call(part=...) is for a check of one value")
    subjects = [f"{name}#{i}" for i in indices]
    for subject, index, label in zip(subjects, indices, what, strict=False):
        evidence.labels[subject] = _label(call, index, label, single)
    whole = subjects[0] if single else f"{name}#all"
    if not single:
        evidence.labels[whole] = ", ".join(str(evidence.labels[s]) for s in subjects) if call and call.returns else ""
    inputs = _Inputs(call)
    with np.errstate(all="ignore"):
        for subject, S, R in zip(subjects, got, expected, strict=False):
            if _close(S, R, tol):
                continue  # this part is right
            _factor(evidence, subject, S, R, inputs, tol)
            _shift(evidence, subject, S, R, tol)
            _offset(evidence, subject, S, R, inputs, tol)
            _function(evidence, subject, S, R, inputs, tol)
            _zeros(evidence, subject, S, R, tol)
            _scaled(evidence, subject, S, R, inputs, tol)
        # the searches that call the functions again, where nothing cheaper explains the value here
        if (
            call is not None
            and call.reference is not None
            and not known
            and not _explained(evidence)
            and _deep(call, whole)
        ):
            _changed(evidence, whole, call, inputs, list(got), tol)
            if call.student is not None:
                _independent(evidence, subjects, call, inputs, list(got), list(expected), tol)
        if step is not None:
            evidence.test(f"{whole}|step|some", step >= 1, {"t": step})
            evidence.tested.append(f"{whole}|step|first:*")
            if step >= 1:
                evidence.holds[f"{whole}|step|first:{step}"] = {"t": step}
    return evidence.plain()


CHEAP = ("factor", "shift", "offset", "function", "zeros")
GENERAL = {"factor|any", "shift|any", "function|permuted"}


def _explained(evidence: _Evidence) -> bool:
    """Whether a specific relation tried before the changed inputs holds on this check."""
    for key in evidence.holds:
        _subject, family, arg = key.split("|", 2)
        if family in CHEAP and f"{family}|{arg}" not in GENERAL and not arg.startswith("c:"):
            return True
    return False


def _name(call: Call | None) -> str:
    """The function a subject is named after (the student's, or else the reference's)."""
    if call is None:
        return ""
    return str(getattr(call.student or call.reference, "__name__", "") or "")


def _deep(call: Call, subject: str) -> bool:
    """Whether this check may call the functions again: the first DEEP_SEARCHES failed checks of each
    function in a submission may (a student's function carries the submission's count)."""
    budget = getattr(call.student, "give_up", None)
    searched = getattr(budget, "searched", None)
    if searched is None:
        return True
    key = f"{getattr(budget, 'cell', '')}:{subject}"
    done = searched.get(key, 0)
    searched[key] = done + 1
    return done < DEEP_SEARCHES


def _label(call: Call | None, index: int, what: Any, single: bool) -> Any:
    if call is not None and call.returns is not None and index < len(call.returns):
        return call.returns[index]
    return "" if single else what


# -- the inputs -------------------------------------------------------------------------------


class _Inputs:
    """The call's inputs, as the relations use them."""

    def __init__(self, call: Call | None):
        self.call = call
        self.arrays: dict[str, np.ndarray] = {}
        self.ints: dict[str, int] = {}
        self.axes: dict[str, int] = {}  # integer arguments that name an axis
        if call is None:
            self.sizes: dict[str, int] = {}
            return
        for key, value in call.inputs.items():
            if isinstance(value, bool) or value is None:
                continue
            if isinstance(value, (int, np.integer)):
                self.ints[key] = int(value)
            else:
                arr = _floats(value)
                if arr is not None and arr.dtype.kind == "f" and np.asarray(value).dtype.kind != "b":
                    self.arrays[key] = arr
        for key, value in {**call.inputs, **call.keywords}.items():
            if isinstance(value, (int, np.integer)) and not isinstance(value, bool) and "axis" in key:
                self.axes[key] = int(value)
        if call.sizes is not None:
            self.sizes = {k: int(v) for k, v in call.sizes.items() if int(v) > 1}
        else:
            self.sizes = {k: v for k, v in self.ints.items() if v > 1 and k not in self.axes}
            for key, arr in self.arrays.items():
                for axis, n in enumerate(arr.shape):
                    if n > 1:
                        self.sizes[f"len({key})" if arr.ndim == 1 else f"{key}.shape[{axis}]"] = int(n)

    def expressions(self) -> list[tuple[str, float, dict]]:
        """(expression, its value, what a sentence shows: the sizes it uses and its form) for a
        factor: sizes first, constants last."""
        out = []
        for key, n in self.sizes.items():
            root = math.sqrt(n)
            for form, value in (
                ("1/sqrt({})", 1 / root),
                ("sqrt({})", root),
                ("1/{}", 1 / n),
                ("{}", float(n)),
                ("2/sqrt({})", 2 / root),
                ("sqrt({})/2", root / 2),
            ):
                out.append((form.format(key), value, {"sizes": {key: n}, "form": form}))
        out += [("1/2", 0.5, {"form": "1/2"}), ("2", 2.0, {"form": "2"})]
        return out

    def offsets(self) -> list[tuple[str, np.ndarray]]:
        """The inputs and the products of two or three of them (``X @ W_v @ W_o``)."""
        out = list(self.arrays.items())
        matrices = [(k, a) for k, a in self.arrays.items() if a.ndim == 2]
        for length in (2, 3):
            for chain in itertools.permutations(matrices, length):
                if all(chain[i][1].shape[1] == chain[i + 1][1].shape[0] for i in range(length - 1)):
                    value = chain[0][1]
                    for _, a in chain[1:]:
                        value = value @ a
                    out.append((" @ ".join(k for k, _ in chain), value))
        return out

    def axis_names(self, axis: int, ndim: int) -> list[str]:
        """How an axis may be named in a key: by the argument that asked for it, as the last one,
        by its number."""
        names = [f"={key}" for key, value in self.axes.items() if ndim and value % ndim == axis]
        if axis == ndim - 1:
            names.append("last")
        return names + [str(axis)]


# -- the relations ----------------------------------------------------------------------------


def _factor(ev: _Evidence, subject: str, S: np.ndarray, R: np.ndarray, inputs: _Inputs, tol) -> None:
    if S.shape != R.shape or not (np.all(np.isfinite(S)) and np.all(np.isfinite(R))):
        return
    nonzero = int(np.count_nonzero(np.abs(R) > tol[1]))
    if nonzero == 0:
        return
    family = f"{subject}|factor|"
    c = float(np.sum(S * R) / np.sum(R * R))
    holds = _close(S, c * R, tol)
    zero = holds and _close(S, np.zeros_like(S), tol)
    ev.test(family + "zero", zero)
    ev.tested.append(family + "c:*")
    if nonzero >= 2:
        ev.test(family + "any", holds and not zero, {"c": c})
    if holds and not zero and not math.isclose(c, 1.0, rel_tol=10 * tol[0]):
        key = "c:-1" if math.isclose(c, -1.0, rel_tol=10 * tol[0]) else f"c:{c:.6g}"
        ev.holds[family + key] = {"c": c}
    for text, value, detail in inputs.expressions():
        match = holds and not zero and math.isclose(c, value, rel_tol=max(10 * tol[0], 1e-6))
        ev.test(family + "expr:" + text, match, detail)


def _shift(ev: _Evidence, subject: str, S: np.ndarray, R: np.ndarray, tol) -> None:
    if S.shape != R.shape or S.size < 2 or not (np.all(np.isfinite(S)) and np.all(np.isfinite(R))):
        return
    d = S - R
    d0 = float(np.mean(d))
    slack = tol[1] + tol[0] * float(np.max(np.abs(R)))
    holds = bool(np.all(np.abs(d - d0) <= slack)) and abs(d0) > slack
    family = f"{subject}|shift|"
    ev.test(family + "any", holds, {"c": d0})
    ev.tested.append(family + "c:*")
    if holds:
        ev.holds[family + f"c:{d0:.6g}"] = {"c": d0}


def _offset(ev: _Evidence, subject: str, S: np.ndarray, R: np.ndarray, inputs: _Inputs, tol) -> None:
    if S.shape != R.shape or not inputs.arrays:
        return
    d = S - R
    for key, A in inputs.offsets():
        if A.shape != S.shape or _close(A, np.zeros_like(A), tol):
            continue
        ev.test(f"{subject}|offset|+{key}", _close(d, A, tol))
        ev.test(f"{subject}|offset|-{key}", _close(d, -A, tol))


def _function(ev: _Evidence, subject: str, S: np.ndarray, R: np.ndarray, inputs: _Inputs, tol) -> None:
    family = f"{subject}|function|"
    ndim = R.ndim
    if S.shape == R.shape and np.all(np.isfinite(R)):
        if np.all(R >= 0) and np.any(R > 0):
            ev.test(family + "log", _close(S, np.log(R), tol))
        exp = np.exp(R)
        if np.all(np.isfinite(exp)):
            ev.test(family + "exp", _close(S, exp, tol))
    if ndim >= 2:
        swapped = np.swapaxes(R, -1, -2)
        if not _close(swapped, R, tol):
            ev.test(family + "T", _close(S, swapped, tol))
    if ndim >= 3:
        reversed_axes = R.T
        if reversed_axes.shape != R.shape or not _close(reversed_axes, R, tol):
            ev.test(family + "T_all", _close(S, reversed_axes, tol))
    if S.shape == R.shape:
        for axis in range(ndim):
            if R.shape[axis] < 2:
                continue
            names = inputs.axis_names(axis, ndim)
            flipped = np.flip(R, axis)
            if not _close(flipped, R, tol):
                _per_name(ev, family + "flip:{}", names, _close(S, flipped, tol))
            head, tail = _slices(ndim, axis)
            if not _close(R[head], R[tail], tol):
                on = _close(S[tail], R[head], tol) and not _close(S[tail], R[tail], tol)
                back = _close(S[head], R[tail], tol) and not _close(S[head], R[head], tol)
                _per_name(ev, family + "roll:{}:+1", names, on)
                _per_name(ev, family + "roll:{}:-1", names, back)
            total = np.sum(R, axis=axis, keepdims=True)
            if (
                np.all(np.isfinite(R))
                and np.all(np.abs(total) > tol[1])
                and not _close(total, np.ones_like(total), tol)
            ):
                _per_name(ev, family + "normalised:{}", names, _close(S, R / total, tol))
            if np.all(np.isfinite(R)) and np.all(R >= 0) and ndim >= 1:
                match = _log_up_to_constant(S, R, axis, tol)
                if match is not None:
                    _per_name(ev, family + "logsm:{}", names, match)
    if S.size == R.size and S.shape != R.shape:
        ev.test(family + "reshape", _close(S, R.reshape(S.shape), tol), {"shape": list(S.shape)})
    if S.size == R.size and S.size >= 3 and np.all(np.isfinite(S)) and np.all(np.isfinite(R)):
        distinct = np.unique(np.round(R.ravel() / max(tol[1], 1e-12))).size
        if distinct >= max(3, R.size // 2) and (S.shape != R.shape or not _close(S, R, tol)):
            ev.test(family + "permuted", _close(np.sort(S.ravel()), np.sort(R.ravel()), tol))


def _per_name(ev: _Evidence, key: str, names: list[str], holds: bool, detail: dict | None = None) -> None:
    """One relation along an axis, under each of the axis's names."""
    for name in names:
        ev.test(key.format(name), holds, detail)


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
    return bool(same) and not _close(S, np.log(np.where(positive, R, 0.0)), tol)


def _zeros(ev: _Evidence, subject: str, S: np.ndarray, R: np.ndarray, tol) -> None:
    if S.shape != R.shape:
        return
    zero = R == 0
    if not np.any(zero) or np.all(zero):
        return
    ev.test(f"{subject}|zeros|lost", bool(np.all(np.abs(np.nan_to_num(S[zero], nan=1.0)) > tol[1])))


def _scaled(ev: _Evidence, subject: str, S: np.ndarray, R: np.ndarray, inputs: _Inputs, tol) -> None:
    if S.shape != R.shape or R.ndim == 0 or not (np.all(np.isfinite(S)) and np.all(np.isfinite(R))):
        return
    family = f"{subject}|scaled|"
    ndim = R.ndim
    for axis in range(ndim):
        if R.shape[axis] < 2 or R.size // R.shape[axis] < 2:
            continue
        den = np.sum(R * R, axis=axis, keepdims=True)
        c = np.where(den > 0, np.sum(S * R, axis=axis, keepdims=True) / np.where(den > 0, den, 1.0), 0.0)
        holds = _close(S, c * R, tol) and not _close(c, np.full_like(c, c.ravel()[0]), tol)
        _per_name(ev, family + "slices:{}", inputs.axis_names(axis, ndim), holds, {"ndim": ndim})
    if ndim >= 2:
        rows, cols = R.shape[-2:]
        if (rows - 1) * (cols - 1) >= 2 and np.all(np.abs(R) > tol[1]):
            ev.test(family + "rows_cols", _rank_one(S / R, S, R, tol))


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
    return _close(S, scale.reshape(M.shape) * R, tol)


def _changed(ev: _Evidence, subject: str, call: Call, inputs: _Inputs, got: list[np.ndarray], tol) -> None:
    """The right function on changed inputs: does it give the student's value(s)?"""
    family = f"{subject}|changed|"
    for key, args in _transforms(call, inputs):
        out = _parts(_attempt(call.reference, args, call.keywords), call, len(got))
        if out is None:
            continue
        broadcast = False
        matches = True
        for S, T in zip(got, out, strict=False):
            if S.shape == T.shape:
                matches = matches and _close(S, T, tol)
            elif T.ndim == S.ndim and all(o in (1, s) for o, s in zip(T.shape, S.shape, strict=False)):
                broadcast = True
                matches = matches and _close(S, np.broadcast_to(T, S.shape), tol)
            else:
                matches = False
        ev.test(family + key, matches, {"broadcast": broadcast} if broadcast else None)


def _transforms(call: Call, inputs: _Inputs) -> Iterator[tuple[str, list[Any]]]:
    """(key, changed positional arguments) for every change the search tries, in order."""
    names = list(call.inputs)

    def args_with(**changes: Any) -> list[Any]:
        return [changes.get(n, call.inputs[n]) for n in names]

    arrays = inputs.arrays
    for key, a in arrays.items():
        for factor, text in ((-1.0, "-1"), (2.0, "2"), (0.5, "1/2")):
            yield f"scale:{key}:{text}", args_with(**{key: factor * a})
    unit = [k for k, a in arrays.items() if a.ndim >= 1 and np.all(np.linalg.norm(a, axis=-1) > 0)]
    for group in _subsets(unit, arrays):
        yield (
            "unit:" + "+".join(group),
            args_with(**{k: arrays[k] / np.linalg.norm(arrays[k], axis=-1, keepdims=True) for k in group}),
        )
    centre = [k for k, a in arrays.items() if a.ndim >= 2 and a.shape[-2] >= 2]
    for group in _subsets(centre, arrays):
        yield (
            "centred:" + "+".join(group),
            args_with(**{k: arrays[k] - arrays[k].mean(axis=-2, keepdims=True) for k in group}),
        )
    for key, a in arrays.items():
        if a.ndim == 2 and a.shape[0] == a.shape[1] and not np.allclose(a, np.eye(a.shape[0])):
            yield f"identity:{key}", args_with(**{key: np.eye(a.shape[0])})
    for old, new in itertools.permutations(arrays, 2):
        if arrays[old].shape == arrays[new].shape:
            yield f"inplace:{old}={new}", args_with(**{old: arrays[new]})
    for one, other in itertools.combinations(names, 2):  # two inputs a function could take for each other
        if (
            one in arrays
            and other in arrays
            and arrays[one].ndim == arrays[other].ndim
            and arrays[one].shape[-1:] == arrays[other].shape[-1:]
        ):
            yield f"swap:{one},{other}", args_with(**{one: call.inputs[other], other: call.inputs[one]})
    for key, n in inputs.ints.items():
        for text, value in (("=1", 1), ("-1", n - 1), ("+1", n + 1)):
            if value >= 1 and (text != "-1" or n - 1 != 1) and (text != "=1" or n != 1):
                yield f"int:{key}{text}", args_with(**{key: value})


def _subsets(keys: list[str], arrays: dict[str, np.ndarray]) -> list[tuple[str, ...]]:
    """Each input alone, the pairs whose rows have the same width (what a dot product combines), all."""
    out: list[tuple[str, ...]] = [(k,) for k in keys]
    out += [(a, b) for a, b in itertools.combinations(keys, 2) if arrays[a].shape[-1] == arrays[b].shape[-1]]
    if len(keys) > 2:
        out.append(tuple(keys))
    return out


def _independent(
    ev: _Evidence,
    subjects: list[str],
    call: Call,
    inputs: _Inputs,
    got: list[np.ndarray],
    expected: list[np.ndarray],
    tol,
) -> None:
    """Call the student's function again with one input changed: an output the right answer says
    should change and does not change does not depend on that input."""
    names = list(call.inputs)
    base = _parts(_attempt(call.reference, [call.inputs[n] for n in names], call.keywords), call, len(got))
    if base is None:
        return
    rng = np.random.default_rng(20261201)
    for key in names:
        options: list[Any]
        if key in inputs.arrays:
            a = inputs.arrays[key]
            spread = float(np.std(a)) or 1.0
            options = [a + spread * rng.normal(size=a.shape)]
        elif key in inputs.ints:
            n = inputs.ints[key]
            options = [v for v in (n + 1, n - 1, 2 * n) if v >= 1]
        else:
            continue
        for value in options:
            args = [value if n == key else call.inputs[n] for n in names]
            right = _parts(_attempt(call.reference, args, call.keywords), call, len(got))
            if right is None:
                continue
            depends = [not (r.shape == b.shape and _close(r, b, tol)) for r, b in zip(right, base, strict=False)]
            if not any(depends):
                continue
            again = _parts(_attempt(call.student, args, call.keywords), call, len(got))
            if again is None:
                break
            for subject, S, S2, E, d in zip(subjects, got, again, expected, depends, strict=False):
                if d and not _close(S, E, tol):
                    ev.test(f"{subject}|independent|{key}", S2.shape == S.shape and _close(S2, S, tol))
            break


def _attempt(function: Callable[..., Any] | None, args: list[Any], keywords: dict) -> Any:
    if function is None:
        return None
    try:
        return function(*args, **keywords)
    except Exception:  # noqa: BLE001 - a change the function does not take says nothing
        return None


def _parts(value: Any, call: Call, count: int) -> list[np.ndarray] | None:
    """The checked part(s) of what a call returned, as float arrays; None when they are not there."""
    if value is None:
        return None
    if call.part is not None:
        if not isinstance(value, (tuple, list)) or len(value) <= call.part:
            return None
        value = [value[call.part]]
    elif count > 1:
        if not isinstance(value, (tuple, list)) or len(value) != count:
            return None
    else:
        value = [value]
    out = []
    for v in value:
        arr = _floats(v)
        if arr is None:
            return None
        out.append(arr)
    return out


def _floats(value: Any) -> np.ndarray | None:
    try:
        arr = np.asarray(value)
    except Exception:  # noqa: BLE001 - ragged, or not numbers
        return None
    if arr.dtype.kind not in "biuf":
        return None
    return arr.astype(np.float64, copy=False)


def _slices(ndim: int, axis: int) -> tuple[tuple, tuple]:
    head = [slice(None)] * ndim
    tail = [slice(None)] * ndim
    head[axis], tail[axis] = slice(None, -1), slice(1, None)
    return tuple(head), tuple(tail)


def _close(a: np.ndarray, b: np.ndarray, tol) -> bool:
    """np.allclose(a, b, equal_nan=True) of the same shape, in a fraction of its time (it is asked
    thousands of times a search)."""
    if a.shape != b.shape:
        return False
    with np.errstate(all="ignore"):
        ok = np.abs(a - b) <= tol[1] + tol[0] * np.abs(b)
        if ok.all():
            return True
        rest = ~ok
        return bool(np.all((a[rest] == b[rest]) | (np.isnan(a[rest]) & np.isnan(b[rest]))))
