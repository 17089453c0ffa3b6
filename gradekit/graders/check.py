"""Comparisons for hidden graders, and the evidence a wrong value gives about the mistake.

A grader compares what the student's code returned with the reference value::

    check.array(got, expected, what="normalise(x, axis=0)",
                mistakes={"normalised along the wrong axis": normalise(x, axis=1)})

On a mismatch it raises :class:`Mismatch` (an ``AssertionError``) whose message
says what was checked and how the result differed -- shape, non-finite values,
how many values differ -- but never prints the expected array itself: the
feedback goes to students, the expected values stay hidden.

The message never names a mistake. ``mistakes`` maps the catalogue name of a
known mistake to the value that mistake gives on this input; the mismatch
records which mistakes the wrong value matched (``candidates``) and which it
did not (``ruled_out``). One input alone proves little -- two mistakes can give
the same numbers on it -- so the cell's diagnosis weighs the evidence of all
its checks (:mod:`gradekit.grading.diagnosis`). A mistake whose value is
``None`` is unknown on this input: neither evidence for nor against it. A
mistake whose value is :data:`FAILS` would raise on this input (a shape that
does not fit): a student who got a value here is not on it.

Several values returned together (a tuple) are compared as one check with
:func:`arrays`: a mistake then predicts all of them, so "first part right,
second wrong" tells a mistake that spoils only the second part from one that
swaps the two.

``probes`` describe a wrong value that matches no known mistake ("Your output
stayed the same when the grader changed the weights.", see
:mod:`gradekit.graders.probes`); their sentences are added to the message.

Every failed array check also looks for a relation between the wrong value and
the right one -- a factor, a function of each right value, where the values
differ, the right function on changed or fitted inputs, ... (the families of
:mod:`gradekit.graders.relations`, imported only then). Pass the ``call`` that produced the value
(:class:`Call`: the student's function, the reference one, the inputs) for the
relations that need the inputs, ``step`` for an output built step by step, and
``relations=False`` for a check whose expected value is not the right answer
(a law comparing two of the student's own values). The cell's relations are
weighed over all its failed checks (:mod:`gradekit.grading.relate`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, cast

import numpy as np

from gradekit.errors import Mismatch
from gradekit.graders import observe, recent
from gradekit.graders.answers import _none_message, choice, option, truth
from gradekit.graders.catalogue import (
    DEFAULT_ATOL,
    DEFAULT_RTOL,
    Mistakes,
    _all_close,
    _audit,
    _kept,
    _known,
    _tol,
    _values,
    _weighed,
    close,
    evidence,
)
from gradekit.graders.catalogue import FAILS as FAILS
from gradekit.graders.keeping import fail as _fail
from gradekit.graders.keeping import keeping as keeping  # the harness's; named here as before
from gradekit.graders.keeping import keeping_passes as _keeping_passes
from gradekit.graders.keeping import passed as _passed
from gradekit.graders.keeping import seen as _seen
from gradekit.graders.witness import Witness
from gradekit.i18n.text import Text, _, join

__all__ = [
    "Mismatch",
    "FAILS",
    "Call",
    "array",
    "arrays",
    "scalar",
    "close",
    "choice",
    "option",
    "truth",
    "to_array",
    "evidence",
]

# sentences describing a wrong value, or None where a probe saw nothing; called only for an
# unexplained wrong value
Probes = Callable[[], Iterable[str | None]] | None

FAILS = FAILS
"""The value of a known mistake that raises on this input (a shape it cannot take): a student who
got a value here did not make it.

Example::

    mistakes={_("multiplied K by Q instead of Q by K"): FAILS if n != m else K @ Q.T}
