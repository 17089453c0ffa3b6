"""What a relation family is: its search, its sentence in every language, its cost, in one class.

A family is one module of this package holding a :class:`Family` subclass and an
instance of it named ``FAMILY``; the engine (:mod:`.engine`) finds every such module,
so adding a family is adding a module (and its tests). A family

* **searches** the evidence of one failed check: :meth:`Family.search` compares one
  part of the student's value S with the right one R (values only, nothing called),
  :meth:`Family.search_call` calls the reference -- or the student's function -- again
  on related inputs (only for the first few failed checks of a function, and only
  where no cheaper relation explains the value);
* records, for each relation it tried, whether it holds (:meth:`Family.test`): a key
  ``"<subject>|<family>|<argument>"`` that does not depend on the input, so that the
  evidence of several checks adds up (weighed in :mod:`gradekit.grading.relate`);
* says how general each of its relations is (:meth:`Family.level`: the most specific
  that holds is said), which names are one relation (:meth:`Family.alias`), which
  explain a value (:meth:`Family.specific`: no search that calls a function follows);
* **says** a relation: :meth:`Family.sentence`, a :func:`gradekit.i18n.text.phrase`
  with its translations beside it;
* declares its **cost**: :attr:`Family.cost`, the calls its search may make on one
  failed check, which the engine enforces.

Nothing here says a cause, and no sentence shows an expected value.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from gradekit.graders.relations.inputs import Inputs
from gradekit.graders.relations.values import Tol, attempt, close, matches, parts
from gradekit.graders.witness import Asked

if TYPE_CHECKING:  # pragma: no cover
    from gradekit.graders.check import Call
    from gradekit.graders.witness import Witness
    from gradekit.i18n.text import Text
    from gradekit.results import Relation


@dataclass(frozen=True)
class Cost:
    """The most a family's search may call on one failed check: the reference (in the grading
    process) and the student's function (each request a round trip to the sandbox)."""

    reference: int = 0
    student: int = 0

    @property
    def calls(self) -> bool:
        return bool(self.reference or self.student)


class Evidence:
    """What one failed check showed: the keys tried, those that hold (with what a sentence shows)."""

    def __init__(self, known: bool, witness: Witness | None = None):
        self.tested: list[str] = []
        self.holds: dict[str, dict] = {}
        self.labels: dict[str, str] = {}
        self.known = known
        self.witness = witness  # the check's raw values (the verifier's); told the student's calls made again

    def test(self, key: str, holds: bool, detail: dict | None = None) -> None:
        self.tested.append(key)
        if holds:
            self.holds[key] = detail or {}

    def plain(self) -> dict:
        out = {"tested": self.tested, "holds": self.holds, "labels": self.labels, "known": self.known}
        if self.witness is not None:
            out["raw"] = self.witness
        return out


@dataclass
class Part:
    """One part of a failed check's value, as a value family reads it."""

    subject: str  # "softmax#0": the function and the part of what it returns
    S: np.ndarray  # the student's value
    R: np.ndarray  # the right one
    inputs: Inputs
    tol: Tol
    evidence: Evidence

    def __post_init__(self) -> None:
        # a few entries spread over the value: a relation false on them is false, and costs little to rule out
        size = self.R.size
        self.few = np.unique(np.linspace(0, size - 1, min(size, SAMPLE)).astype(int)) if size else np.zeros(0, int)
        self.S_few = self.S.ravel()[self.few] if self.S.shape == self.R.shape else self.S.ravel()[:0]
        self.R_few = self.R.ravel()[self.few]

    def maybe(self, transform: Callable[[np.ndarray], np.ndarray]) -> bool:
        """Whether S may be ``transform(R)``: true on the few entries (always, for another shape)."""
        if self.S.shape != self.R.shape:
            return True
        with np.errstate(all="ignore"):
            return close(self.S_few, transform(self.R_few), self.tol)


SAMPLE = 12


