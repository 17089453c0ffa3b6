"""What a cell's wrong values show about the right ones, weighed over all its failed checks.

Each failed array check records how its wrong value relates to the right one
on its input (:mod:`gradekit.graders.relations`: which relations of each family
it tried, which hold). One input proves little, so a relation is said only when

* it holds on every failed check where it was tried,
* it holds on at least two failed checks (a known mistake's values count: relations are said only
  when no mistake is named, and a value that matched a mistake on some input is still the
  student's), and the verifier (:mod:`gradekit.grading.verify`), recomputing it from each failed
  check's raw values, finds it false on none and true on two -- on one, for a number the student
  wrote (:data:`ONE_ANSWER`),
* every other relation of its family that held with it somewhere was told apart
  from it somewhere else (held with it, ruled out on another of its checks);
  two or three that never were are said together ("... or ..."), and names of
  one relation (an axis as the argument named it or by its number, two sizes
  equal on every input) become one.

Families are weighed in their order (a factor before an offset, ..., a step
last) and, within a family, its most specific relations first (:meth:`Family.level`:
a factor named as 1/sqrt(d_k) before a factor of 0.35 before one that changes
from input to input); a more general level is said only when no more specific
one holds, or when the specific ones are too many to tell apart. One relation
is said per thing compared (one part of what a function returns, or all of it),
and a step relation beside it; relations are said only when the catalogue
names no known mistake in the cell (:func:`gradekit.grading.diagnosis.diagnose`).
Each family phrases its own relations (:meth:`Family.sentence`), as what the
values show, never as a cause, never showing an expected value.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from gradekit.graders.witness import Witness
from gradekit.grading.verify import claims as verify
from gradekit.i18n.text import Text, _
from gradekit.results import Check, Relation

if TYPE_CHECKING:  # pragma: no cover
    from gradekit.graders.relations.family import Family

MAX_ALTERNATIVES = 3
MAX_SAID = 3  # relations said per cell
# a number the student wrote is its only input: a relation of these families -- a function of the right
# number, a simple factor, its digits -- is said of it alone when it holds to this tolerance (computed, not
# typed: a coincidence of a few candidates with nine digits is out of reach)
ONE_ANSWER = frozenset({"elementwise", "factor", "precision"})
ANSWER_TOL = (1e-9, 1e-12)


def relate(checks: Iterable[Check], more: Iterable[Check] = ()) -> list[Relation]:
    """The relations the evidence of a cell's failed checks supports (see the module's docstring);
    ``more`` are further cases of its failed tests (evidence only: gradekit.grading.harness.cases)."""
    further = [c for c in more if not c.passed and c.evidence]
    failed = [c for c in checks if not c.passed and c.evidence] + further
    if len(failed) < 2 and not any((c.evidence or {}).get("answer") for c in failed):
        return []
    from gradekit.graders.relations.engine import young_only

    extra = {id(c) for c in further}
    with young_only():
        return _relate(failed, extra)


def _relate(failed: list[Check], extra: set[int] = frozenset()) -> list[Relation]:  # type: ignore[assignment]
    cases = [_Case(c.evidence, id(c) in extra) for c in failed if c.evidence]
    if len(cases) < 2 and not any(c.answer for c in cases):
        return []
    keys: dict[str, None] = {}
    for case in cases:
        keys.update(dict.fromkeys(case.holds))
    subjects: dict[str, list[str]] = {}
    for key in keys:
        subjects.setdefault(key.split("|", 1)[0], []).append(key)
    from gradekit.graders.relations.engine import families

    every = families()
    rank = {f.name: f.rank for f in every}
    found: list[tuple[str, int, Relation]] = []
    for subject, subject_keys in subjects.items():
        # what the values are, and (a step relation) where they go wrong: each may be said
        for group in ([f for f in every if not f.beside], [f for f in every if f.beside]):
            relation = _best(subject, subject_keys, cases, group)
            if relation is not None:
                found.append((subject, rank[relation.family], relation))
    return _merged(_without_parts_of_whole(_without_repeats(found)))[:MAX_SAID]


class _Case:
    """The evidence of one failed check, as the weighing reads it."""

    def __init__(self, evidence: dict, further: bool = False):
        self.further = further  # a further case of a failed test, run past its first failure
        self.holds: dict[str, dict] = evidence.get("holds", {})
        tested = evidence.get("tested", [])
        self.tested = {t for t in tested if not t.endswith("*")}
        self.wildcards = [t[:-1] for t in tested if t.endswith("*")]
        self.labels: dict[str, str] = evidence.get("labels", {})
        self.known = bool(evidence.get("known"))
        self.raw: Witness | None = evidence.get("raw")  # the check's raw values, for the verifier
        self.answer = bool(evidence.get("answer"))  # a value the student wrote, checked without a call

    def tried(self, key: str) -> bool:
        return key in self.tested or key in self.holds or any(key.startswith(w) for w in self.wildcards)

    def ruled_out(self, key: str) -> bool:
        return self.tried(key) and key not in self.holds

    def about(self, subject: str) -> bool:
        """Whether this failed check compared the subject's values (its raw values hold them, or -- with
        no raw values kept -- its evidence names it)."""
        if self.raw is not None and self.raw.part(subject.split("~", 1)[0]) is not None:
            return True
        return self.compared(subject)

    def compared(self, subject: str) -> bool:
        prefix = subject + "|"
        return any(t.startswith(prefix) for t in (*self.tested, *self.wildcards, *self.holds))


def _best(subject: str, keys: list[str], cases: list[_Case], families: Sequence[Family]) -> Relation | None:
    for family in families:
        if not verify.known(family.name):
            continue  # a claim the verifier cannot recompute is not said
        of_kind = [k for k in keys if k.split("|")[1] == family.name]
        candidates = []
        for key in of_kind:
            support = [i for i, c in enumerate(cases) if key in c.holds]
            enough = len(support) >= 2 or (len(support) == 1 and cases[support[0]].answer)
            if enough and not any(c.ruled_out(key) for c in cases):
                candidates.append((key, support))
        checked = _Verified(subject, family, cases)
        for level in sorted({family.level(_arg(k)) for k, _s in candidates}):
            pool = [(k, s) for k, s in candidates if family.level(_arg(k)) == level]
            while pool:
                relation, used = _said(subject, family, pool, cases, checked)
                if relation is not None:
                    return relation
                if not used:
                    break  # too many to tell apart: a more general level may still be said
                pool = [(k, s) for k, s in pool if k not in used]
    return None


class _Verified:
    """What the verifier (gradekit.grading.verify) says of a claim on each failed check of the subject:
    true, false, or cannot be told there -- recomputed from the check's raw values, once per claim."""

    def __init__(self, subject: str, family: Family, cases: list[_Case]):
        self.subject, self.family, self.cases = subject, family, cases
        self.seen: dict[str, list[bool | None]] = {}

    def outcomes(self, key: str, said: dict) -> list[bool | None]:
        if key not in self.seen:
            arg = _arg(key)
            self.seen[key] = [
                verify.claim(self.family.name, arg, self.subject, c.raw, c.holds.get(key), said)
                if c.raw is not None
                else None
                for c in self.cases
            ]
        return self.seen[key]

    def support(self, key: str, said: dict) -> list[int] | None:
        """The checks where the claim is true; None when it is false on one, or true on fewer than two
        -- or, for a number the student wrote (an answer: there is no other input), on that one only when
        it holds to nine digits, a family of no number of its own (see :data:`ONE_ANSWER`)."""
        outcomes = self.outcomes(key, said)
        if any(o is False for o in outcomes):
            return None
        true = [i for i, o in enumerate(outcomes) if o]
        counted = true
        if len(counted) >= 2:
            return true
        if len(counted) == 1 and self._exact_answer(key, said, self.cases[counted[0]]):
            return true
        return None

    def _exact_answer(self, key: str, said: dict, case: _Case) -> bool:
        if not case.answer or case.raw is None or self.family.name not in ONE_ANSWER:
            return False
        exact = dataclasses.replace(case.raw, tol=ANSWER_TOL)
        return verify.claim(self.family.name, _arg(key), self.subject, exact, case.holds.get(key), said) is True


