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
from gradekit.graders import observe
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

# the known mistakes: a mapping, or a function returning one -- called only when the
# value is wrong, for mistakes that cost something to compute (most students are right)
Mistakes = Mapping[str, Any] | Callable[[], Mapping[str, Any]] | None
# sentences describing a wrong value, or None where a probe saw nothing; called only for an
# unexplained wrong value
Probes = Callable[[], Iterable[str | None]] | None


class _Fails:
    """The value of a mistake that raises on this input (see the module's docstring)."""

    def __repr__(self) -> str:
        return "FAILS"


FAILS = _Fails()
"""The value of a known mistake that raises on this input (a shape it cannot take): a student who
got a value here did not make it.

Example::

    mistakes={_("multiplied K by Q instead of Q by K"): FAILS if n != m else K @ Q.T}
"""

DEFAULT_RTOL = 1e-6
DEFAULT_ATOL = 1e-8


class Call:
    """The call that produced a checked value, for the relation search (see the module's docstring)::

        check.Call(student.scaled_scores, reference.scaled_scores, dict(Q=Q, K=K), sizes=dict(n_k=len(K)))

    ``inputs`` are the positional arguments by name, in order; ``keywords`` are passed as keywords
    (``{"axis": 1}``) and never changed; ``sizes`` names the sizes a factor may be made of (default:
    the integer inputs and every input's shape, as ``K.shape[0]``); ``part`` is the index of the
    checked value in what the function returns (a tuple), ``returns`` the names a student reads
    for those parts (``(_("the output"), _("the weights"))``). Either function may be None: the
    relations that need it are then not tried.
    """

    __slots__ = ("student", "reference", "inputs", "keywords", "sizes", "part", "returns")

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
    ):
        self.student, self.reference, self.inputs = student, reference, dict(inputs)
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
        return
    if any(p is None for p in parts):
        raise Mismatch(join("; ", problems))
    values = cast(list[np.ndarray], parts)  # none is None
    candidates, ruled_out = evidence(values, exps, mistakes, rtol, atol)
    observations = [] if candidates else _observe(probes)
    found = _relations(values, exps, what, call, rtol, atol, step, bool(candidates)) if relations else None
    bare = len(differs) == len(problems) and not observations
    raise Mismatch(
        _sentences(join("; ", problems), observations),
        candidates=candidates,
        ruled_out=ruled_out,
        observations=observations,
        relations=found,
        differs=differs if bare else (),
        tolerance=(rtol, atol) if bare else (),
    )


