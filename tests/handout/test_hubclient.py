"""The students' side of the hub exchange is light: its wire is the standard library alone.

(That the client classes import no grading extra is tests/test_packaging.py's, with the rest of the
student side.)
"""

from __future__ import annotations

import json
import subprocess
import sys

def test_the_wire_is_the_standard_library_alone():
    probe = subprocess.run(
        [sys.executable, "-c", "import json, sys; before = set(sys.modules); import gradekit.exchange.hub.wire; "
         "print(json.dumps(sorted(set(sys.modules) - before)))"],
        capture_output=True, text=True, check=True)
    new = {m.split(".")[0] for m in json.loads(probe.stdout)}
    assert new <= {"gradekit", *sys.stdlib_module_names}, sorted(new - set(sys.stdlib_module_names))
