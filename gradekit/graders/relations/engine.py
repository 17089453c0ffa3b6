"""The search of one failed check: every family, in order, within the families' costs.

When a check's value S is wrong, :func:`search` hands each part of it, with the
right value R, to every family's value search, in the families' order (their
``rank``) -- after a cell's first :data:`VALUE_SEARCHES` failed checks of that part, only
to the families whose relations held on all of them; then -- when the grader passed
the :class:`~gradekit.graders.check.Call` that produced S, no known mistake matched it,
no family explained it by its values alone, and this is one of the first :data:`DEEP_SEARCHES` failed checks of that
function in the cell -- to the families that call the reference or the student's
function again, in order, until one explains the value. One input proves little (a
table whose sizes are all 3 cannot tell ÷ n from ÷ d), so nothing is said here: the
cell's relations are weighed over all its failed checks (:mod:`gradekit.grading.relate`).
This package is imported only when a check has failed: a right answer costs nothing.

The evidence of one check is a plain dict::

    {"tested": [keys tried here; "...|c:*" stands for every argument so beginning],
     "holds": {key: {what the sentence shows: sizes, a factor, a step}},
     "labels": {subject: the name a student reads for it, or ""},
     "known": True when a known mistake matched the value here}

A key is ``"<subject>|<family>|<argument>"``: the subject names the value compared
(``"softmax#0"``: the function and the part of what it returns, ``"softmax#all"``
for every part at once), the argument what is specific (``"1/sqrt(d_k)"``,
``"flip:last"``).
"""

from __future__ import annotations

import contextlib
import gc
import importlib
import pkgutil
from collections.abc import Iterator, Sequence
from functools import cache
from typing import TYPE_CHECKING, Any

import numpy as np

from gradekit.graders.relations.family import Evidence, Family, Part, Whole
from gradekit.graders.relations.inputs import Inputs
from gradekit.graders.relations.values import close

if TYPE_CHECKING:  # pragma: no cover
    from gradekit.graders.check import Call
    from gradekit.graders.witness import Witness

__all__ = ["search", "families", "family", "young_only", "DEEP_SEARCHES", "VALUE_SEARCHES"]

# failed checks of one function, per cell of a submission, whose search calls the functions again: the
# relations need two checks that agree, and a wrong submission stays cheap
DEEP_SEARCHES = 3
# failed checks of one part, per cell, that every value family searches; the later ones are searched only
# by the families whose relations held on all of those (no other can be said any more)
VALUE_SEARCHES = 3


@cache
def families() -> tuple[Family, ...]:
    """Every family of this package (a module with a ``FAMILY``), in their order."""
    from gradekit.graders import relations

    found = []
    for info in pkgutil.iter_modules(relations.__path__):
        module = importlib.import_module(f"{relations.__name__}.{info.name}")
        instance = getattr(module, "FAMILY", None)
        if isinstance(instance, Family):
            found.append(instance)
    names = [f.name for f in found]
    if len(set(names)) != len(names) or len({f.rank for f in found}) != len(found):
        raise RuntimeError(f"two relation families share a name or a rank: {sorted(names)}")
    return tuple(sorted(found, key=lambda f: f.rank))


def family(name: str, arg: str = "") -> Family | None:
    """The family that says a relation stored as ``name`` (its own name, or a legacy one)."""
    found = _by_name().get(name)
    if found is not None:
        return found
    for candidate in families():
        if candidate.answers(name, arg):
            return candidate
    return None


@cache
def _by_name() -> dict[str, Family]:
    return {f.name: f for f in families()}


@contextlib.contextmanager
def young_only() -> Iterator[None]:
    """No full collection of the cyclic garbage collector inside: a search makes short-lived arrays,
    lists and dicts only, which the young generations and reference counting free; a collection of the
    whole process (which holds everything the grading loaded) waits until the search is over."""
    thresholds = gc.get_threshold()
    if not gc.isenabled() or len(thresholds) < 3:
        yield
        return
    gc.set_threshold(thresholds[0], thresholds[1], 1 << 30)
    try:
        yield
    finally:
        gc.set_threshold(*thresholds)


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
    witness: Witness | None = None,
) -> dict:
    """The evidence of one failed check (see the module's docstring); ``witness`` (the check's raw
    values) is told the subjects searched and every call of the student's function made again."""
    with young_only():
        return _search(got, expected, what, call, rtol, atol, step, known, witness)


def _search(got, expected, what, call, rtol, atol, step, known, witness) -> dict:
    evidence = Evidence(known, witness)
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
    if witness is not None:
        witness.subjects, witness.whole = list(subjects), whole
    if not single:
        evidence.labels[whole] = ", ".join(str(evidence.labels[s]) for s in subjects) if call and call.returns else ""
    inputs = Inputs(call)
    every = families()
    with np.errstate(all="ignore"):
        for subject, S, R in zip(subjects, got, expected, strict=False):
            if close(S, R, tol):
                continue  # this part is right
            part = Part(subject, S, R, inputs, tol, evidence)
            seen = _Seen(call, subject)
            wanted = seen.families()
            for fam in every:
                if wanted is None or fam.name in wanted:
                    fam.search(part)
            seen.remember(evidence, subject)
        if call is not None and call.reference is not None and not known and not _explained(evidence):
            deep = _Deep(call, whole)
            if deep.allowed:
                failed = [i for i, (S, R) in enumerate(zip(got, expected, strict=False)) if not close(S, R, tol)]
                case = Whole(
                    whole,
                    subjects,
                    list(got),
                    list(expected),
                    call,
                    inputs,
                    tol,
                    evidence,
                    deep.targets,
                    ruled=deep.ruled,
                    failed=failed,
                )
                if case.targets is None or case.targets:
                    for fam in every:
                        if fam.cost.calls:
                            fam.search_call(case)
                            if _explained(evidence, fam):
                                break  # said by what it gives: the later searches would cost and say less
                deep.remember(evidence)
        if step is not None:
            for fam in every:
                fam.search_step(evidence, whole, step)
    return evidence.plain()


