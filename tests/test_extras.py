"""An optional part whose extra is missing: one line that names the extra, before any work."""

from __future__ import annotations

import pytest

from gradekit import extras
from gradekit.errors import CourseFailure, MissingExtra


def test_a_missing_module_names_its_extra(monkeypatch):
    monkeypatch.setitem(extras.EXTRAS, "groups", extras.Extra("groups", ("no_such_module_here",), "grouping"))
    with pytest.raises(MissingExtra) as caught:
        extras.require("groups")
    message = str(caught.value)
    assert message == ("grouping needs gradekit's 'groups' extra (no_such_module_here is not installed): "
                       'pip install "gradekit[groups]"')
    assert isinstance(caught.value, CourseFailure) and caught.value.exit_code == 3 and "\n" not in message


def test_installed_extras_pass_without_importing_them():
    import sys

    sys.modules.pop("distributed", None)
    extras.require("cluster")         # installed in the test venv
    assert "distributed" not in sys.modules
    assert extras.missing("postgres") is None
