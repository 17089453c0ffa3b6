"""An assignment's QA set: known wrong answers and right answers written differently.

It lives next to the hidden graders, one file per answer::

    autograder/<assignment>/mistakes/<name>.py    a classic mistake
    autograder/<assignment>/correct/<name>.py     a right answer written another way

A file holds the code of one or more solution cells, each under a
``# %% <solution-cell grade_id>`` line. A mistake's first line says what its
feedback must contain; an optional ``# breaks:`` line lists the test cells that
must lose points (by default: the test cells of the exercises it changes)::

    # names: divided by the variance
    # breaks: test_standardize
    # %% standardize
    def standardize(x):
        ...

Lines before the first section are comments. A right answer has no
``# names:`` line. The QA set is used by the course's tests and by
``gradekit check``; this module only reads it.
"""

from __future__ import annotations

from pathlib import Path

from gradekit.errors import TemplateError

KINDS = ("mistakes", "correct")
NAMES, BREAKS, SECTION = "# names:", "# breaks:", "# %%"


def parse(path: Path) -> tuple[str | None, list[str], dict[str, str]]:
    """``(names, breaks, sections)`` of one QA file: the phrase its feedback must contain
    (None for a right answer), the test cells it must break ([] when not given), and the
    code of each solution cell by grade_id."""
    path = Path(path)
    try:
        lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    except (OSError, UnicodeDecodeError) as exc:
        raise TemplateError(f"{path}: cannot be read ({exc})") from None
    names, breaks = None, []
    sections: dict[str, list[str]] = {}
    current = None
    for number, line in enumerate(lines, 1):
        if line.startswith(SECTION):
            current = line[len(SECTION) :].strip()
            if not current:
                raise TemplateError(f"{path}:{number}: '# %%' needs the solution cell's grade_id")
            if current in sections:
                raise TemplateError(f"{path}:{number}: a second section for {current}")
            sections[current] = []
        elif current is not None:
            sections[current].append(line)
        elif line.startswith(NAMES):
            if number != 1:
                raise TemplateError(f"{path}:{number}: '# names:' must be the first line")
            names = line[len(NAMES) :].strip()
            if not names:
                raise TemplateError(f"{path}:1: '# names:' needs the phrase the feedback must contain")
        elif line.startswith(BREAKS):
            breaks = line[len(BREAKS) :].replace(",", " ").split()
    if not sections:
        raise TemplateError(f"{path}: no '# %% <grade_id>' section")
    return names, breaks, {gid: "".join(code).rstrip() + "\n" for gid, code in sections.items()}


def files(graders_dir: Path, kind: str) -> list[Path]:
    """The QA files of one kind ("mistakes" or "correct"), in name order."""
    if kind not in KINDS:
        raise ValueError(kind)
    return sorted((Path(graders_dir) / kind).glob("*.py"))
