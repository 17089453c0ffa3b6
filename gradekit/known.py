"""A course's known implementations: its classic mistakes and alternative correct answers.

They live next to the hidden graders, as the course's own quality check::

    autograder/<assignment>/mistakes/<name>.py   one classic mistake each
    autograder/<assignment>/correct/<name>.py    a right answer written differently

A file holds the code of one or more solution cells::

    # names: <a phrase the feedback of this mistake must contain>
    # breaks: <test grade_id> ...        (optional)
    # %% <solution-cell grade_id>
    <that cell's code>
    # %% <another solution-cell grade_id>
    ...

``names:`` is the first line of a mistake file; correct files have none.
``breaks:`` lists the test cells that may lose points, when that is not
simply the test cells following the sections' solution cells. Other comment
lines before the first section are free text.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .errors import CourseError

MISTAKES, CORRECT = "mistakes", "correct"


@dataclass
class Known:
    path: Path
    names: str | None                      # the phrase its feedback must contain (None: a correct answer)
    breaks: list[str] | None               # test grade_ids that may lose points; None: those after its sections
    sources: dict[str, str] = field(default_factory=dict)   # solution-cell grade_id -> code

    @property
    def name(self) -> str:
        return self.path.stem

    @property
    def correct(self) -> bool:
        return self.names is None


def parse(path: Path) -> Known:
    """Read one known implementation; a malformed file is a CourseError naming it."""
    lines = path.read_text().splitlines(keepends=True)
    names = breaks = None
    sections: dict[str, list[str]] = {}
    current = None
    for number, line in enumerate(lines, 1):
        if line.startswith("# %%"):
            current = line[4:].strip()
            if not current or current in sections:
                raise CourseError(f"{path}:{number}: each '# %% <grade_id>' section names a new cell")
            sections[current] = []
        elif current is not None:
            sections[current].append(line)
        elif line.startswith("# names:"):
            if number != 1:
                raise CourseError(f"{path}: '# names:' must be the first line")
            names = line.split(":", 1)[1].strip()
            if not names:
                raise CourseError(f"{path}: '# names:' needs the phrase the feedback must contain")
        elif line.startswith("# breaks:"):
            breaks = line.split(":", 1)[1].replace(",", " ").split()
    if not sections:
        raise CourseError(f"{path}: no '# %% <grade_id>' section")
    return Known(path, names, breaks, {k: "".join(v).rstrip() + "\n" for k, v in sections.items()})


def load(graders_dir: Path) -> list[Known]:
    """Every known implementation of an assignment: its mistakes, then its correct answers."""
    known = []
    for kind in (MISTAKES, CORRECT):
        for path in sorted((graders_dir / kind).glob("*.py")):
            item = parse(path)
            if (kind == MISTAKES) != (item.names is not None):
                raise CourseError(f"{path}: a file in {kind}/ " +
                                  ("starts with '# names: <phrase>'" if kind == MISTAKES else "has no '# names:' line"))
            known.append(item)
    return known