def _explained(evidence: Evidence, by: Family | None = None) -> bool:
    """Whether a specific relation (of ``by``, or of any family) holds on this check."""
    for key in evidence.holds:
        _subject, name, arg = key.split("|", 2)
        if by is not None and name != by.name:
            continue
        fam = family(name, arg)
        if fam is not None and not fam.beside and fam.specific(arg):
            return True
    return False


def _name(call: Call | None) -> str:
    """The function a subject is named after (the student's, or else the reference's)."""
    if call is None:
        return ""
    return str(getattr(call.student or call.reference, "__name__", "") or "")


class _Seen:
    """What the first VALUE_SEARCHES failed checks of a part showed in this cell (``give_up.found``):
    the value families' relations that held on one of them and were ruled out on none."""

    def __init__(self, call: Call | None, subject: str):
        budget = getattr(call.student, "give_up", None) if call is not None else None
        self.searched = getattr(budget, "searched", None)
        self.found = getattr(budget, "found", None)
        self.key = f"{getattr(budget, 'cell', '')}:{subject}:values"
        self.done = 0
        if self.searched is not None and self.found is not None:
            self.done = self.searched.get(self.key, 0)
            self.searched[self.key] = self.done + 1

    def families(self) -> set[str] | None:
        """The families to search with on this check; None: every one."""
        if self.found is None or self.done < VALUE_SEARCHES:
            return None
        ruled = self.found.get(self.key + ":out", set())
        return {key.split("|", 1)[0] for key in self.found.get(self.key, set()) - ruled}

    def remember(self, evidence: Evidence, subject: str) -> None:
        if self.found is None or self.done >= VALUE_SEARCHES:
            return
        prefix = subject + "|"
        held = {key[len(prefix) :] for key in evidence.holds if key.startswith(prefix)}
        tested = {t[len(prefix) :] for t in evidence.tested if t.startswith(prefix)}
        wildcards = [t[:-1] for t in tested if t.endswith("*")]
        seen = self.found.setdefault(self.key, set())
        seen |= held
        out = self.found.setdefault(self.key + ":out", set())
        for key in seen - held:
            if key in tested or any(key.startswith(w) for w in wildcards):
                out.add(key)


class _Deep:
    """Whether this check may call the functions again, and about what.

    The first DEEP_SEARCHES failed checks of each function in a cell may (a student's function
    carries the submission's count, ``give_up.searched``). The last of them is asked only
    about the relations the earlier ones found (``give_up.found``): a relation is said only
    where it holds on every check where it was tried, so one the earlier searches tried and
    did not find cannot be said any more.
    """

    def __init__(self, call: Call, subject: str):
        budget = getattr(call.student, "give_up", None)
        self.searched = getattr(budget, "searched", None)
        self.found = getattr(budget, "found", None)
        self.key = f"{getattr(budget, 'cell', '')}:{subject}"
        self.targets: set[str] | None = None
        self.ruled: frozenset[str] = frozenset()
        self.allowed = True
        if self.searched is None:
            return
        done = self.searched.get(self.key, 0)
        self.searched[self.key] = done + 1
        self.allowed = done < DEEP_SEARCHES
        if self.found is not None and done == DEEP_SEARCHES - 1 and done > 0:
            self.targets = set(self.found.get(self.key, set()))
        if self.found is not None and done > 0:
            self.ruled = frozenset(self.found.get(self.key + ":out", set()))

    def remember(self, evidence: Evidence) -> None:
        """Keep what the calling families found on this check, for the last deep search, and what
        they ruled out, which no later search tries again."""
        if self.found is None:
            return
        kept = self.found.setdefault(self.key, set())
        held: set[str] = set()
        for key in evidence.holds:
            _subject, name, arg = key.split("|", 2)
            fam = family(name, arg)
            if fam is not None and fam.cost.calls:
                kept.add(f"{name}|{arg}")
                held.add(f"{name}|{arg}")
        ever = kept | held
        out = self.found.setdefault(self.key + ":out", set())
        for key in evidence.tested:
            _subject, name, arg = key.split("|", 2)
            fam = family(name, arg.rstrip("*"))
            if fam is None or not fam.cost.calls:
                continue
            short = f"{name}|{arg}"
            if short.endswith("*"):
                if not any(h.startswith(short[:-1]) for h in ever):
                    out.add(short)
            elif short not in ever:
                out.add(short)
        out -= ever  # held somewhere: tried again


def _label(call: Call | None, index: int, what: Any, single: bool) -> Any:
    if call is not None and call.returns is not None and index < len(call.returns):
        return call.returns[index]
    return "" if single else what
