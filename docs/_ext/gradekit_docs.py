"""Sphinx directives that write gradekit's references from the code itself, so they cannot drift.

``gradekit-settings``: one row per setting of ``c.Gradekit`` in nbgrader_config.py (the traits
of gradekit.course's settings class): its name, type, default and help text.

``gradekit-assignment-settings``: one row per key of an assignment's settings file,
``source/<assignment>/assignment.toml`` (gradekit.settings.KEYS): its section, kind, default,
the c.Gradekit setting that gives the course's default (if any) and its help text.

``gradekit-glossary``: the glossary of ``gradekit/__init__.py``'s docstring, one term a row.

``gradekit-layers``: the layer table that ``tests/test_layout.py`` holds the package to, lowest
first (read from that file's ``LAYERS``, not imported).

``gradekit-hub-exchange routes|statuses|limits``: the hub exchange's HTTP contract, from
gradekit.exchange.hub.wire: every route's uses (``ROUTES``: method, path, who may call it, what it
answers), its statuses (``Status`` and ``STATUS_MEANS``), a hand-in's limits (``Limits``: the
``gradekit hub-exchange`` option that sets each, its default, what it limits).
"""

from __future__ import annotations

from docutils import nodes
from docutils.parsers.rst import Directive


def _cell(text: str) -> nodes.entry:
    entry = nodes.entry()
    entry += nodes.paragraph(text=text)
    return entry


def _literal_cell(text: str) -> nodes.entry:
    entry = nodes.entry()
    para = nodes.paragraph()
    para += nodes.literal(text=text)
    entry += para
    return entry


class GradekitSettings(Directive):
    """A table of every ``c.Gradekit`` setting, read from its trait."""

    has_content = False

    def run(self):
        from gradekit.course import _settings_class

        settings = _settings_class()
        traits = settings.class_traits(config=True)
        table = nodes.table(classes=["gradekit-settings"])
        group = nodes.tgroup(cols=4)
        table += group
        for width in (22, 12, 16, 50):
            group += nodes.colspec(colwidth=width)
        head = nodes.thead()
        row = nodes.row()
        for title in ("setting", "type", "default", "what it does"):
            row += _cell(title)
        head += row
        group += head
        body = nodes.tbody()
        for name in sorted(traits):
            trait = traits[name]
            row = nodes.row(ids=[f"setting-{name}"])
            row += _literal_cell(f"c.Gradekit.{name}")
            row += _cell(type(trait).__name__)
            row += _literal_cell(repr(trait.default()))
            row += _cell(trait.help or "")
            body += row
        group += body
        return [table]


def _table(headers: tuple[str, ...], rows: list[tuple[nodes.entry, ...]], widths: tuple[int, ...]) -> nodes.table:
    table = nodes.table()
    group = nodes.tgroup(cols=len(headers))
    table += group
    for width in widths:
        group += nodes.colspec(colwidth=width)
    head = nodes.thead()
    row = nodes.row()
    for title in headers:
        row += _cell(title)
    head += row
    group += head
    body = nodes.tbody()
    for cells in rows:
        row = nodes.row()
        for cell in cells:
            row += cell
        body += row
    group += body
    return table


class GradekitGlossary(Directive):
    """The glossary in gradekit's package docstring: ``term   what it means`` lines, continued by
    lines indented to the meaning."""

    def run(self):
        import gradekit

        text = gradekit.__doc__ or ""
        block = text.split("Glossary", 1)[1].split("::", 1)[-1] if "Glossary" in text else ""
        lines = block.split("\n")
        start = next(i for i, line in enumerate(lines) if line.strip() and not line.strip().endswith(":"))
        terms: list[list[str]] = []
        for line in lines[start:]:
            if not line.strip():
                if terms:
                    break
                continue
            if line.startswith("    ") and not line.startswith("     "):
                term, _, meaning = line.strip().partition("  ")
                terms.append([term.strip(), meaning.strip()])
            elif terms:
                terms[-1][1] += " " + line.strip()
        rows = [(_literal_cell(term), _cell(meaning)) for term, meaning in terms]
        return [_table(("term", "what it means"), rows, (20, 80))]