@dataclass
class Whole:
    """A failed check as a family that calls functions reads it: every part, and the call."""

    subject: str  # "softmax#0", or "f#all" for every part of what f returns at once
    subjects: list[str]
    got: list[np.ndarray]
    expected: list[np.ndarray]
    call: Call
    inputs: Inputs
    tol: Tol
    evidence: Evidence
    targets: set[str] | None = None  # "family|argument" the search is asked about; None: everything
    spent: dict[str, list[int]] = field(default_factory=dict)  # family -> [reference calls, student calls]
    # "family|argument" an earlier failed check of the cell tried and ruled out ("family|prefix*": every
    # argument so beginning): none of them can be said any more, so none is tried again
    ruled: frozenset[str] = frozenset()
    failed: list[int] = field(default_factory=list)  # the parts that are wrong (all of them when empty)

    def __post_init__(self) -> None:
        if not self.failed:
            self.failed = list(range(len(self.got)))
        # the "family|prefix*" among ruled, as prefixes (wants() is asked hundreds of thousands of times)
        self._wildcards = tuple(r[:-1] for r in self.ruled if r.endswith("*"))
        self._targets = None if self.targets is None else tuple(self.targets)

    @property
    def partly(self) -> bool:
        """Whether some parts of what the function returned are right."""
        return len(self.failed) < len(self.got)

    def wants(self, family: Family, prefix: str = "") -> bool:
        """Whether the search is asked about ``family``'s relations whose argument begins with ``prefix``
        (and ``prefix`` is not one an earlier check ruled out)."""
        begins = f"{family.name}|{prefix}"
        if self.ruled and prefix and (begins in self.ruled or begins.startswith(self._wildcards)):
            return False
        if self._targets is None:
            return True
        return any(t.startswith(begins) for t in self._targets)

    def reference(self, family: Family, args: list[Any], keywords: dict | None = None) -> list[np.ndarray] | None:
        """The reference's checked part(s) for these positional arguments; None when it raises, or
        when ``family`` has spent its :attr:`Family.cost`."""
        spent = self.spent.setdefault(family.name, [0, 0])
        if spent[0] >= family.cost.reference:
            return None
        spent[0] += 1
        kw = self.call.keywords if keywords is None else keywords
        return parts(attempt(self.call.reference, args, kw), self.call, len(self.got))

    def left(self, family: Family) -> int:
        """The reference calls ``family`` may still make on this check."""
        return family.cost.reference - self.spent.get(family.name, [0, 0])[0]

    def student(self, family: Family, calls: list[list[Any]]) -> list[list[np.ndarray] | None]:
        """The student's checked part(s) for each list of positional arguments, in one request
        when the function can map (``student.f.map``); None for a call that failed. Calls beyond
        ``family``'s cost are not made (None)."""
        spent = self.spent.setdefault(family.name, [0, 0])
        allowed = max(0, min(len(calls), family.cost.student - spent[1]))
        spent[1] += allowed
        function, kw = self.call.student, self.call.keywords
        out: list[list[np.ndarray] | None] = [None] * len(calls)
        if function is None or not allowed:
            return out
        mapped = getattr(function, "map", None)
        if mapped is not None:
            from gradekit.graders.student import call as one_call

            try:
                results = mapped([one_call(*args, **kw) for args in calls[:allowed]])
            except Exception:  # noqa: BLE001 - a request that cannot be made says nothing
                return out
            for i in range(allowed):
                try:
                    out[i] = parts(results[i], self.call, len(self.got))
                except Exception:  # noqa: BLE001 - that call failed: it says nothing
                    out[i] = None
        else:
            for i in range(allowed):
                out[i] = parts(attempt(function, calls[i], kw), self.call, len(self.got))
        witness = self.evidence.witness
        if witness is not None:  # what the student's function gave, for the verifier
            witness.asked += [Asked(family.name, list(calls[i]), out[i]) for i in range(allowed)]
        return out


