"""The course's key terms, which let answer groups see who does what in a free-text answer.

A glossary is course data: ``autograder/<assignment>/glossary.toml``, next to the
graders (gradekit knows no course's terms). Each ``[[term]]`` maps the ways
students write one key term, in every language of the course, to one token::

    [[term]]
    token = "KEY"                      # upper-case letters, three or more
    role = "entity"                    # entity | concept | negation | plain (the default)
    match = 'keys?|键(?:向量)?'          # a regular expression, matched on the normalised answer

Terms are applied in order (write the longer forms first). An *entity* is
something that does a thing, a *concept* what it does: pairs of them in one
clause ("the values decide the weights": ``VAL~WGT``) are what tell two
answers with the same words but swapped roles apart. A *negation* marks the
pairs of its clause as negated. A *plain* term ("decides") only counts as a
word. Without a glossary, answers are grouped by their characters and words
alone.

A ``[cell.<grade_id>]`` table may list ``terms = ["QRY", ...]`` to restrict a
question to some of the terms (all of them by default).
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from gradekit.errors import CourseError

ROLES = ("entity", "concept", "negation", "plain")
FILE = "glossary.toml"


@dataclass(frozen=True)
class Term:
    token: str
    role: str
    pattern: re.Pattern


@dataclass
class Glossary:
    terms: list[Term] = field(default_factory=list)

    @property
    def entities(self) -> set[str]:
        return {w for t in self.terms if t.role == "entity" for w in t.token.split()}

    @property
    def concepts(self) -> set[str]:
        return {w for t in self.terms if t.role == "concept" for w in t.token.split()}

    @property
    def negations(self) -> set[str]:
        return {w for t in self.terms if t.role == "negation" for w in t.token.split()}

    def canonical(self, norm: str) -> str:
        """``norm`` with every key term replaced by its token."""
        for term in self.terms:
            norm = term.pattern.sub(f" {term.token} ", norm)
        return re.sub(r"\s+", " ", norm).strip()

    def __bool__(self) -> bool:
        return bool(self.terms)


def load(path: Path, cell: str | None = None) -> Glossary:
    """The glossary at ``path`` (an empty one when there is no file), for ``cell``'s question."""
    if not path.is_file():
        return Glossary()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise CourseError(f"{path}: not a glossary ({exc})") from None
    wanted = None
    if cell is not None:
        section = data.get("cell", {}).get(cell, {})
        wanted = set(section.get("terms", [])) or None
    terms = []
    for i, entry in enumerate(data.get("term", []), 1):
        token, role, match = entry.get("token"), entry.get("role", "plain"), entry.get("match")
        if not isinstance(token, str) or not re.fullmatch(r"[A-Z]{3,}( [A-Z]{3,})*", token):
            raise CourseError(f"{path}: term {i}: token must be upper-case letters (three or more), not {token!r}")
        if role not in ROLES:
            raise CourseError(f"{path}: term {i} ({token}): role must be one of {', '.join(ROLES)}, not {role!r}")
        if not isinstance(match, str) or not match:
            raise CourseError(f"{path}: term {i} ({token}): match must be a regular expression")
        if wanted is not None and not set(token.split()) & wanted:
            continue
        try:
            pattern = re.compile(r"(?<![a-z])(?:" + match + r")(?![a-z])")
        except re.error as exc:
            raise CourseError(f"{path}: term {i} ({token}): {exc}") from None
        terms.append(Term(token, role, pattern))
    return Glossary(terms)


def for_cell(graders_dir: Path, cell: str) -> Glossary:
    return load(graders_dir / FILE, cell)
