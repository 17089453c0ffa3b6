"""A grading that goes on past a failed comparison: the failed comparisons of a test kept, not raised.

A grader's test stops at its first failed comparison, as pytest's do. To say more than that first
difference, the harness runs a test that stopped again inside :func:`keeping`
(gradekit.grading.harness.cases): there gradekit.graders.check keeps each failed comparison (once
per input: a witness's fingerprint) instead of raising it, and -- when asked -- the raw values of
the passing comparisons that had known mistakes. A grader has no need of it; ``check.keeping``
names it too.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator

from gradekit.errors import Mismatch
from gradekit.graders.witness import Witness


class Kept:
    """What a test run inside :func:`keeping` compared: its failed comparisons (``failed``, each a
    :class:`Mismatch`), and -- when asked -- the raw values of its passing comparisons that had known
    mistakes (``passed``: a mistake whose value there is not the right one is not the student's)."""

    def __init__(self, seen: set[str], passes: bool):
        self.failed: list[Mismatch] = []
        self.passed: list[Witness] = []
        self.seen, self.passes = seen, passes


_KEEPING: contextvars.ContextVar[Kept | None] = contextvars.ContextVar("gradekit_keeping", default=None)


@contextlib.contextmanager
def keeping(seen: set[str] | None = None, passes: bool = False) -> Iterator[Kept]:
    """Inside, a failed comparison of values (gradekit.graders.check's ``array``, ``arrays``, ``scalar``)
    is kept, not raised: the grader's test goes on to its further cases -- but for an input in ``seen`` (a witness's
    fingerprint), already compared: it is neither searched nor kept. With ``passes``, a passing
    comparison's known mistakes are worked out and kept too. The harness runs a test that stopped at
    its first failure again so, and a failed cell's passing tests (gradekit.grading.harness.cases); a
    grader has no need of it."""
    kept = Kept(set(seen or ()), passes)
    token = _KEEPING.set(kept)
    try:
        yield kept
    finally:
        _KEEPING.reset(token)


def seen(witness: Witness) -> bool:
    """Whether, inside :func:`keeping`, this input was compared already (nothing more to learn)."""
    kept = _KEEPING.get()
    return kept is not None and witness.fingerprint() in kept.seen


def keeping_passes() -> bool:
    kept = _KEEPING.get()
    return kept is not None and kept.passes


def passed(witness: Witness) -> None:
    kept = _KEEPING.get()
    if kept is not None:
        kept.passed.append(witness)


def fail(mismatch: Mismatch) -> None:
    """Raise the mismatch -- or keep it, inside :func:`keeping` (once per input)."""
    kept = _KEEPING.get()
    if kept is None:
        raise mismatch
    witness = mismatch.witness
    if witness is not None and witness.fingerprint() in kept.seen:
        return
    if witness is not None:
        kept.seen.add(witness.fingerprint())
    kept.failed.append(mismatch)
