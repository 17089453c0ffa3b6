"""Simple numbers: what a factor, a scale or a shift is called when it is one (2, ½, ln 2, √d_k, 1/n ...).

A number found by a search (a factor fitted to the values, a scale of an input
fitted by calling the reference) is *named* when it is, within tolerance, a
simple constant or a simple expression of the inputs' sizes; otherwise it is
shown with two significant digits, which says what the values show without
reproducing anything the reference computed (LeakScan counts three digits as a
leak). An :class:`Expression`'s text is what a sentence shows ("sqrt(d_k)",
"(n - 1)"), ``over`` says whether the number is 1 divided by it.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass

# (template of a size n, its value), each >= 1 for n >= 3; a number is matched to these and to 1 / these
_SIZE_FORMS: list[tuple[str, Callable[[float], float]]] = [
    ("{}", lambda n: n),
    ("sqrt({})", math.sqrt),
    ("2·sqrt({})", lambda n: 2 * math.sqrt(n)),
    ("sqrt({})/2", lambda n: math.sqrt(n) / 2),
    ("2·{}", lambda n: 2.0 * n),
    ("{}/2", lambda n: n / 2),
    ("({} - 1)", lambda n: n - 1.0),
    ("({} + 1)", lambda n: n + 1.0),
    ("sqrt({} - 1)", lambda n: math.sqrt(n - 1)),
    ("sqrt({} + 1)", lambda n: math.sqrt(n + 1)),
    ("{0}/({0} - 1)", lambda n: n / (n - 1)),
    ("sqrt({0}/({0} - 1))", lambda n: math.sqrt(n / (n - 1))),
    ("({0} + 1)/{0}", lambda n: (n + 1) / n),
    ("sqrt(({0} + 1)/{0})", lambda n: math.sqrt((n + 1) / n)),
    ("{}^(1/4)", lambda n: n**0.25),
    ("({} - 2)", lambda n: n - 2.0),  # the degrees of freedom of a line fitted to n points
    ("sqrt({} - 2)", lambda n: math.sqrt(n - 2)),
]
# how 1 / a form reads when it reads better than "divided by ..."
_RECIPROCAL = {"sqrt({})/2": "2/sqrt({})", "{0}/({0} - 1)": "({0} - 1)/{0}", "({0} + 1)/{0}": "{0}/({0} + 1)"}

CONSTANTS: list[tuple[str, float]] = [
    ("2", 2.0),
    ("3", 3.0),
    ("4", 4.0),
    ("10", 10.0),
    ("e", math.e),
    ("π", math.pi),
    ("ln 2", math.log(2)),
    ("ln 10", math.log(10)),
    ("100", 100.0),  # a percentage
    ("1000", 1000.0),  # a unit of a thousand (kB, ms)
    ("1024", 1024.0),  # a unit of 2^10 (KiB from MiB)
]


@dataclass(frozen=True)
class Expression:
    """A simple number: ``over`` False, the number is ``text``; True, it is 1 / ``text``."""

    text: str
    value: float
    over: bool
    form: str  # the template (a size's place as {}), or the constant
    sizes: tuple[tuple[str, int], ...] = ()

    @property
    def simple(self) -> bool:
        """Whether it is made of a size alone (√d, 2/√d), not of a size off by one (d - 1)."""
        return not off_by(self.form)

    @property
    def divides(self) -> bool:
        """Whether a sentence says "divided by" ``text`` (else "multiplied by")."""
        return self.over and self.form not in _RECIPROCAL

    @property
    def key(self) -> str:
        """How a relation's key names it: ``1/sqrt(d_k)``, ``2/sqrt(d_k)``, ``ln 2``."""
        return ("1/" if self.divides else "") + self.text

    @property
    def detail(self) -> dict:
        """What a sentence needs: the form, and the sizes it was made of on this input."""
        out: dict = {"form": ("1/" if self.over else "") + self.form}
        if self.sizes:
            out["sizes"] = dict(self.sizes)
        return out

    def times(self, name: str) -> str:
        """This number times ``name``, as a formula: ``sqrt(d_k)·x``, ``x/2``."""
        return f"{name}/{operand(self.text)}" if self.divides else f"{operand(self.text)}·{name}"


def expressions(sizes: dict[str, int]) -> list[Expression]:
    """Every simple number for these sizes (``{"d_k": 3}``): the sizes' forms first, constants last;
    a number and its reciprocal."""
    return list(_expressions(tuple(sizes.items())))


@functools.lru_cache(maxsize=256)
def _expressions(sizes: tuple[tuple[str, int], ...]) -> tuple[Expression, ...]:
    out: list[Expression] = []
    for key, n in sizes:
        for form, value in _SIZE_FORMS:
            if (n < 3 and off_by(form)) or (n < 4 and "- 2" in form):
                continue  # n - 1 = 1, n - 2 = 1: no form of its own
            v = value(float(n))
            if v <= 0 or math.isclose(v, 1.0):
                continue
            text = form.format(key)
            out.append(Expression(text, v, False, form, ((key, n),)))
            shown = _RECIPROCAL.get(form)
            out.append(Expression(shown.format(key) if shown else text, 1.0 / v, True, form, ((key, n),)))
    for text, number in CONSTANTS:
        out.append(Expression(text, number, False, text))
        out.append(Expression(text, 1.0 / number, True, text))
    return tuple(out)


def named(c: float, sizes: dict[str, int], rtol: float, ratios: bool = False) -> list[Expression]:
    """The simple numbers ``c`` is, within ``rtol``; with ``ratios``, also a ratio of two different
    sizes and its square root (``sqrt(d_k/d_v)``: one size taken for another)."""
    if not math.isfinite(c) or c <= 0:
        return []
    found = [e for e in expressions(sizes) if math.isclose(c, e.value, rel_tol=rtol)]
    if ratios:
        found += [e for e in _ratios(tuple(sizes.items())) if math.isclose(c, e.value, rel_tol=rtol)]
    return found


_RATIO_FORMS: list[tuple[str, Callable[[float, float], float]]] = [
    ("{0}/{1}", lambda a, b: a / b),
    ("sqrt({0}/{1})", lambda a, b: math.sqrt(a / b)),
]


@functools.lru_cache(maxsize=256)
def _ratios(sizes: tuple[tuple[str, int], ...]) -> tuple[Expression, ...]:
    out = []
    for (a, na), (b, nb) in itertools.permutations(sizes, 2):
        if na != nb:
            for form, value in _RATIO_FORMS:
                out.append(Expression(form.format(a, b), value(na, nb), False, form, ((a, na), (b, nb))))
    return tuple(out)


def off_by(text: str) -> bool:
    """Whether an expression is a size off by one or two (n - 1, n + 1, n - 2): said after the sizes'
    own forms."""
    return any(o in text for o in ("- 1", "+ 1", "- 2"))


def operand(text: str) -> str:
    """``text`` in parentheses when it is a sum, a product or a quotient (``x/(n/2)``, not ``x/n/2``)."""
    depth, bare = 0, []
    for ch in text:
        depth += ch == "("
        depth -= ch == ")"
        if depth == 0 and ch != ")":
            bare.append(ch)
    return f"({text})" if any(op in "".join(bare) for op in ("/", "·", " - ", " + ")) else text


def two_digits(value: float) -> str:
    """A number to two significant digits: a value the reference computed is never printed so."""
    return f"{value:.2g}"


def key(value: float) -> str:
    """A number as a key, the same for the same number found on several inputs (three digits)."""
    return f"{value:.3g}"
