"""The rows of ``gradekit check`` on what the feedback says: the mistakes named, and translated.

The QA set's mistakes are counted as named (their ``# names:`` phrase said, or a diagnosis),
only related (the feedback says what the values show, or more than that they differ) or bare
(it says only that values differ: the author should add the mistake to the grader). When the
assignment has translations, every text a student of another language reads must have its
translation.
"""

from __future__ import annotations

from collections import Counter

from gradekit.qa.rows import CheckReport, Row
from gradekit.qa.tasks import Task
from gradekit.results import SubmissionResult
from gradekit.runners.base import Outcome

STRENGTH = {"named": 3, "related": 2, "bare": 1, "missed": 0}


def feedback_class(qa_file, cells: dict) -> str:
    """What a mistake's feedback says on the cells it should break: ``named`` (its phrase, or a
    diagnosis), ``related`` (what its values show, or more than that they differ: a shape, a
    probe, an exception), ``bare`` (only that values differ) or ``missed`` (no points lost)."""
    lost = [cells[g] for g in qa_file.breaks if g in cells and (cells[g].score or 0) < cells[g].points - 1e-9]
    if not lost:
        return "missed"
    phrase = (qa_file.names or "").lower()
    said = " ".join(k.message for c in lost for k in c.checks if not k.passed).lower()
    if any(c.diagnosis for c in lost) or (phrase and phrase in said):
        return "named"
    if any(c.relations for c in lost) or any(
        not k.passed and (not k.differs or k.observations) for c in lost for k in c.checks
    ):
        return "related"
    return "bare"


def feedback_rows(tasks: list[Task], outcomes: dict[int, Outcome], files: list, report: CheckReport) -> None:
    """The QA set's mistakes by what their feedback says (each its most frequent verdict); a bare one
    gets a row of its own: the author should give the grader its values."""
    mistakes = [f for f in files if f.kind == "mistakes"]
    if not mistakes:
        return
    verdicts: dict[str, Counter] = {f.label: Counter() for f in mistakes}
    for index, task in enumerate(tasks):
        result = outcomes[index].result
        if result.error:
            continue
        cells = {c.grade_id: c for nb in result.notebooks for c in nb.cells}
        for qa_file in task.files:
            if qa_file.kind == "mistakes":
                verdicts[qa_file.label][feedback_class(qa_file, cells)] += 1
    kinds = {label: max(seen, key=lambda k: (seen[k], STRENGTH[k])) for label, seen in verdicts.items() if seen}
    counts = Counter(kinds.values())
    related = [label for label, kind in kinds.items() if kind == "related"]
    report.rows.append(
        Row(
            "the QA set's mistakes: named / only related / bare",
            None,
            f"{counts['named']} named, {counts['related']} only related, {counts['bare']} bare"
            + (f", {counts['missed']} not caught" if counts["missed"] else "")
            + f" of {len(kinds)}"
            + (f" (only related: {', '.join(related[:5])}{' ...' if len(related) > 5 else ''})" if related else ""),
        )
    )
    for label, kind in kinds.items():
        if kind == "bare":
            report.rows.append(
                Row(
                    f"{label}: bare feedback",
                    None,
                    "its feedback says only that values differ: add its values to the grader's mistakes= "
                    "so that it is named (the docs' guide: How a mistake gets named)",
                )
            )


def translation_rows(
    tasks: list[Task], outcomes: dict[int, Outcome], spoken: dict[str, str], report: CheckReport
) -> None:
    """Every text a student of another language reads (check names, failed checks' messages, named
    mistakes, reasons) has its translation in the result."""
    for language in sorted(set(spoken.values()) - {"en"}):
        missing: dict[str, str] = {}
        graded = 0
        for index, task in enumerate(tasks):
            result = outcomes[index].result
            if result.language != language:
                continue
            graded += 1
            for text in shown_texts(result):
                if text not in result.translations and any(ch.isalpha() for ch in text):
                    missing.setdefault(text, task.label)
        report.add(
            f"{language}: every text the student reads is translated",
            [f"{text[:90]!r} ({label})" for text, label in list(missing.items())[:20]],
            f"{graded} grading(s) in {language}",
        )


def shown_texts(result: SubmissionResult) -> list[str]:
    """The English texts of a result that its feedback shows the student."""
    texts = [t for t in (result.error, *result.notes) if t]
    for nb in result.notebooks:
        texts += [t for t in (nb.error,) if t]
        for cell in nb.cells:
            for check in cell.checks:
                texts.append(check.name)
                if not check.passed and check.message:
                    texts.append(check.message)
            texts += [mistake for finding in cell.findings for mistake in finding.mistakes]
    return texts
