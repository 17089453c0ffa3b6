"""Every public name of gradekit.graders -- what a grader imports -- says what it does, with an example.

The docs' grader reference is made of these docstrings (autodoc): a name without one would
be missing from it, and one without an example would send the author to the source.
"""

from __future__ import annotations

import inspect
import re

import pytest

from gradekit.graders import check, probes, student

MODULES = (check, probes, student)


def _public(module):
    for name in module.__all__:
        yield f"{module.__name__}.{name}", getattr(module, name)


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__)
def test_every_public_name_has_a_docstring_with_an_example(module):
    source = inspect.getsource(module)
    missing = []
    for where, value in _public(module):
        doc = inspect.getdoc(value) if (inspect.isclass(value) or callable(value)) else None
        if doc is None:  # a constant: its docstring is the string after it (autodoc reads it)
            name = where.rsplit(".", 1)[1]
            found = re.search(rf'\n{name} = [^\n]*\n("""[\s\S]*?""")', source)
            doc = found.group(1) if found else None
        if not doc or "::" not in doc:
            missing.append(where)
        if inspect.isclass(value) and value.__module__ == module.__name__:
            for attribute, member in vars(value).items():
                if not attribute.startswith("_") and inspect.isfunction(member) and not inspect.getdoc(member):
                    missing.append(f"{where}.{attribute}")
    assert not missing, f"no docstring with an example: {missing}"


def test_writing_an_assignment_names_every_grader_function_and_the_api_page_shows_each():
    from pathlib import Path

    docs = Path(__file__).resolve().parents[2] / "docs" / "guides"
    guide = (docs / "writing-an-assignment.md").read_text(encoding="utf-8")
    api = (docs / "grader-api.md").read_text(encoding="utf-8")
    names = [f"check.{n}" for n in check.__all__] + [f"probes.{n}" for n in probes.__all__]
    names += ["student.with_reference", ".map(", "call(", 'student["']
    assert [n for n in names if n not in guide] == []
    assert [n for n in names if n not in api] == []
