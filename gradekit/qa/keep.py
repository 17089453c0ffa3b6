"""``gradekit check --keep DIR``: the simulated class kept for the author to read.

Every grading of the check but the classmates' answers (the diversity rows' copies) is
kept, by what was handed in and by whom::

    DIR/index.html                               one row per grading: score, mistakes named, its pages
    DIR/answer-key/qa001/submitted/*.ipynb       what the simulated student handed in
                         graded/*.ipynb          the graded notebooks, and results.json
                         feedback/*.html         the feedback pages the student would read
    DIR/untouched-release/qa001/...
    DIR/mistakes/softmax_wrong_axis/qa001/...    one QA file graded alone (the first variant)
    DIR/packed/1/qa002/...                       QA files of different exercises, handed in together
                                                 (index.html says which)
    DIR/correct/softmax_loops/qa003/...

A second grading of the same submission (the determinism check, in another language
when there is one) is kept beside the first as ``qa001-again``.
"""

from __future__ import annotations

import html
import shutil
from pathlib import Path

from gradekit.course import Course, keep_out_of_git
from gradekit.errors import UsageError


def require_empty(directory: Path) -> None:
    """Refuse (one line) a --keep folder that holds anything: nothing of the author's is overwritten."""
    if directory.exists() and (not directory.is_dir() or any(directory.iterdir())):
        raise UsageError(f"--keep {directory}: not an empty folder; give a new one (nothing is overwritten)")


def keep_class(qa: Course, tasks: list, outcomes: dict, directory: Path, skip: str) -> int:
    """Copy each task's submission, graded notebooks and feedback pages (written now, as the
    student would read them) into ``directory``; write its index.html. ``skip``: the label of the
    tasks left out. Returns how many gradings were kept."""
    from gradekit.grading.told import TOLD
    from gradekit.pages.feedback import write_feedback

    directory.mkdir(parents=True, exist_ok=True)
    keep_out_of_git(directory, "gradekit check --keep")
    rows = []
    seen: set[Path] = set()
    packs: dict[str, int] = {}
    for index, task in enumerate(tasks):
        if task.label == skip or index not in outcomes:
            continue
        outcome = outcomes[index]
        if "+" in task.label:  # a packed submission: by its group's number (its labels may be many)
            place = Path("packed") / str(packs.setdefault(task.label, len(packs) + 1))
        else:
            place = _place(task.label)
        folder = directory / place / task.student
        while folder in seen:
            folder = folder.with_name(folder.name + "-again")
        seen.add(folder)
        shutil.copytree(task.folder, folder / "submitted")
        graded = Path(outcome.job.out_dir)
        if graded.is_dir():
            shutil.copytree(graded, folder / "graded")
        pages: list[Path] = []
        if not outcome.result.error:
            try:
                pages = write_feedback(qa, outcome.result, folder / "feedback", told=TOLD)
            except Exception:  # noqa: BLE001 - a page that cannot be written: the rest are kept
                pages = []
        rows.append((task, outcome.result, folder, pages))
    (directory / "index.html").write_text(_index(rows, directory), encoding="utf-8")
    return len(rows)


def _place(label: str) -> Path:
    """The folder of a task's label: answer-key, untouched-release, mistakes/x, correct/x."""
    if "/" in label:
        kind, name = label.split("/", 1)
        return Path(kind) / name.removesuffix(".py")
    return Path(label.replace(" ", "-"))


def _index(rows: list, directory: Path) -> str:
    e = html.escape
    lines = [
        "<!doctype html><meta charset='utf-8'><title>gradekit check: the simulated class</title>",
        "<style>body{font:14px system-ui,sans-serif;margin:2em}td,th{padding:.2em .6em;text-align:left;"
        "vertical-align:top}tr:nth-child(even){background:#f4f4f4}</style>",
        "<h1>The simulated class</h1>",
        "<p>What each simulated student handed in, how it was graded, and the pages they would read.</p>",
        "<table><tr><th>handed in</th><th>student</th><th>language</th><th>score</th><th>named</th><th>pages</th></tr>",
    ]
    for task, result, folder, pages in rows:
        named = "; ".join(f"{c.grade_id}: {c.diagnosis[0]}" for nb in result.notebooks for c in nb.cells if c.diagnosis)
        score = e(result.error) if result.error else f"{result.score:g} / {result.possible:g}"
        links = " ".join(f"<a href='{e(str(p.relative_to(directory)))}'>{e(p.stem)}</a>" for p in pages)
        label, language = e(task.label.replace("+", " + ")), e(result.language or "en")
        lines.append(
            f"<tr><td>{label}</td><td>{e(folder.name)}</td><td>{language}</td>"
            f"<td>{score}</td><td>{e(named)}</td><td>{links}</td></tr>"
        )
    lines.append("</table>")
    return "\n".join(lines) + "\n"
