"""The warnings the graders' code raises while it grades, each once, at the course's own line.

A grader (or the reference, or a helper) that warns -- numpy's ``RuntimeWarning: Degrees of
freedom <= 0 for slice`` on an input where a mistake has no value -- would print to the grading
process's stderr, with the path of wherever that process found the course (``gradekit check``'s
temporary copy), once per process and in the middle of a progress bar. Instead, while the graders
run, :class:`Warned` notes each warning as one line an author can act on::

    autograder/week1/test_standardize.py:19: RuntimeWarning: Degrees of freedom <= 0 for slice

its place relative to the course directory. A warning raised inside a library (numpy, gradekit) is
placed at the innermost line of the course's code that led to it, and says where it was raised:
``autograder/week1/test_q1.py:12 (raised in numpy/_core/_methods.py:200): ...``. The process's
warning filters still decide what is shown (a DeprecationWarning stays silent, as Python's
defaults have it); each place is noted once per run. ``gradekit check`` lists them, one row each
(:mod:`gradekit.qa.run`).
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType

from gradekit.untrusted import clip

MESSAGE = 200  # characters of a warning's message kept


class Warned:
    """The warnings of one run of the graders of a course (see the module's docstring)."""

    def __init__(self, root: Path, places: list[Path]):
        """``places``: the folders of the course's code (the graders', the reference's), under ``root``."""
        self.root = Path(root).resolve()
        self.places = [Path(p).resolve() for p in places]
        self.lines: list[str] = []  # the last run's, each once, in the order raised

    @contextmanager
    def watching(self) -> Iterator[None]:
        """Note the warnings raised in this block (the lines of an earlier block are dropped)."""
        self.lines = []
        with warnings.catch_warnings():
            warnings.showwarning = self._note
            yield

    def _note(self, message, category, filename, lineno, file=None, line=None) -> None:
        place = self._course(filename)
        where = f"{place}:{lineno}"
        if place is None:  # raised in a library: at the course's innermost line that led there
            inner = self._innermost()
            where = f"{inner} (raised in {_short(filename)}:{lineno})" if inner else f"{_short(filename)}:{lineno}"
        text = f"{where}: {category.__name__}: {clip(str(message), MESSAGE)}"
        if text not in self.lines:
            self.lines.append(text)

    def _course(self, filename: str) -> str | None:
        """``filename`` relative to the course directory when it is the course's code, else None."""
        try:
            path = Path(filename).resolve()
        except (OSError, RuntimeError):
            return None
        if not any(path.is_relative_to(place) for place in self.places):
            return None
        return str(path.relative_to(self.root))

    def _innermost(self) -> str | None:
        frame: FrameType | None = sys._getframe(1)
        while frame is not None:
            place = self._course(frame.f_code.co_filename)
            if place is not None:
                return f"{place}:{frame.f_lineno}"
            frame = frame.f_back
        return None


GRADEKIT = Path(__file__).resolve().parents[2]  # gradekit/, wherever it is installed


def _short(filename: str) -> str:
    """A library's file from its package down (``numpy/_core/_methods.py``), else as it is."""
    path = Path(filename)
    if path.is_relative_to(GRADEKIT):
        return str(Path("gradekit") / path.relative_to(GRADEKIT))
    for marker in ("site-packages", "dist-packages"):
        if marker in path.parts:
            return "/".join(path.parts[path.parts.index(marker) + 1 :])
    return filename