def _said(
    subject: str, family: Family, candidates: list[tuple[str, list[int]]], cases: list[_Case], checked: _Verified
) -> tuple[Relation | None, set[str]]:
    """The relation of one level of a family said, with the rivals never told apart from it, each
    verified; and the keys weighed (the best and its rivals): none of them verified, or too many to
    say (then no key: the level says nothing)."""

    def preferred(key: str, support: list[int]) -> float:
        return family.prefer(_arg(key), [cases[i].holds[key] for i in support])

    # the best supported, then the family's preferred (the first of those)
    key, support = min(candidates, key=lambda ks: (-len(ks[1]), preferred(*ks)))
    best = preferred(key, support)
    rivals = [
        k
        for k, s in candidates
        if k != key
        and any(k in cases[i].holds for i in support)
        and not any(cases[i].ruled_out(k) for i in support)
        and abs(preferred(k, s) - best) <= 1e-9
    ]
    first = cases[support[0]]
    args, aliases = [_arg(key)], [family.alias(_arg(key), first.holds[key])]
    for rival in rivals:
        alias = family.alias(_arg(rival), next(cases[i].holds[rival] for i in support if rival in cases[i].holds))
        if alias not in aliases:
            args.append(_arg(rival))
            aliases.append(alias)
    if len(args) > MAX_ALTERNATIVES:
        return None, set()
    used = {key, *rivals}
    details = _details([cases[i].holds[key] for i in support])
    for rival in rivals:  # the sizes a rival is made of, for its own clause
        for size, ns in _details([c.holds[rival] for c in cases if rival in c.holds]).get("sizes", {}).items():
            details.setdefault("sizes", {}).setdefault(size, ns)
    kept = []
    for arg in args:  # each alternative said is true wherever it could be told
        true = checked.support(f"{subject}|{family.name}|{arg}", details)
        if true is not None:
            kept.append((arg, true))
    if not kept:
        return None, used
    failed = sum(1 for c in cases if c.about(subject))
    tried = min(len(t) for _a, t in kept)
    label = next((c.labels.get(subject, "") for c in cases if subject in c.labels), "")
    more = sum(1 for c in cases if c.further and c.about(subject))
    relation = Relation(
        label, family.name, [a for a, _t in kept], details, tried, max(failed, tried), tried, more, of=subject
    )
    return relation, used


