"""What one failed check saw, kept for the verifier: the raw values every claim about it is checked on.

A failed comparison (:mod:`gradekit.graders.check`) keeps, in memory and only until its cell is
weighed, the student's values and the right ones, the call that produced them (the reference,
the inputs), its tolerance, the values of the known mistakes it was compared with, and every call
of the student's function the relation search made again (their arguments and what came back).
Nothing here decides anything: :mod:`gradekit.grading.verify` recomputes each sentence the
engine would say from these values, by code of its own, before the sentence is said. A witness
never reaches a stored result (``Check.evidence`` is dropped once the cell is weighed).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    from gradekit.graders.check import Call


@dataclass
class Asked:
    """One call of the student's function made again by a search (in the sandbox): why, with which
    positional arguments, and the parts it gave (None: it failed)."""

    family: str
    args: list[Any]
    parts: list[np.ndarray] | None


@dataclass
class Witness:
    """The raw values of one failed check (see the module's docstring)."""

    got: list[np.ndarray]  # the student's parts, as float arrays
    expected: list[np.ndarray]  # the right ones
    tol: tuple[float, float]  # (rtol, atol) as the check compared
    subjects: list[str] = field(default_factory=list)  # each part's subject ("softmax#0"); [] when nothing searched
    whole: str = ""  # the subject of every part at once ("f#all"; a single part's own)
    call: Call | None = None
    step: int | None = None
    # the known mistakes' values here: name -> the parts it gives, None (unknown here) or "fails" (it would raise)
    mistakes: dict[str, list[np.ndarray] | str | None] = field(default_factory=dict)
    asked: list[Asked] = field(default_factory=list)
    right: bool = True  # the expected values are the right answer (False: a law, the student's own values)

    def fingerprint(self) -> str:
        """What tells two inputs apart: the right values (two checks with the same are one input)."""
        digest = hashlib.sha1(usedforsecurity=False)
        for e in self.expected:
            digest.update(str(e.shape).encode())
            with np.errstate(all="ignore"):
                digest.update(np.round(e, 6).tobytes())
        return digest.hexdigest()

    def part(self, subject: str) -> list[int] | None:
        """The indices of the parts a subject names (all of them for the whole); None: not this check's."""
        if subject == self.whole and len(self.got) > 1:
            return list(range(len(self.got)))
        if subject in self.subjects:
            return [self.subjects.index(subject)]
        return None