def _relations(got, expected, what, call, rtol, atol, step, known) -> dict | None:
    """The evidence of how a wrong value relates to the right one (gradekit.graders.relations.engine,
    imported here: only a failed check pays for it); None when the search cannot run."""
    from gradekit.graders.relations import engine

    try:
        return engine.search(got, expected, what=what, call=call, rtol=rtol, atol=atol, step=step, known=known)
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
) -> None:
    """Check one number; ``mistakes`` as in :func:`array`::

        check.scalar(student["q1_mean"], float(np.mean(values)), what="q1_mean", rtol=0, atol=0.005,
                     mistakes={_("that is the sum of the numbers, not their mean"): float(np.sum(values))})

    A numeric answer should be hidden until the due date under ``gradekit serve`` (it is, by
    default: see the assignment's settings), or a student could hand in until it is right.
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
        return
    known = {name: v if v is None or v is FAILS else [np.asarray(float(v))] for name, v in _known(mistakes).items()}
    candidates, ruled_out = evidence([np.asarray(value)], [np.asarray(float(expected))], known, rtol, atol)
    message = (
        _("{what}: wrong value").format(what=what)
        if rtol == 0 and atol == 0
        else _("{what}: wrong value (tolerance rtol={rtol:g}, atol={atol:g})").format(what=what, rtol=rtol, atol=atol)
    )
    raise Mismatch(message, candidates=candidates, ruled_out=ruled_out)


def close(got: Any, expected: Any, *, rtol: float = DEFAULT_RTOL, atol: float = DEFAULT_ATOL) -> bool:
    """True when ``got`` is numerically ``expected`` (same shape); never raises. For a law that
    compares two of the student's own values, without a Mismatch's message::

        assert check.close(student.softmax(x + 5.0), student.softmax(x)), _("softmax(x + c) should equal softmax(x)")
    """
    try:
        arr = np.asarray(got, dtype=np.float64)
        exp = np.asarray(expected, dtype=np.float64)
    except Exception:
        return False
    return arr.shape == exp.shape and bool(np.allclose(arr, exp, rtol=rtol, atol=atol, equal_nan=True))


def choice(got: Any, expected: Any, *, what: str, mistakes: Mistakes = None, asked: str | None = None) -> None:
    """Check an answer that is not a number: True or False (a yes/no question), a word, an
    option's text. Strings compare without case and extra spaces::

        check.choice(student["tq1_changes"], False, what="tq1_changes",
                     asked=_("Does W_v change the attention weights?"),
                     mistakes={_("W_v only enters the output: the weights come from Q and K"): True})

    With a bool ``expected``, the student may answer True/False, yes/no (y/n, 是/否, 对/错 ...)
    or 1/0. A wrong answer's message says what the student answered, and to what (``asked``,
    the question in a few words), never the right answer; ``mistakes`` maps the name of a
    known wrong answer to that answer, as in :func:`array`.
    """
    if got is None:
        raise Mismatch(_none_message(what))
    said = _shown(got)  # the student's own answer, as they wrote it
    if isinstance(expected, (bool, np.bool_)):
        answer = truth(got)
        if answer is None:
            raise Mismatch(
                _("{what}: you answered {answer}, which is neither True nor False (yes or no)").format(
                    what=what, answer=said
                )
            )
        got, expected = answer, bool(expected)
        norm: Callable[[Any], Any] = truth
    else:
        norm = _norm
    if norm(got) == norm(expected):
        if mistakes and observe.auditing():
            _audit(mistakes, expected, what, lambda v, e: norm(v) == norm(e))
        return
    known = {name: value for name, value in _known(mistakes).items() if value is not None}
    candidates = [name for name, value in known.items() if norm(got) == norm(value)]
    message = (
        _("{what}: you answered {answer} to “{asked}”: that is not right").format(what=what, answer=said, asked=asked)
        if asked
        else _("{what}: you answered {answer}: that is not right").format(what=what, answer=said)
    )
    raise Mismatch(message, candidates=candidates, ruled_out=[name for name in known if name not in candidates])


LETTERS = "ABCDEFGHIJ"


def option(got: Any, item: Mapping[str, Any], *, what: str) -> None:
    """Check a multiple-choice answer against one item of the params::

        # params.py: {"id": "mc_scaling", "question": ..., "options": [...], "answer": "C",
        #             "why": {wrong option's text: the misconception it stands for, ...}}
        check.option(student["mc_scaling"], item, what="mc_scaling")

    ``item["answer"]`` is the right option's letter (or its index); the student answers with a
    letter (any case) or the option's text typed out. A wrong option is the mistake its ``why``
    names (the message says the letter chosen and that misconception, never the right option);
    ``gradekit check`` finds items of this shape in the params to judge guessing and how often
    classmates' answers agree. List the item's cell in ``choice_cells`` (the assignment's
    settings) for the class report to count the options chosen.
    """
    options = [str(o) for o in item["options"]]
    answer = item["answer"]
    right = answer if isinstance(answer, int) and not isinstance(answer, bool) else LETTERS.index(str(answer).upper())
    if got is None:
        raise Mismatch(_none_message(what))
    text = str(got).strip()
    letters = LETTERS[: len(options)]
    if len(text) == 1 and text.upper() in letters:
        chosen = letters.index(text.upper())
    else:
        typed = [k for k, o in enumerate(options) if _norm(o) == _norm(text)]
        if not typed:
            raise Mismatch(
                _("{what}: you answered {answer}, which is none of the options {letters}").format(
                    what=what, answer=_shown(got), letters=", ".join(letters)
                )
            )
        chosen = typed[0]
    if chosen == right:
        return
    why = (item.get("why") or {}).get(options[chosen])
    wrong = [(item.get("why") or {}).get(o) for k, o in enumerate(options) if k != right]
    if why is None:
        raise Mismatch(_("{what}: you chose {letter}, which is not right").format(what=what, letter=letters[chosen]))
    raise Mismatch(
        _("{what}: you chose {letter} -- {reason}").format(what=what, letter=letters[chosen], reason=_(why)),
        mistake=why,
        ruled_out=[w for w in wrong if w and w != why],
    )


def truth(value: Any) -> bool | None:
    """``value`` read as a yes/no answer -- True/False, 1/0, or a word such as yes/no, y/n,
    true/false, 是/否, 对/错, 会/不会 -- or None when it is none of them::

        check.truth("Yes.")   # True
        check.truth("perhaps")   # None
    """
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        word = value.strip().lower().rstrip(".!。！")
        if word in _YES:
            return True
        if word in _NO:
            return False
    return None


_YES = frozenset({"true", "yes", "y", "t", "1", "是", "对", "会", "正确", "是的", "对的"})
_NO = frozenset({"false", "no", "n", "f", "0", "否", "不", "错", "不会", "不是", "不对", "错误"})


def _shown(value: Any) -> str:
    """A student's own answer as their feedback quotes it (short, on one line)."""
    from gradekit.untrusted import shown

    if isinstance(value, (bool, np.bool_)):
        return str(bool(value))
    if isinstance(value, str):
        return "“" + shown(" ".join(value.split()), 60) + "”"
    return shown(repr(value), 60)


