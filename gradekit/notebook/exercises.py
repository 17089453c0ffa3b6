"""Exercise titles: which heading of a notebook each graded cell sits under.

A graded cell belongs to the exercise whose markdown heading comes last
before it ("## 3. Standardize: from raw values to z-scores"). The feedback pages title
their sections with it, the class report groups cells into exercises by it.
Nothing here knows a course: only markdown headings and nbgrader's metadata.

    Heading.title   the short title: the heading up to its first ":" or dash ("3. Standardize")
    Heading.full    the whole heading, markdown and TeX delimiters removed
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.+?)\s*#*\s*$", re.M)
_JINJA = re.compile(r"\{\{.*?\}\}|\{%.*?%\}|\{#.*?#\}", re.S)
# a few TeX commands that headings use for symbols; everything else is shown as written
_TEX = {
    r"\sqrt": "√",
    r"\times": "×",
    r"\cdot": "·",
    r"\le": "≤",
    r"\ge": "≥",
    r"\to": "→",
    r"\approx": "≈",
    r"\ne": "≠",
    r"\infty": "∞",
}


@dataclass(frozen=True)
class Heading:
    title: str
    full: str


def plain(text: str) -> str:
    """A heading's text without markdown emphasis, code ticks, TeX delimiters or template tags."""
    text = _JINJA.sub("…", text)
    for command, symbol in _TEX.items():
        text = re.sub(re.escape(command) + r"(?![A-Za-z])", symbol, text)
    text = text.replace("$", "").replace("`", "")
    text = re.sub(r"\*\*|__|(?<!\w)[*_](?=\w)|(?<=\w)[*_](?!\w)", "", text)
    text = re.sub(r"[{}]", "", text)
    return " ".join(text.split())


def short(full: str) -> str:
    """The title before the first ": " or " — " / " - " (in Chinese "：" or "——"):
    "3. Standardize: from ..." -> "3. Standardize"."""
    head = re.split(r":\s| [—–-] |：|——", full, maxsplit=1)[0].strip()  # and Chinese "：", "——"
    return head or full


def headings(nb) -> dict[str, Heading]:
    """The heading each graded cell of ``nb`` (a notebook or its JSON dict) sits under, by grade_id."""
    out: dict[str, Heading] = {}
    current: Heading | None = None
    for cell in nb.get("cells", []) if isinstance(nb, dict) else nb.cells:
        source = cell.get("source", "")
        if isinstance(source, list):
            source = "".join(source)
        meta = cell.get("metadata", {}).get("nbgrader", {})
        is_graded = isinstance(meta, dict) and meta.get("grade") and meta.get("grade_id")
        if cell.get("cell_type") == "markdown" and not is_graded:
            found = _HEADING.findall(source)
            if found:
                full = plain(found[-1][1])
                current = Heading(short(full), full) if full else current
        if is_graded and current is not None:
            out[str(meta["grade_id"])] = current
    return out


def title(nb) -> str | None:
    """The notebook's own title: its first top-level heading ("# ..."), plain; None if it has none."""
    for cell in nb.get("cells", []) if isinstance(nb, dict) else nb.cells:
        if cell.get("cell_type") != "markdown":
            continue
        source = cell.get("source", "")
        source = "".join(source) if isinstance(source, list) else source
        for level, text in _HEADING.findall(source):
            if level == "#":
                return plain(text) or None
    return None


def group(grade_ids, titles: dict[str, Heading]) -> list[tuple[Heading, list[str]]]:
    """Consecutive grade ids under one heading, in order: the exercises of a notebook.

    A cell with no heading before it is an exercise of its own, titled by its grade id.
    """
    out: list[tuple[Heading, list[str]]] = []
    for gid in grade_ids:
        heading = titles.get(gid) or Heading(gid, gid)
        if out and out[-1][0] == heading:
            out[-1][1].append(gid)
        else:
            out.append((heading, [gid]))
    return out
