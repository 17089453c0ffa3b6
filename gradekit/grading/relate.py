"""What a cell's wrong values show about the right ones, weighed over all its failed checks.

Each failed array check records how its wrong value relates to the right one
on its input (:mod:`gradekit.graders.relations`: which relations it tried,
which hold). One input proves little, so a relation is said only when

* it holds on every failed check where it was tried,
* it holds on at least two failed checks where no known mistake matched the
  value (a known mistake's values are no evidence for a relation; a step
  relation -- right for the first t steps -- is the exception: it says where the
  values go wrong, which a known mistake does not contradict),
* every other relation of its kind that held with it somewhere was told apart
  from it somewhere else (held with it, ruled out on another of its checks);
  two or three that never were are said together ("... or ..."), and names of
  one relation (an axis as the argument named it or by its number, two sizes
  equal on every input) become one.

Kinds are tried in a fixed order (:data:`ORDER`: a factor before an offset,
..., a step last) and a more general relation of a kind (a factor that
changes from input to input) only when no more specific one of that kind holds.
One relation is said per thing compared (one part of what a function returns,
or all of it), and a step relation beside it; relations are said only when the catalogue names no known
mistake in the cell (:func:`gradekit.grading.diagnosis.diagnose`). They are
phrased as what the values show, never as a cause, and never show an
expected value: factors keep two significant digits.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from gradekit.i18n.text import Text, _
from gradekit.results import Check, Relation

# the kinds in the order they are tried (the search's, gradekit.graders.relations.FAMILIES)
ORDER = ("factor", "shift", "offset", "function", "zeros", "changed", "scaled", "independent", "step")
MAX_ALTERNATIVES = 3
MAX_SAID = 3  # relations said per cell


def relate(checks: Iterable[Check]) -> list[Relation]:
    """The relations the evidence of a cell's failed checks supports (see the module's docstring)."""
    failed = [c for c in checks if not c.passed and c.evidence]
    cases = [_Case(c.evidence) for c in failed if c.evidence]
    if len(cases) < 2:
        return []
    keys: dict[str, None] = {}
    for case in cases:
        keys.update(dict.fromkeys(case.holds))
    subjects: dict[str, list[str]] = {}
    for key in keys:
        subjects.setdefault(key.split("|", 1)[0], []).append(key)
    found: list[tuple[str, int, Relation]] = []
    for subject, subject_keys in subjects.items():
        # what the values are, and (a step relation) where they go wrong: each may be said
        for families in (ORDER[:-1], ORDER[-1:]):
            relation = _best(subject, subject_keys, cases, families)
            if relation is not None:
                found.append((subject, ORDER.index(relation.family), relation))
    return _merged(_without_parts_of_whole(found))[:MAX_SAID]


class _Case:
    """The evidence of one failed check, as the weighing reads it."""

    def __init__(self, evidence: dict):
        self.holds: dict[str, dict] = evidence.get("holds", {})
        tested = evidence.get("tested", [])
        self.tested = {t for t in tested if not t.endswith("*")}
        self.wildcards = [t[:-1] for t in tested if t.endswith("*")]
        self.labels: dict[str, str] = evidence.get("labels", {})
        self.known = bool(evidence.get("known"))

    def tried(self, key: str) -> bool:
        return key in self.tested or key in self.holds or any(key.startswith(w) for w in self.wildcards)

    def ruled_out(self, key: str) -> bool:
        return self.tried(key) and key not in self.holds

    def compared(self, subject: str) -> bool:
        prefix = subject + "|"
        return any(t.startswith(prefix) for t in (*self.tested, *self.wildcards, *self.holds))


def _level(family: str, arg: str) -> int:
    """How general a relation is within its kind: the most specific level that holds is said."""
    if family == "factor":
        return 2 if arg == "any" else 1 if arg.startswith("c:") and arg != "c:-1" else 0
    return (
        1
        if (family, arg) in {("shift", "any"), ("function", "permuted"), ("scaled", "rows_cols"), ("step", "some")}
        else 0
    )


def _alias(family: str, arg: str, detail: dict) -> str:
    """Names of one relation share an alias: an axis named three ways, a factor of two sizes that are
    equal on every input."""
    if family in ("function", "scaled"):
        parts = arg.split(":")
        return ":".join(parts[:1] + parts[2:])
    if family == "factor" and arg.startswith("expr:"):
        return "expr:" + str(detail.get("form", arg))
    if family == "changed" and arg.split(":", 1)[0] in ("unit", "centred"):
        return arg.split(":", 1)[0]  # the same change to more inputs than needed: the fewest are said
    return arg


def _best(subject: str, keys: list[str], cases: list[_Case], families: Sequence[str]) -> Relation | None:
    for family in families:
        of_kind = [k for k in keys if k.split("|")[1] == family]
        if not of_kind:
            continue
        candidates = []
        for key in of_kind:
            support = [i for i, c in enumerate(cases) if key in c.holds and (family == "step" or not c.known)]
            if len(support) >= 2 and not any(c.ruled_out(key) for c in cases):
                candidates.append((key, support))
        if not candidates:
            continue
        level = min(_level(family, k.split("|", 2)[2]) for k, _s in candidates)
        candidates = [(k, s) for k, s in candidates if _level(family, k.split("|", 2)[2]) == level]
        key, support = max(candidates, key=lambda ks: len(ks[1]))  # the first of the best supported
        rivals = [
            k
            for k, _s in candidates
            if k != key
            and any(k in cases[i].holds for i in support)
            and not any(cases[i].ruled_out(k) for i in support)
        ]
        first = cases[support[0]]
        args, aliases = [key.split("|", 2)[2]], [_alias(family, key.split("|", 2)[2], first.holds[key])]
        for rival in rivals:
            other = rival.split("|", 2)[2]
            alias = _alias(family, other, next(cases[i].holds[rival] for i in support if rival in cases[i].holds))
            if alias not in aliases:
                args.append(other)
                aliases.append(alias)
        if len(args) > MAX_ALTERNATIVES:
            continue  # the values fit too many relations of this kind to say one
        failed = sum(1 for c in cases if c.compared(subject))
        tried = sum(1 for c in cases if c.tried(key))
        label = next((c.labels.get(subject, "") for c in cases if subject in c.labels), "")
        details = _details([cases[i].holds[key] for i in support])
        return Relation(label, family, args, details, len(support), failed, tried)
    return None


def _details(details: list[dict]) -> dict:
    """What the supporting checks say a sentence may show: each value once, in order."""
    out: dict[str, Any] = {}
    for detail in details:
        for name, value in detail.items():
            if name == "sizes":
                sizes = out.setdefault("sizes", {})
                for size, n in value.items():
                    if n not in sizes.setdefault(size, []):
                        sizes[size].append(n)
            else:
                seen = out.setdefault(name, [])
                if value not in seen:
                    seen.append(value)
    return out


def _without_parts_of_whole(found: list[tuple[str, int, Relation]]) -> list[tuple[str, int, Relation]]:
    """A relation of all a function returns makes those of its parts of a later kind redundant."""
    wholes = {s.split("#", 1)[0]: order for s, order, _r in found if s.endswith("#all")}
    return [
        (s, order, r)
        for s, order, r in found
        if s.endswith("#all") or s.split("#", 1)[0] not in wholes or order < wholes[s.split("#", 1)[0]]
    ]


def _merged(found: list[tuple[str, int, Relation]]) -> list[Relation]:
    """Parts that show the same relation share one sentence ("Q, K, V: ...")."""
    out: list[Relation] = []
    for _subject, _order, relation in found:
        twin = next(
            (
                r
                for r in out
                if r.family == relation.family and r.args == relation.args and r.subject and relation.subject
            ),
            None,
        )
        if twin is not None:
            twin.subject = f"{twin.subject}, {relation.subject}"
            continue
        out.append(relation)
    return out


# -- sentences ----------------------------------------------------------------------------------

COUNTED = _("{relation} (on all {failed} failed checks).")
COUNTED_TRIED = _("{relation} (on the {tried} of {failed} failed checks where it was tried).")
ABOUT = _("{subject}: {relation}")
EITHER = _("{0}, or {1}")
ANY_OF = _("{0}, or {1}, or {2}")

DIVIDED = _("your values are the right ones divided by {expr}")
MULTIPLIED = _("your values are the right ones multiplied by {expr}")
DIVIDED_SIZES = _("your values are the right ones divided by {expr} ({sizes})")
MULTIPLIED_SIZES = _("your values are the right ones multiplied by {expr} ({sizes})")
TIMES_C = _("your values are the right ones multiplied by {c}")
OPPOSITE = _("your values are the right ones with the opposite sign")
ZERO = _("your values are all zero, the right ones are not")
PROPORTIONAL = _(
    "your values are proportional to the right ones, with a factor that changes from check to check ({factors})"
)
PLUS_C = _("your values are the right ones plus {c}")
PLUS_ANY = _("your values are the right ones plus a constant that changes from check to check ({constants})")
MINUS_INPUT = _("your values minus {name} are the right ones")
PLUS_INPUT = _("your values plus {name} are the right ones")
LOG = _("your values are the logarithms of the right ones")
EXP = _("your values are the exponentials (exp) of the right ones")
TRANSPOSE = _("your values are the transpose of the right ones (the last two axes swapped)")
ALL_AXES = _("your values are the right ones with the order of all their axes reversed (what .T does)")
FLIP = _("your values are the right ones in reverse order along {axis}")
ROLL_ON = _("your values are the right ones moved one place along {axis}: your entry i + 1 is the right entry i")
ROLL_BACK = _("your values are the right ones moved one place along {axis}: your entry i is the right entry i + 1")
NORMALISED = _("your values are the right ones divided by their sum along {axis}")
LOG_SLICES = _("your values are the logarithms of the right ones plus a constant for each slice along {axis}")
RESHAPED = _("your values are the right ones in the right order, but in the shape {shape}")
PERMUTED = _("your values are the right ones, in another order")
ZEROS_LOST = _("where the right values are 0, none of yours is")
CHANGED = _("your values are what the right function gives for {change}")
CHANGED_BROADCAST = _("your values are what the right function gives for {change}, repeated to the shape of yours")
SLICES = _("each slice of your values along {axis} is the right one multiplied by a factor of its own")
ROWS = _("each row of your values is the right row multiplied by a factor of its own")
COLUMNS = _("each column of your values is the right column multiplied by a factor of its own")
ROWS_COLS = _("your values are the right ones with each row and each column multiplied by a factor of its own")
INDEPENDENT = _("your values did not change when the grader changed {name}, and the right ones do")
FIRST_STEP = _("your values are right at the first step, then wrong")
STEPS = _("your values are right for the first {t} steps, then wrong")
SOME_STEPS = _("your first steps are right, then a step is wrong (the first wrong one: step {steps})")

AXIS_NAMED = _("the axis given by `{name}`")
AXIS_LAST = _("the last axis")
AXIS_NUMBER = _("axis {k}")
UNIT_ROWS = _("{names} with each row scaled to length 1")
CENTRED = _("{names} with their mean row subtracted")
IDENTITY = _("{name} replaced by the identity matrix")
IN_PLACE = _("{new} in place of {old}")
SWAPPED = _("{a} and {b} swapped")
AND = _("{0} and {1}")


def sentences(relations: Sequence[Relation], name: Callable[[Any], str] = str) -> list[Text]:
    """The relations as sentences for the student (``name`` shows a stored label in their language)."""
    out = []
    for relation in relations:
        clause = _clause(relation)
        if clause is None:
            continue
        if relation.subject:
            clause = ABOUT.format(subject=name(relation.subject), relation=clause)
        if relation.tried < relation.failed:  # it holds wherever it was tried
            out.append(COUNTED_TRIED.format(relation=clause, tried=relation.tried, failed=relation.failed))
        else:
            out.append(COUNTED.format(relation=clause, failed=relation.failed))
    return out


def _clause(relation: Relation) -> Text | None:
    clauses = [c for c in (_one(relation, arg) for arg in relation.args) if c is not None]
    if not clauses:
        return None
    if len(clauses) == 2:
        return EITHER.format(*clauses)
    if len(clauses) == 3:
        return ANY_OF.format(*clauses)
    return clauses[0]


def _one(relation: Relation, arg: str) -> Text | None:
    family, details = relation.family, relation.details
    if family == "factor":
        if arg == "zero":
            return ZERO
        if arg == "c:-1":
            return OPPOSITE
        if arg == "any":
            return PROPORTIONAL.format(factors=", ".join(_number(c) for c in details.get("c", [])[:3]))
        if arg.startswith("c:"):
            return TIMES_C.format(c=_number(float(arg[2:])))
        return _expression(arg[5:], details.get("sizes", {}))
    if family == "shift":
        if arg == "any":
            return PLUS_ANY.format(constants=", ".join(_number(c) for c in details.get("c", [])[:3]))
        return PLUS_C.format(c=_number(float(arg[2:])))
    if family == "offset":
        return (MINUS_INPUT if arg.startswith("+") else PLUS_INPUT).format(name=arg[1:])
    if family == "function":
        return _function(arg, details)
    if family == "zeros":
        return ZEROS_LOST
    if family == "changed":
        change = _change(arg)
        return (CHANGED_BROADCAST if details.get("broadcast") else CHANGED).format(change=change)
    if family == "scaled":
        if arg == "rows_cols":
            return ROWS_COLS
        axis = arg.split(":", 1)[1]
        ndim = (details.get("ndim") or [0])[0]
        if ndim == 2 and axis in ("last", "1"):
            return ROWS
        if ndim == 2 and axis == "0":
            return COLUMNS
        return SLICES.format(axis=_axis(axis))
    if family == "independent":
        return INDEPENDENT.format(name=arg)
    if family == "step":
        steps = details.get("t", [])
        if arg == "some":
            return SOME_STEPS.format(steps=", ".join(str(t + 1) for t in steps[:3]))
        t = int(arg.split(":", 1)[1])
        return FIRST_STEP if t == 1 else STEPS.format(t=t)
    return None


def _expression(text: str, sizes: dict) -> Text:
    """ "divided by sqrt(d_k) (d_k = 3, 8)": a factor below 1 is said as a division."""
    values = "; ".join(f"{size} = {', '.join(str(n) for n in ns)}" for size, ns in sizes.items())
    if len(sizes) == 1 and text.removeprefix("1/") == next(iter(sizes)):  # "divided by n_k (= 7, 5)"
        values = "= " + ", ".join(str(n) for n in next(iter(sizes.values())))
    if text == "1/2":
        divide, shown = True, "2"
    elif text == "2":
        divide, shown = False, "2"
    elif text.startswith("1/"):
        divide, shown = True, text[2:]
    else:
        divide, shown = False, text
    if not values:
        return (DIVIDED if divide else MULTIPLIED).format(expr=shown)
    return (DIVIDED_SIZES if divide else MULTIPLIED_SIZES).format(expr=shown, sizes=values)


def _function(arg: str, details: dict) -> Text | None:
    parts = arg.split(":")
    kind = parts[0]
    if kind == "log":
        return LOG
    if kind == "exp":
        return EXP
    if kind == "T":
        return TRANSPOSE
    if kind == "T_all":
        return ALL_AXES
    if kind == "reshape":
        shape = (details.get("shape") or [[]])[0]
        return RESHAPED.format(shape=tuple(shape))
    if kind == "permuted":
        return PERMUTED
    axis = _axis(parts[1]) if len(parts) > 1 else AXIS_LAST
    if kind == "flip":
        return FLIP.format(axis=axis)
    if kind == "roll":
        return (ROLL_ON if parts[2] == "+1" else ROLL_BACK).format(axis=axis)
    if kind == "normalised":
        return NORMALISED.format(axis=axis)
    if kind == "logsm":
        return LOG_SLICES.format(axis=axis)
    return None


def _axis(name: str) -> Text:
    if name.startswith("="):
        return AXIS_NAMED.format(name=name[1:])
    if name == "last":
        return AXIS_LAST
    return AXIS_NUMBER.format(k=name)


def _change(arg: str) -> Any:
    kind, _sep, rest = arg.partition(":")
    if kind == "scale":
        key, _sep, factor = rest.rpartition(":")
        return {"-1": f"-{key}", "2": f"2·{key}", "1/2": f"{key}/2"}.get(factor, f"{factor}·{key}")
    if kind == "unit":
        return UNIT_ROWS.format(names=_names(rest.split("+")))
    if kind == "centred":
        return CENTRED.format(names=_names(rest.split("+")))
    if kind == "identity":
        return IDENTITY.format(name=rest)
    if kind == "inplace":
        old, _sep, new = rest.partition("=")
        return IN_PLACE.format(old=old, new=new)
    if kind == "swap":
        a, _sep, b = rest.partition(",")
        return SWAPPED.format(a=a, b=b)
    if kind == "int":
        for sign in ("=1", "-1", "+1"):
            if rest.endswith(sign):
                key = rest[: -len(sign)]
                return f"{key} = 1" if sign == "=1" else f"{key} {sign[0]} 1"
    return rest


def _names(names: list[str]) -> Any:
    if len(names) == 1:
        return names[0]
    return AND.format(", ".join(names[:-1]), names[-1])


def _number(value: float) -> str:
    """A factor, to two significant digits: a value the reference computed is never printed so."""
    return f"{value:.2g}"
