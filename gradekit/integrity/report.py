"""What ``gradekit integrity`` shows: a terminal table, ``integrity.json`` and ``integrity.html``.

Everything a student wrote (code, answers, file names in error messages) goes
through :mod:`gradekit.untrusted` (control characters and bidi overrides
replaced) and is escaped: rich markup with :func:`~gradekit.untrusted.for_rich`,
HTML with :func:`html.escape`. The HTML page is one self-contained file (inline CSS, no
scripts, nothing fetched).
"""

from __future__ import annotations

import html
import json
from pathlib import Path

from gradekit.atomic import atomic_write
from gradekit.untrusted import for_rich, shown

_CSS = """
body{font:15px/1.45 system-ui,sans-serif;margin:2em auto;max-width:1400px;padding:0 1em;color:#222}
h1{font-size:1.5em}h2{font-size:1.2em;margin-top:2em;border-top:1px solid #ccc;padding-top:1em}
table{border-collapse:collapse}
td,th{padding:.25em .6em;border-bottom:1px solid #e4e4e4;text-align:left;vertical-align:top}
.wide{overflow-x:auto}
.score{font-variant-numeric:tabular-nums;text-align:right}
.side{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr);gap:1em;margin:.6em 0 1.4em}
@media (max-width:700px){.side{grid-template-columns:minmax(0,1fr)}}
.side h4{margin:.2em 0;font-size:.95em;font-weight:600}
pre{background:#f7f7f7;border:1px solid #e2e2e2;padding:.6em;overflow-x:auto;font-size:13px;line-height:1.35;margin:0}
mark{background:#ffd966;padding:0}
.note{color:#555;font-size:.92em}
"""


def describe(evidence: dict) -> str:
    """One plain sentence for a piece of evidence (instructor-facing)."""
    kind = evidence["kind"]
    if kind == "variant cells":
        return "{by}'s notebook has {count} read-only cell(s) of {source}'s own variant".format(
            by=evidence["by"], count=evidence["count"], source=evidence["from"]
        )
    if kind == "answers":
        return "{count} of {by}'s answers are {source}'s right answers, not {by}'s own".format(
            by=evidence["by"], count=evidence["count"], source=evidence["from"]
        )
    if kind == "personal numbers":
        return "{count} of {source}'s own numbers appear in {by}'s code or outputs".format(
            by=evidence["by"], count=evidence["count"], source=evidence["from"]
        )
    best = evidence["cells"][0]
    if best.get("test") == "whole cell":
        return (
            "{count} answer cell(s) share code; the strongest, {cell}, is {share:.0%} the other's as a whole,"
            " though its passages are common ones".format(
                count=evidence["count"], cell=best["cells"][0], share=best["containment"]
            )
        )
    return (
        "{count} answer cell(s) share rare code; the strongest, {cell}, shares {share:.0%} of its fingerprints".format(
            count=evidence["count"], cell=best["cells"][0], share=best["containment"]
        )
    )


def print_table(findings, console=None) -> None:
    from rich.console import Console
    from rich.table import Table

    console = console or Console()
    title = f"{findings.assignment}: {len(findings.pairs)} flagged pair(s) among {len(findings.students)} submission(s)"
    table = Table(title=for_rich(title), title_justify="left")
    table.add_column("#", justify="right")
    table.add_column("students")
    table.add_column("evidence")
    table.add_column("score", justify="right")
    for i, pair in enumerate(findings.pairs, 1):
        table.add_row(
            str(i),
            for_rich(" & ".join(pair["students"])),
            "\n".join(for_rich(describe(e)) for e in pair["evidence"]),
            f"{pair['score']:.1f}",
        )
    console.print(table)
    if findings.public_numbers:
        public = Table(title="the assignment's published example numbers, hard-coded", title_justify="left")
        for column in ("student", "where", "what"):
            public.add_column(column)
        for item in findings.public_numbers:
            public.add_row(for_rich(item["student"]), for_rich(item["where"]), for_rich(item["what"]))
        console.print(public)
    for student, problems in findings.unreadable.items():
        for problem in problems:
            console.print(for_rich(f"not compared: {student}: {problem}"))
    for line in findings.skipped:
        console.print(for_rich(line))
    for line in findings.handins:
        console.print(for_rich(line))


def write_reports(reports_dir: Path, findings) -> tuple[Path, Path]:
    """``integrity.json`` and ``integrity.html`` in ``reports_dir``."""
    reports_dir.mkdir(parents=True, exist_ok=True)
    json_path, html_path = reports_dir / "integrity.json", reports_dir / "integrity.html"
    atomic_write(json_path, json.dumps(findings.to_dict(), indent=1, ensure_ascii=False) + "\n")
    atomic_write(html_path, render_html(findings))
    return json_path, html_path


