"""Feedback pages: one HTML file per student and notebook.

For each graded cell: passed or failed, the points, and for every failed
hidden check what was checked and how the result differed -- the graders'
messages, which never include the expected arrays. Problems running the
student's own cells and any restored tampering are listed too.
"""

from __future__ import annotations

from pathlib import Path

import jinja2
import nbformat

from .course import Course
from .files import atomic_write
from .results import SubmissionResult
from .cells import is_graded, is_solution

_PAGE = jinja2.Environment(autoescape=True).from_string("""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>Feedback: {{ r.assignment }} / {{ nb.name }} / {{ r.student }}</title>
<style>
body{font-family:system-ui,sans-serif;max-width:56rem;margin:2rem auto;padding:0 1rem;color:#222}
.score{font-size:1.4rem} .pass{color:#1a7f37} .fail{color:#c62828} .manual{color:#8a6d00}
section{border:1px solid #ddd;border-radius:6px;padding:.6rem 1rem;margin:1rem 0}
pre{background:#f6f8fa;padding:.6rem;overflow-x:auto;font-size:.85rem}
li{margin:.2rem 0} .diagnosis{background:#fdecea;padding:.4rem .8rem;border-left:4px solid #c62828} .note{background:#fff8e1;padding:.5rem 1rem;border-left:4px solid #f0b400}
</style></head><body>
<h1>{{ r.assignment }} &mdash; {{ nb.name }}</h1>
<p>Student: <b>{{ r.student }}</b>{% if r.timestamp %} &middot; submitted {{ r.timestamp }}{% endif %}</p>
<p class="score">Score: <b>{{ "%g"|format(nb.final) }} / {{ "%g"|format(nb.possible) }}</b>
{% if manual %}<span class="manual">(plus {{ manual }} answer(s) waiting for a manual grade)</span>{% endif %}</p>
{% if nb.late_penalty %}<p class="note">Submitted late: a penalty of {{ "%g"|format(nb.late_penalty) }} point(s)
was taken off {{ "%g"|format(nb.score) }}.</p>{% endif %}
{% if r.error or nb.error %}<p class="note"><b>Not graded:</b> {{ nb.error or r.error }}</p>{% endif %}
{% for note in notes %}<p class="note">{{ note }}</p>{% endfor %}
{% if failed_runs %}<section><h2>Problems running your cells</h2><ul>
{% for run in failed_runs %}<li>cell <code>{{ run.cell_id }}</code>: {{ run.error }}</li>{% endfor %}
</ul></section>{% endif %}
{% for cell in nb.cells %}
<section id="{{ cell.grade_id }}">
<h2>{{ cell.grade_id }} &mdash;
{% if cell.manual and cell.score is none %}<span class="manual">waiting for a manual grade ({{ "%g"|format(cell.points) }} points)</span>
{% elif cell.by_hand %}<span class="manual">graded by your instructor, {{ "%g"|format(cell.score) }} / {{ "%g"|format(cell.points) }}</span>
{% elif cell.passed %}<span class="pass">passed, {{ "%g"|format(cell.score) }} / {{ "%g"|format(cell.points) }}</span>
{% else %}<span class="fail">{{ "%g"|format(cell.score or 0) }} / {{ "%g"|format(cell.points) }}</span>{% endif %}</h2>
{% for note in cell.notes() %}<p class="diagnosis">{{ note }}</p>{% endfor %}
{% if code.get(cell.grade_id) %}<details><summary>your code</summary><pre>{{ code[cell.grade_id] }}</pre></details>{% endif %}
{% if cell.checks %}<ul>{% for check in cell.checks %}
<li class="{{ 'pass' if check.passed else 'fail' }}">{{ '✔' if check.passed else '✘' }} {{ check.name }}
{% if not check.passed and check.message %}<br><span>{{ check.message }}</span>{% endif %}</li>
{% endfor %}</ul>{% endif %}
</section>
{% endfor %}
</body></html>
""")


def write_feedback(course: Course, result: SubmissionResult) -> list[Path]:
    """One page per notebook; pass the result through :func:`gradebook.final_marks` first for
    the instructor's manual grades and the late penalty."""
    paths = []
    out_dir = course.feedback_dir(result.student, result.assignment)
    graded_dir = course.autograded_dir(result.student, result.assignment)
    for nb in result.notebooks:
        code, notes = _solutions(graded_dir / f"{nb.name}.ipynb")
        html = _PAGE.render(r=result, nb=nb, notes=notes, code=code,
                            failed_runs=[run for run in nb.runs if not run.ok],
                            manual=sum(1 for c in nb.cells if c.manual and c.score is None))
        path = out_dir / f"{nb.name}.html"
        atomic_write(path, html)
        paths.append(path)
    return paths


def _solutions(path: Path) -> tuple[dict[str, str], list[str]]:
    """The student's solution code by the grade_id of the test cell that follows it."""
    try:
        nb = nbformat.read(str(path), as_version=4)
    except Exception:
        return {}, []
    code, last = {}, None
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        if is_solution(cell) and not is_graded(cell):
            last = cell.source
        elif is_solution(cell):
            code[meta["grade_id"]] = cell.source
        elif is_graded(cell) and last is not None:
            code[meta["grade_id"]] = last
    return code, list(nb.metadata.get("gradekit", {}).get("notes", []))