def evidence(
    got: Sequence[np.ndarray],
    expected: Sequence[np.ndarray],
    mistakes: Mistakes,
    rtol: float = DEFAULT_RTOL,
    atol: float = DEFAULT_ATOL,
) -> tuple[list[str], list[str]]:
    """What a wrong value says about the known mistakes: (candidates, ruled out). The checks above
    call it; a grader with a comparison of its own may too::

        candidates, ruled_out = check.evidence([got], [expected], {_("forgot the √d_k"): [Q @ K.T]})
        if candidates:
            raise check.Mismatch(_("your scores: wrong values"), candidates=candidates, ruled_out=ruled_out)

    A mistake is a candidate when the value matches it, or matches a mistake that
    gives the same values here (coinciding mistakes are candidates together: this
    input cannot tell them apart). A mistake that gives the right answer here,
    another value than the student's, or no value at all (:data:`FAILS`) is
    ruled out. Mistakes whose value is ``None`` are neither.
    """
    rtol, atol = _tol(rtol, atol)
    values, fails = {}, []
    for name, value in _known(mistakes).items():
        if value is None:
            continue
        if value is FAILS:
            fails.append(name)
            continue
        if len(value) != len(got):
            raise ValueError(f"the mistake {name!r} gives {len(value)} values, the check compares {len(got)}")
        values[name] = value
    wrong = {name: v for name, v in values.items() if not _all_close(v, expected, rtol, atol)}
    matched = [name for name, v in wrong.items() if _all_close(got, v, rtol, atol)]
    candidates = [
        name
        for name, v in wrong.items()
        if name in matched or any(_all_close(v, wrong[m], rtol, atol) for m in matched)
    ]
    return candidates, [name for name in values if name not in candidates] + fails


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


def _none_message(what) -> Text:
    """The message for a missing value: a variable left unset reads as no answer; a function's
    None may be a missing ``return``."""
    if str(what).isidentifier():
        return _("{what}: no answer given").format(what=what)
    return _("{what}: got None -- no answer given, or a function without a `return`").format(what=what)


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


def _tol(rtol: float, atol: float) -> tuple[float, float]:
    return max(rtol, 1e-6), max(atol, 1e-8)  # as evidence() compares mistakes


def _audit(mistakes: Mistakes, expected: Any, what: Any, same) -> None:
    """Tell the observers each known mistake whose value here is the right answer: an input on
    which that mistake cannot be caught (see gradekit.graders.observe)."""
    try:
        known = _known(mistakes)
    except Exception:  # noqa: BLE001 - a mistake that cannot be worked out here says nothing
        return
    for name, value in known.items():
        if value is None or value is FAILS:
            continue
        try:
            if same(value, expected):
                observe.right_answer_matches(str(name), str(what))
        except Exception:  # noqa: BLE001 - a value of another shape is simply not the same
            continue


def _all_close(a: Sequence, b: Sequence, rtol: float, atol: float) -> bool:
    return len(a) == len(b) and all(close(x, y, rtol=rtol, atol=atol) for x, y in zip(a, b, strict=False))


def _norm(value: Any) -> Any:
    if isinstance(value, str):
        return " ".join(value.strip().lower().split())
    return value


def _known(mistakes: Mistakes) -> Mapping[str, Any]:
    return (mistakes() if callable(mistakes) else mistakes) or {}


def _describe(value: Any) -> Text:
    if isinstance(value, np.ndarray):
        return _("an array of dtype {dtype}").format(dtype=str(value.dtype))
    return _("a {kind}").format(kind=type(value).__name__)