class GradekitLayers(Directive):
    """The package's layers, lowest first, as tests/test_layout.py declares them.

    The table is read from the repository beside docs/: built from a copy of docs/ alone, the page
    says so in one error line (as ``include`` does for a missing file), not a traceback."""

    def run(self):
        import ast
        from pathlib import Path

        source = Path(__file__).resolve().parents[2] / "tests" / "test_layout.py"
        if not source.is_file():
            raise self.error(
                f"gradekit-layers: the layer table is read from tests/test_layout.py, which is not at {source}: "
                "build the docs in a checkout of gradekit (docs/ beside tests/ and gradekit/)"
            )
        tree = ast.parse(source.read_text())
        layers = next(
            ast.literal_eval(node.value)
            for node in ast.walk(tree)
            if isinstance(node, ast.AnnAssign) and getattr(node.target, "id", "") == "LAYERS"
        )
        rows = [(_cell(f"{i + 1}. {name}"), _literal_cell(", ".join(homes))) for i, (name, homes) in enumerate(layers)]
        return [_table(("layer", "what sits in it"), rows, (25, 75))]


class GradekitHubExchange(Directive):
    """One table of the hub exchange's wire (gradekit.exchange.hub.wire): its routes, statuses or limits."""

    required_arguments = 1
    has_content = False

    def run(self):
        import dataclasses

        from gradekit.exchange.hub import wire

        what = self.arguments[0]
        if what == "routes":
            rows = [
                (_literal_cell(use.method), _literal_cell(use.path), _cell(WHO[use.who]), _cell(use.does))
                for route in wire.ROUTES
                for use in route.uses
            ]
            headers = ("method", "path under api/<course>/", "who may call it", "what it answers")
            return [_table(headers, rows, (8, 24, 18, 50))]
        if what == "statuses":
            missing = [status.name for status in wire.Status if status not in wire.STATUS_MEANS]
            if missing:
                raise self.error(f"gradekit-hub-exchange: wire.STATUS_MEANS says nothing of {', '.join(missing)}")
            rows = [
                (_literal_cell(str(int(status))), _literal_cell(status.name), _cell(wire.STATUS_MEANS[status]))
                for status in wire.Status
            ]
            return [_table(("status", "name in wire.Status", "when"), rows, (8, 16, 76))]
        if what == "limits":
            rows = [
                (
                    _literal_cell(f"--{f.name.replace('_', '-')}"),
                    _literal_cell(f"{f.default:g}" if isinstance(f.default, float) else repr(f.default)),
                    _cell(f.metadata["help"]),
                )
                for f in dataclasses.fields(wire.Limits)
            ]
            return [_table(("gradekit hub-exchange option", "default", "what it limits"), rows, (26, 10, 64))]
        raise self.error(f"gradekit-hub-exchange: routes, statuses or limits, not {what!r}")


WHO = {
    "caller": "anyone whose token may use the service, for themselves only",
    "instructors": "the course's instructors and its services",
    "nobody": "nobody",
}


KINDS = {
    "names": "list of grade ids / notebooks",
    "choice": "one of",
    "count": "whole number ≥ 0",
    "int": "whole number > 0",
    "seconds": "seconds ≥ 0",
    "positive": "number > 0",
}


class GradekitAssignmentSettings(Directive):
    """A table of every key of an assignment's settings file, read from gradekit.settings.KEYS."""

    has_content = False

    def run(self):
        from gradekit.settings import KEYS, _toml

        rows = []
        for key in KEYS:
            kind = KINDS[key.kind] + (" " + ", ".join(map(repr, key.choices)) if key.choices else "")
            course = f"c.Gradekit.{key.name}" if key.course else "— (this assignment's names)"
            row = (_literal_cell(f"[{key.section}] {key.name}"), _cell(kind), _literal_cell(_toml(key.default)),
                   _literal_cell(course) if key.course else _cell(course), _cell(key.help))
            rows.append(row)
        table = _table(("key", "kind", "default", "course-wide default", "what it does"), rows, (20, 14, 8, 18, 40))
        table["ids"] = ["assignment-settings"]
        return [table]


def setup(app):
    app.add_directive("gradekit-assignment-settings", GradekitAssignmentSettings)
    app.add_directive("gradekit-settings", GradekitSettings)
    app.add_directive("gradekit-glossary", GradekitGlossary)
    app.add_directive("gradekit-layers", GradekitLayers)
    app.add_directive("gradekit-hub-exchange", GradekitHubExchange)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