"""


class Call:
    """The call that produced a checked value, for the relation search (see the module's docstring)::

        check.Call(student.scaled_scores, reference.scaled_scores, dict(Q=Q, K=K), sizes=dict(n_k=len(K)))

    ``inputs`` are the positional arguments by name, in order; ``keywords`` are passed as keywords
    (``{"axis": 1}``) and never changed; ``sizes`` names the sizes a factor may be made of (default:
    the integer inputs and every input's shape, as ``K.shape[0]``); ``part`` is the index of the
    checked value in what the function returns (a tuple), ``returns`` the names a student reads
    for those parts (``(_("the output"), _("the weights"))``), ``roles`` what an input is for the
    engine's own probes (``{"dim": "axis", "eps": "epsilon", "T": "scale"}``: an axis is tried as
    another axis and never as a number; an epsilon or a scale is set to 0 and 1; an input named
    ``axis`` needs no role). Either function may be None: the relations that need it are then not tried.
    """

    __slots__ = ("student", "reference", "inputs", "keywords", "sizes", "part", "returns", "roles")

    def __init__(
        self,
        student: Callable[..., Any] | None,
        reference: Callable[..., Any] | None,
        inputs: Mapping[str, Any],
        *,
        keywords: Mapping[str, Any] | None = None,
        sizes: Mapping[str, int] | None = None,
        part: int | None = None,
        returns: Sequence[str] | None = None,
        roles: Mapping[str, str] | None = None,
    ):
        self.student, self.reference, self.inputs = student, reference, dict(inputs)
        self.roles: dict[str, str] = dict(roles or {})
        self.keywords: dict[str, Any] = dict(keywords or {})
        self.sizes = dict(sizes) if sizes is not None else None
        self.part, self.returns = part, list(returns) if returns is not None else None


def to_array(value: Any, what: str) -> np.ndarray:
    """Turn a returned value (array, nested lists, number) into a float array.

    Lists and tuples are accepted: a correct answer written with lists keeps
    its marks. Anything non-numeric is a :class:`Mismatch`::

        out, weights = student.attention_layer(X, W_q, W_k, W_v)
        weights = check.to_array(weights, "the weights")     # a Mismatch if it is not numbers
        assert weights.shape == (n, n), _("the weights should be n × n")
    """
    if isinstance(value, np.ndarray):
        arr = value
    else:
        try:
            arr = np.asarray(value)
        except Exception:  # ragged lists and the like
            raise Mismatch(
                _("{what}: returned a {kind} that is not a rectangular array of numbers").format(
                    what=what, kind=type(value).__name__
                )
            ) from None
    if arr.dtype.kind not in "biuf":
        raise Mismatch(
            _("{what}: returned {value}, expected an array of numbers").format(what=what, value=_describe(value))
        )
    return arr.astype(np.float64, copy=False)


def array(
    got: Any,
    expected: Any,
    *,
    what: str,
    rtol: float = DEFAULT_RTOL,
    atol: float = DEFAULT_ATOL,
    mistakes: Mistakes = None,
    probes: Probes = None,
    call: Call | None = None,
    relations: bool = True,
    step: int | None = None,
) -> None:
    """Check that ``got`` equals ``expected`` elementwise within tolerance::

        check.array(student.softmax(x, axis=0), reference.softmax(x, axis=0), what="softmax(x, axis=0)",
                    mistakes=lambda: {_("normalised along the wrong axis"): reference.softmax(x, axis=1)},
                    call=check.Call(student.softmax, reference.softmax, dict(x=x), keywords=dict(axis=0)))

    ``what`` names the value in the feedback ("softmax(x, axis=0): 3 of 12 values differ from the
    reference ..."); the expected values are never shown. ``mistakes`` maps the catalogue name of a
    classic mistake to the value
    that mistake would produce here (``None``: undefined here). Pass a function
    returning that mapping (``mistakes=lambda: {...}``) when the wrong values
    cost something to compute: it is called only for a wrong answer. ``call``,
    ``relations`` and ``step``: see the module's docstring.
    """
    arrays(
        [got],
        [expected],
        what=[what],
        rtol=rtol,
        atol=atol,
        probes=probes,
        call=call,
        relations=relations,
        step=step,
        mistakes=lambda: {
            name: value if value is None or value is FAILS else [value] for name, value in _known(mistakes).items()
        },
    )


def arrays(
    got: Sequence[Any],
    expected: Sequence[Any],
    *,
    what: Sequence[str],
    rtol: float = DEFAULT_RTOL,
    atol: float = DEFAULT_ATOL,
    mistakes: Mistakes = None,
    probes: Probes = None,
    call: Call | None = None,
    relations: bool = True,
    step: int | None = None,
) -> None:
    """Check several values returned together as one check::

        out, weights = student.attention_layer(X, W_q, W_k, W_v)
        right = reference.attention_layer(X, W_q, W_k, W_v)
        check.arrays([out, weights], right, what=[_("the output"), _("the weights")],
                     mistakes={_("returned (weights, output)"): right[::-1]})

    ``got``, ``expected`` and ``what`` are parallel sequences; each mistake in
    ``mistakes`` gives a sequence of the same length (or ``None``). The
    message lists every part that differs. ``call`` (its function returns
    these values together), ``relations`` and ``step``: see the module's docstring.
    """
    if len(got) != len(expected) or len(what) != len(expected):
        raise ValueError("check.arrays: got, expected and what must have the same length")
    exps = [np.asarray(e, dtype=np.float64) for e in expected]
    problems: list[Text] = []
    differs: list[tuple[str, int, int]] = []  # the parts whose values only differ: (what, wrong, size)
    parts: list[np.ndarray | None] = []
    for value, exp, label in zip(got, exps, what, strict=False):
        if value is None:
            problems.append(_none_message(label))
            parts.append(None)
            continue
        arr = to_array(value, label)
        parts.append(arr)
        problem = _difference(arr, exp, label, rtol, atol)
        if problem:
            problems.append(problem)
            if arr.shape == exp.shape and problem.msgid == _DIFFER.msgid:
                differs.append((label, int(problem.kwargs["wrong"]), int(arr.size)))
    if not problems:
        if mistakes and observe.auditing():
            _audit(mistakes, exps, "; ".join(str(w) for w in what), lambda v, e: _all_close(v, e, *_tol(rtol, atol)))
        if mistakes and relations and _keeping_passes():
            values = [to_array(v, str(w)) for v, w in zip(got, what, strict=False)]
            _passed(Witness(values, exps, _tol(rtol, atol), call=call, mistakes=_kept(_values(mistakes, len(exps)))))
        return
    if any(p is None for p in parts):
        raise Mismatch(join("; ", problems))
    values = cast(list[np.ndarray], parts)  # none is None
    known = _values(mistakes, len(values))
    candidates, ruled_out = _weighed(values, exps, known, rtol, atol)
    if call is None and relations:  # the call that made the value, when the test's calls show it for certain
        call = recent.call_for(values, exps, _tol(rtol, atol), Call)
    witness = Witness(values, exps, _tol(rtol, atol), call=call, step=step, mistakes=_kept(known), right=relations)
    observations = [] if candidates else _observe(probes)
    search = relations and not _seen(witness)
    found = _relations(values, exps, what, call, rtol, atol, step, bool(candidates), witness) if search else None
    bare = len(differs) == len(problems) and not observations
    _fail(
        Mismatch(
            _sentences(join("; ", problems), observations),
            candidates=candidates,
            ruled_out=ruled_out,
            observations=observations,
            relations=found,
            differs=differs if bare else (),
            tolerance=(rtol, atol) if bare else (),
            witness=witness,
        )
    )


def _relations(got, expected, what, call, rtol, atol, step, known, witness) -> dict | None:
    """The evidence of how a wrong value relates to the right one (gradekit.graders.relations.engine,
    imported here: only a failed check pays for it); None when the search cannot run."""
    from gradekit.graders.relations import engine

    try:
        with recent.quiet():  # the search's calls of the student's function are its own, not the test's
            return engine.search(
                got, expected, what=what, call=call, rtol=rtol, atol=atol, step=step, known=known, witness=witness
            )
    except Exception:  # noqa: BLE001 - a search that cannot look says nothing; the check's verdict stands
        return None


def scalar(
    got: Any,
    expected: float,
    *,
    what: str,
    rtol: float = DEFAULT_RTOL,
    atol: float = DEFAULT_ATOL,
    mistakes: Mistakes = None,
    call: Call | None = None,
) -> None:
    """Check one number; ``mistakes`` and ``call`` as in :func:`array`::

        check.scalar(student["q1_mean"], float(np.mean(values)), what="q1_mean", rtol=0, atol=0.005,
                     mistakes={_("that is the sum of the numbers, not their mean"): float(np.sum(values))})

    A numeric answer should be hidden until the due date under ``gradekit serve`` (it is, by
    default: see the assignment's settings), or a student could hand in until it is right. A
    number a function of the student's returned is described by the relation search as an array's
    values are (the call is found from the test's calls when ``call`` is not given).
    """
    if got is None:
        raise Mismatch(_none_message(what))
    if isinstance(got, bool) or not isinstance(got, (int, float, np.integer, np.floating)):
        arr = to_array(got, what)
        if arr.size != 1:
            raise Mismatch(_("{what}: expected a single number, got shape {shape}").format(what=what, shape=arr.shape))
        got = arr.reshape(-1)[0]
    value = float(got)
    if math.isclose(value, float(expected), rel_tol=rtol, abs_tol=atol):
        if mistakes and observe.auditing():
            _audit(mistakes, float(expected), what, lambda v, e: math.isclose(float(v), e, rel_tol=rtol, abs_tol=atol))
        if mistakes and _keeping_passes():
            known = {n: v if v is None or v is FAILS else [np.asarray(float(v))] for n, v in _known(mistakes).items()}
            right = [np.asarray(float(expected))]
            _passed(Witness([np.asarray(value)], right, _tol(rtol, atol), mistakes=_kept(_values(known, 1))))
        return
    known = _values(
        {name: v if v is None or v is FAILS else [np.asarray(float(v))] for name, v in _known(mistakes).items()}, 1
    )
    got_, right = [np.asarray(value, dtype=np.float64)], [np.asarray(float(expected), dtype=np.float64)]
    candidates, ruled_out = _weighed(got_, right, known, rtol, atol)
    if call is None:
        call = recent.call_for(got_, right, _tol(rtol, atol), Call)
    witness = Witness(got_, right, _tol(rtol, atol), call=call, mistakes=_kept(known))
    search = not _seen(witness)
    found = _relations(got_, right, [what], call, rtol, atol, None, bool(candidates), witness) if search else None
    message = (
        _("{what}: wrong value").format(what=what)
        if rtol == 0 and atol == 0
        else _("{what}: wrong value (tolerance rtol={rtol:g}, atol={atol:g})").format(what=what, rtol=rtol, atol=atol)
    )
    _fail(Mismatch(message, candidates=candidates, ruled_out=ruled_out, relations=found, witness=witness))


def _difference(arr: np.ndarray, exp: np.ndarray, what: str, rtol: float, atol: float) -> Text | None:
    """How ``arr`` differs from ``exp``, in words without the expected values; None when equal."""
    if arr.shape != exp.shape:
        if arr.ndim == 2 and arr.shape == exp.shape[::-1] and close(arr, exp.T, rtol=rtol, atol=atol):
            return _("{what}: shape {shape}, expected shape {expected} (the transpose of the expected shape)").format(
                what=what, shape=arr.shape, expected=exp.shape
            )
        return _("{what}: shape {shape}, expected shape {expected}").format(
            what=what, shape=arr.shape, expected=exp.shape
        )
    if not np.all(np.isfinite(arr)) and np.all(np.isfinite(exp)):
        bad = int(np.size(arr) - np.count_nonzero(np.isfinite(arr)))
        return _("{what}: {bad} of {size} values are nan or inf").format(what=what, bad=bad, size=arr.size)
    if np.allclose(arr, exp, rtol=rtol, atol=atol, equal_nan=True):
        return None
    wrong = int(np.count_nonzero(~np.isclose(arr, exp, rtol=rtol, atol=atol, equal_nan=True)))
    return _DIFFER.format(what=what, wrong=wrong, size=arr.size, rtol=rtol, atol=atol)


_DIFFER = _("{what}: {wrong} of {size} values differ from the reference (tolerance rtol={rtol:g}, atol={atol:g})")


def _observe(probes: Probes) -> list[str]:
    if probes is None:
        return []
    try:
        seen = list(probes())
    except Exception:  # a probe that cannot run says nothing
        return []
    return [s for s in seen if s]


def _sentences(message: Text, observations: list) -> Text:
    return message if not observations else join(" ", [_("{message}.").format(message=message), *observations])


def _describe(value: Any) -> Text:
    if isinstance(value, np.ndarray):
        return _("an array of dtype {dtype}").format(dtype=str(value.dtype))
    return _("a {kind}").format(kind=type(value).__name__)
