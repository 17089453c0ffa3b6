"""The class report's page: gradekit/pages/templates/report.html in the look of :mod:`gradekit.pages.look`."""

from __future__ import annotations

from markupsafe import Markup, escape

from gradekit.pages import look
from gradekit.pages.report import stats


def page(report: dict, plots: list, columns: dict[str, str]) -> str:
    scores = report["scores"]
    summaries = [("total", scores["total"], scores["possible"])]
    summaries += [(nb["notebook"], nb, nb["possible"]) for nb in scores["notebooks"]]

    def feedback(student: str, notebook: str) -> str:
        return f"../../feedback/{student}/{report['assignment']}/{notebook}.html"

    limits = {
        "hard": stats.TOO_HARD,
        "easy": stats.TOO_EASY,
        "weak": stats.WEAK_DISCRIMINATION,
        "min_n": stats.MIN_FOR_DISCRIMINATION,
    }
    notebooks = [nb["notebook"] for nb in scores["notebooks"]]
    return look.render(
        "report.html",
        r=report,
        c=report["class"],
        plots=plots,
        summaries=summaries,
        notebooks=notebooks,
        columns=columns,
        limits=limits,
        feedback=feedback,
        student_rows=student_rows(report["students"], notebooks, columns),
        links=_links,
        waiting_sentence=waiting_sentence(report["class"]),
    )


def waiting_sentence(counts: dict) -> str:
    """Whole sentences (no fragments: they will be translated): what still waits for a person."""
    waiting, blank = counts["answers_waiting"], counts["answers_not_given"]
    sentences = []
    if waiting == 1:
        sentences.append("1 answer waits for a manual grade.")
    elif waiting:
        sentences.append(f"{waiting} answers wait for a manual grade.")
    if blank == 1:
        sentences.append("1 free-text answer was left as handed out.")
    elif blank:
        sentences.append(f"{blank} free-text answers were left as handed out.")
    return " ".join(sentences)


def _links(students: list[dict]) -> Markup:
    return Markup(", ").join(Markup('<a class="fb" href="{}">{}</a>').format(s["href"], s["student"]) for s in students)


def student_rows(students: list[dict], notebooks: list[str], columns: dict[str, str]) -> list[Markup]:
    """The student table's rows, built here rather than in the template: for a class of
    1,000 these are 25,000 cells, and jinja2 takes seconds over them (Python: a tenth)."""
    points = look.points
    rows = []
    for s in students:
        name = escape(s["student"])
        first = next(iter(s["feedback"].values()), None)
        cells = [f'<td data-v="{name}">' + (f'<a href="{escape(first)}">{name}</a>' if first else str(name))]
        if s["status"] != "graded":
            cells.append(f'<br><span class="flag" title="{escape(s["reason"])}">{escape(s["status"])}</span>')
        if s["waiting"]:
            cells.append(f'<br><span class="wait">{s["waiting"]} to grade by hand</span>')
        cells.append("</td>")
        total = s["total"]
        cells.append(f'<td class="n" data-v="{total if total is not None else -1}">{points(total)}</td>')
        for nb in notebooks:
            value = s["notebooks"].get(nb)
            shown = f'<a href="{escape(s["feedback"][nb])}">{points(value)}</a>' if nb in s["feedback"] else "–"
            cells.append(f'<td class="n" data-v="{value if value is not None else -1}">{shown}</td>')
        for key in columns:
            value = s["exercises"].get(key)
            cells.append(f'<td class="n" data-v="{value if value is not None else -1}">{points(value)}</td>')
        late = s["late_seconds"]
        cells.append(f'<td class="n" data-v="{late}">{f"{late / 3600:.1f}" if late else ""}</td>')
        mistakes = s["mistakes"]
        if len(mistakes) == 1:
            shown = str(escape(mistakes[0]))
        elif mistakes:
            items = "".join(f"<li>{escape(m)}</li>" for m in mistakes)
            shown = f"<details><summary>{len(mistakes)} named</summary><ul>{items}</ul></details>"
        else:
            shown = ""
        cells.append(f'<td data-v="{len(mistakes)}" class="mistakes">{shown}</td>')
        rows.append(Markup(f'<tr id="student-{name}">{"".join(cells)}</tr>'))
    return rows