def _e(value) -> str:
    """Student text for HTML: control characters replaced (one for one), then escaped."""
    text = str(value)
    return html.escape(shown(text, len(text) + 1), quote=True)


def highlighted(source: str, spans: list[tuple[int, int]]) -> str:
    """``source`` escaped, with the character ranges ``spans`` in <mark>."""
    out, at = [], 0
    for start, end in sorted(spans):
        start = max(start, at)
        if end <= start:
            continue
        out += [_e(source[at:start]), "<mark>", _e(source[start:end]), "</mark>"]
        at = end
    out.append(_e(source[at:]))
    return "".join(out)


def render_html(findings) -> str:
    parts = [
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>",
        f"<title>{_e(findings.assignment)}: copy detection</title><style>{_CSS}</style></head><body>",
        f"<h1>{_e(findings.assignment)}: copy detection</h1>",
        f"<p class='note'>{len(findings.pairs)} flagged pair(s) among {len(findings.students)} submission(s), "
        "strongest first. "
        "Evidence from the variants (another student's read-only cells, right answers or own numbers) "
        "cannot arise by chance; evidence from the code is rare code two submissions share, "
        "after discounting the stub, the reference solution and whatever many students wrote. "
        "Nothing here changes a grade: read the code before you decide.</p>",
    ]
    if findings.pairs:
        parts.append(
            "<div class='wide'><table><tr><th>#</th><th>students</th><th>evidence</th><th class='score'>score</th></tr>"
        )
        for i, pair in enumerate(findings.pairs, 1):
            evidence = "<br>".join(_e(describe(e)) for e in pair["evidence"])
            parts.append(
                f"<tr><td><a href='#pair{i}'>{i}</a></td><td>{_e(' & '.join(pair['students']))}</td>"
                f"<td>{evidence}</td><td class='score'>{pair['score']:.1f}</td></tr>"
            )
        parts.append("</table></div>")
    for i, pair in enumerate(findings.pairs, 1):
        parts.append(
            f"<h2 id='pair{i}'>{i}. {_e(' & '.join(pair['students']))} "
            f"<span class='note'>score {pair['score']:.1f}</span></h2><ul>"
        )
        for evidence in pair["evidence"]:
            parts.append(f"<li>{_e(describe(evidence))}{_detail(evidence)}</li>")
        parts.append("</ul>")
        for block in findings.sides.get(tuple(pair["students"]), []):
            parts.append(f"<div class='side'>{_side(block['left'])}{_side(block['right'])}</div>")
    if findings.public_numbers:
        parts.append(
            "<h2>The assignment's published example numbers, hard-coded</h2><div class='wide'><table>"
            "<tr><th>student</th><th>where</th><th>what</th></tr>"
        )
        for item in findings.public_numbers:
            parts.append(
                f"<tr><td>{_e(item['student'])}</td><td>{_e(item['where'])}</td><td>{_e(item['what'])}</td></tr>"
            )
        parts.append("</table></div>")
    if findings.handins:
        parts.append("<h2>Hand-ins the exchange refused or questioned</h2><ul>")
        parts += [f"<li>{_e(line)}</li>" for line in findings.handins]
        parts.append("</ul>")
    if findings.unreadable or findings.skipped:
        parts.append("<h2>Not compared</h2><ul>")
        for student, problems in findings.unreadable.items():
            parts += [f"<li>{_e(student)}: {_e(problem)}</li>" for problem in problems]
        parts += [f"<li>{_e(line)}</li>" for line in findings.skipped]
        parts.append("</ul>")
    parts.append("</body></html>\n")
    return "".join(parts)


def _detail(evidence: dict) -> str:
    kind = evidence["kind"]
    if kind == "variant cells":
        text = ", ".join(evidence["cells"])
        if evidence.get("checksums_only"):
            text += "; by nbgrader checksum only: " + ", ".join(evidence["checksums_only"])
        return f" <span class='note'>({_e(text)})</span>"
    if kind == "answers":
        return f" <span class='note'>({_e(', '.join(evidence['answers']))}; strength {evidence['strength']})</span>"
    if kind == "personal numbers":
        return f" <span class='note'>(in {_e(', '.join(evidence['where']))}; strength {evidence['strength']})</span>"
    cells = "; ".join(
        "{a} and {b}: {n} shared fingerprints, weight {w}, {c:.0%} of the smaller cell{what}".format(
            a=c["cells"][0],
            b=c["cells"][1],
            n=c["shared"],
            w=c["weight"],
            c=c["containment"],
            what="'s weight, compared whole" if c.get("test") == "whole cell" else "",
        )
        for c in evidence["cells"]
    )
    return f" <span class='note'>({_e(cells)})</span>"


def _side(part: dict) -> str:
    return (
        f"<div><h4>{_e(part['student'])}: {_e(part['cell'])}</h4>"
        f"<pre>{highlighted(part['source'], part['spans'])}</pre></div>"
    )
