"""Sphinx directives that write gradekit's references from the code itself, so they cannot drift.

``gradekit-settings``: one row per setting of ``c.Gradekit`` in nbgrader_config.py (the traits
of gradekit.course's settings class): its name, type, default and help text.
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


def setup(app):
    app.add_directive("gradekit-settings", GradekitSettings)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