class Family:
    """One kind of relation between a wrong value and the right one (see the module's docstring)."""

    name = ""  # the family in a key, and in a stored Relation
    rank = 0  # the order families are tried and said in: lower first
    cost = Cost()  # the calls its search may make on one failed check
    beside = False  # said beside what the values are (where the values go wrong), known mistake or not
    legacy: dict[str, tuple[str, ...]] = {}  # relations stored under another family before: {name: arg kinds}

    # -- search ---------------------------------------------------------------------------------
    def search(self, part: Part) -> None:
        """Compare one part of the value with the right one (values only)."""

    def search_call(self, whole: Whole) -> None:
        """Call the functions again (only families with a :attr:`cost`)."""

    def search_step(self, evidence: Evidence, subject: str, step: int) -> None:
        """A check of step ``step`` of an output built step by step (``check.array(..., step=t)``)."""

    def test(self, case: Part | Whole, arg: str, holds: bool, detail: dict | None = None) -> None:
        """Record that the relation ``arg`` was tried on this check, and whether it holds."""
        case.evidence.test(f"{case.subject}|{self.name}|{arg}", holds, detail)

    def compare(self, whole: Whole, arg: str, out: list[np.ndarray], detail: dict | None = None) -> bool:
        """Record whether ``out`` (what a function gave on changed inputs) is the student's value: all
        of it, or -- when some parts of the student's are right -- the wrong parts (each part's own
        relation: a change that explains the wrong parts may spoil the right ones). True if it is."""
        holds, broadcast = matches(whole.got, out, whole.tol)
        detail = {**(detail or {}), **({"broadcast": True} if broadcast else {})} or None
        self.test(whole, arg, holds, detail)
        if holds or not whole.partly:
            return holds
        wrong, broadcast = matches([whole.got[i] for i in whole.failed], [out[i] for i in whole.failed], whole.tol)
        detail = {**(detail or {}), **({"broadcast": True} if broadcast else {})} or None
        for i in whole.failed:
            whole.evidence.test(f"{whole.subjects[i]}|{self.name}|{arg}", wrong, detail)
        return wrong

    def tried(self, case: Part | Whole, prefix: str) -> None:
        """Record that every relation whose argument begins with ``prefix`` was tried (and none of
        them holds unless :meth:`holds` says so)."""
        case.evidence.tested.append(f"{case.subject}|{self.name}|{prefix}*")

    def holds(
        self, case: Part | Whole, arg: str, detail: dict | None = None, subjects: list[str] | None = None
    ) -> None:
        """Record that the relation ``arg`` holds (of ``subjects``: by default the case's own)."""
        for subject in subjects or [case.subject]:
            case.evidence.holds[f"{subject}|{self.name}|{arg}"] = detail or {}

    def per_axis(self, part: Part, template: str, axis: int, holds: bool, detail: dict | None = None) -> None:
        """One relation along an axis, under each of the axis's names (``template`` has one {})."""
        for name in part.inputs.axis_names(axis, part.R.ndim):
            self.test(part, template.format(name), holds, detail)

    # -- weighing -------------------------------------------------------------------------------
    def level(self, arg: str) -> int:
        """How general the relation is within its family: the most specific that holds is said."""
        return 0

    def alias(self, arg: str, detail: dict) -> str:
        """Names of one relation share an alias (an axis named three ways): one is said."""
        return arg

    def prefer(self, arg: str, details: list[dict]) -> float:
        """Among relations of one level that hold on as many checks, which is said (lower first; the
        others are said beside it only if they are as preferred): by default, all alike."""
        return 0.0

    def specific(self, arg: str) -> bool:
        """Whether the relation explains a value: no search that calls a function follows it."""
        return self.level(arg) == 0

    # -- words ----------------------------------------------------------------------------------
    def sentence(self, arg: str, relation: Relation) -> Text | None:
        """The relation as a clause for the student ("your values are ..."), None if unknown."""
        return None

    def answers(self, family: str, arg: str) -> bool:
        """Whether this family says a relation stored as ``family`` (its own name, or a legacy one)."""
        if family == self.name:
            return True
        return arg.split(":", 1)[0] in self.legacy.get(family, ())


def axis_of(arg: str, position: int = 1) -> str:
    """The axis name inside an argument (``flip:=axis`` -> ``=axis``)."""
    parts_ = arg.split(":")
    return parts_[position] if len(parts_) > position else "last"
