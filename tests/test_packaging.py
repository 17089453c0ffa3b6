"""What the package ships: every gradekit subpackage, and the demo's course (gradekit_course)."""

from __future__ import annotations

import tomllib
from pathlib import Path

from setuptools import find_packages

REPO = Path(__file__).resolve().parents[1]


def _config() -> dict:
    return tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]


def test_every_gradekit_package_is_listed():
    listed = set(_config()["packages"])
    found = set(find_packages(str(REPO), include=["gradekit", "gradekit.*"]))
    assert found - listed == set(), f"pyproject.toml's packages miss {sorted(found - listed)}"
    assert listed - found - {"gradekit_course"} == set()


def test_the_demo_course_is_this_repository_and_its_data_is_shipped():
    from gradekit.cli.demo import course_files

    root = course_files()
    assert (root / "nbgrader_config.py").is_file()
    patterns = _config()["package-data"]["gradekit_course"]
    shipped = {p for pattern in patterns for p in root.glob(pattern)}
    for assignment in (root / "source").iterdir():
        needed = [*assignment.glob("*.ipynb"), *(root / "autograder" / assignment.name).glob("test_*.py"),
                  root / "solutions" / assignment.name / "reference.py"]
        assert needed and all(p in shipped for p in needed), [p for p in needed if p not in shipped]