def _arg(key: str) -> str:
    return key.split("|", 2)[2]


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


def _without_repeats(found: list[tuple[str, int, Relation]]) -> list[tuple[str, int, Relation]]:
    """A relation found of something derived from a value (``f#0~V``: the weights f mixes V's rows
    with) that says what the value's own relation says adds nothing."""
    said = {(s, r.family, tuple(r.args)) for s, _order, r in found}
    return [(s, o, r) for s, o, r in found if "~" not in s or (s.split("~", 1)[0], r.family, tuple(r.args)) not in said]


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
            twin.of = f"{twin.of},{relation.of}"
            continue
        out.append(relation)
    return out


# -- sentences ----------------------------------------------------------------------------------

COUNTED = _("{relation} (on all {failed} failed checks).")
COUNTED_ONE = _("{relation} (on its one failed check).")
COUNTED_TRIED = _("{relation} (on the {tried} of {failed} failed checks where it was tried).")
COUNTED_MORE = _(
    "{relation} (on all {failed} failed cases, {more} of them further cases of the same tests, run past their "
    "first failure)."
)
COUNTED_TRIED_MORE = _(
    "{relation} (on the {tried} of {failed} failed cases where it was tried, {more} of them further cases of the "
    "same tests, run past their first failure)."
)
ABOUT = _("{subject}: {relation}")
EITHER = _("{0}, or {1}")
ANY_OF = _("{0}, or {1}, or {2}")


def sentences(relations: Sequence[Relation], name: Callable[[Any], str] = str) -> list[Text]:
    """The relations as sentences for the student (``name`` shows a stored label in their language)."""
    out = []
    for relation in relations:
        try:
            clause = _clause(relation)
        except Exception:  # noqa: BLE001 - a sentence that cannot be put in words is not said; the grading goes on
            clause = None
        if clause is None:
            continue
        if relation.subject:
            clause = ABOUT.format(subject=name(relation.subject), relation=clause)
        more = getattr(relation, "more", 0)
        if relation.failed == 1:  # a number the student wrote: its one check
            out.append(COUNTED_ONE.format(relation=clause))
        elif relation.tried < relation.failed:  # it holds wherever it was tried
            counted = COUNTED_TRIED_MORE if more else COUNTED_TRIED
            out.append(counted.format(relation=clause, tried=relation.tried, failed=relation.failed, more=more))
        else:
            counted = COUNTED_MORE if more else COUNTED
            out.append(counted.format(relation=clause, failed=relation.failed, more=more))
    return out


def _clause(relation: Relation) -> Text | None:
    from gradekit.graders.relations.engine import family

    clauses = []
    for arg in relation.args:
        said = family(relation.family, arg)
        clause = said.sentence(arg, relation) if said is not None else None
        if clause is not None:
            clauses.append(clause)
    if not clauses:
        return None
    if len(clauses) == 2:
        return EITHER.format(*clauses)
    if len(clauses) == 3:
        return ANY_OF.format(*clauses)
    return clauses[0]
