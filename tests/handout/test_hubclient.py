"""The students' side of the hub exchange is light: what a student's server imports for it.

A student's image carries gradekit's student side only (docs/admin/kubernetes-docker.md): its
exchange client classes and the Lab server extension import nothing of grading -- no
scikit-learn, SciPy, Dask, vl-convert, psycopg or Playwright.
"""

from __future__ import annotations

import json
import subprocess
import sys

HEAVY = ("sklearn", "scipy", "dask", "distributed", "vl_convert", "psycopg", "playwright", "numpy", "jupyterhub")


def test_the_student_side_imports_nothing_heavy():
    probe = subprocess.run(
        [sys.executable, "-c", "import json, sys; import gradekit.handout.hubclient, gradekit.handout.hubwire, "
         "gradekit.handout.lab; print(json.dumps(sorted(sys.modules)))"],
        capture_output=True, text=True, check=True)
    loaded = {m.split(".")[0] for m in json.loads(probe.stdout)}
    assert not loaded & set(HEAVY), sorted(loaded & set(HEAVY))
    assert "nbgrader" in loaded      # the probe did import the classes


def test_the_wire_is_the_standard_library_alone():
    probe = subprocess.run(
        [sys.executable, "-c", "import json, sys; before = set(sys.modules); import gradekit.handout.hubwire; "
         "print(json.dumps(sorted(set(sys.modules) - before)))"],
        capture_output=True, text=True, check=True)
    new = {m.split(".")[0] for m in json.loads(probe.stdout)}
    assert new <= {"gradekit", *sys.stdlib_module_names}, sorted(new - set(sys.stdlib_module_names))
