"""``gradekit doctor``: one line per problem of a course's deployment, each with the command that fixes it.

A course that other accounts can read, an exchange whose modes let one student
reach another's work, nbgrader's own collect, the students' Python inside the
course: each found, each fixed by the line's own command, and then nothing to fix.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest
import unix_users
from conftest import ASSIGNMENT, VENV_BIN, CourseDir

pytestmark = pytest.mark.slow

GRADEKIT = str(VENV_BIN / "gradekit")


@pytest.fixture
def deployed():
    reason = unix_users.unavailable()
    if reason:
        pytest.skip(reason)
    base = Path("/tmp") / f"gk-doctor-{os.getpid()}"
    shutil.rmtree(base, ignore_errors=True)
    base.mkdir(mode=0o755)
    course = CourseDir.create(base / "course", ("alice", "bob"))
    with open(course.root / "nbgrader_config.py", "a") as fh:
        fh.write(f'\nc.Exchange.root = "{base / "exchange"}"\n')
    course.generate()
    course.run(GRADEKIT, "release", ASSIGNMENT)
    try:
        yield course, base / "exchange" / "transformers101"
    finally:
        shutil.rmtree(base, ignore_errors=True)


def _doctor(course, *args):
    proc = course.run(GRADEKIT, "doctor", *args, check=False)
    return proc.returncode, [line for line in proc.stdout.splitlines() if line.strip()]


def test_each_problem_is_one_line_with_its_fix_and_the_fixes_work(deployed):
    course, here = deployed
    os.chmod(course.root, 0o755)                         # the course open to every account
    os.chmod(here / "inbound", 0o777)                    # students could list and remove each other's work
    with open(course.root / "nbgrader_config.py", "a") as fh:
        fh.write('\nc.ExchangeFactory.collect = "nbgrader.exchange.default.collect.ExchangeCollect"\n')
    inside = course.root / "venv" / "bin"
    inside.mkdir(parents=True)
    os.symlink(unix_users.STUDENT_BIN / "python", inside / "python")

    code, lines = _doctor(course, "--student-python", str(inside / "python"))
    assert code == 1
    wanted = {"can be read by other accounts": f"chmod 0700 {course.root}",
              "not 3753": "gradekit release",
              "nbgrader collect is nbgrader's own": "GradekitCollect",
              "lives in the course directory": "make deploy",
              "cannot import gradekit's exchange classes": "make deploy"}
    for what, fix in wanted.items():
        line = next((line for line in lines if what in line), None)
        assert line is not None, (what, lines)
        assert "; fix: " in line and fix in line.split("; fix: ", 1)[1], line
    assert len(lines) == len(wanted), lines
    assert all("Traceback" not in line for line in lines)

    os.chmod(course.root, 0o700)
    course.run(GRADEKIT, "release", ASSIGNMENT, "--force")
    config = (course.root / "nbgrader_config.py").read_text().replace(
        'c.ExchangeFactory.collect = "nbgrader.exchange.default.collect.ExchangeCollect"', "")
    (course.root / "nbgrader_config.py").write_text(config)
    code, lines = _doctor(course)
    assert code == 0 and len(lines) == 1 and "nothing to fix" in lines[0], lines
    assert stat.S_IMODE(os.stat(here / "inbound").st_mode) == 0o3753


def test_a_student_python_another_account_cannot_run_is_found(deployed, tmp_path):
    course, _ = deployed
    os.chmod(course.root, 0o700)
    private = tmp_path / "venv" / "bin"                  # under root's 0700 pytest folder
    private.mkdir(parents=True)
    os.symlink(unix_users.STUDENT_BIN / "python", private / "python")
    code, lines = _doctor(course, "--student-python", str(private / "python"))
    assert code == 1 and any("cannot import gradekit's exchange classes" in line or "not reachable" in line
                             for line in lines), lines


def test_a_release_only_its_student_can_read_is_clean_and_one_a_classmate_can_read_is_found(tmp_path):
    reason = unix_users.unavailable()
    if reason:
        pytest.skip(reason)
    names = ["gkdoca", "gkdocb"]
    unix_users.create(names)
    base = Path("/tmp") / f"gk-doctor-acl-{os.getpid()}"
    shutil.rmtree(base, ignore_errors=True)
    base.mkdir(mode=0o755)
    try:
        course = CourseDir.create(base / "course", tuple(names))
        os.chmod(course.root, 0o700)
        with open(course.root / "nbgrader_config.py", "a") as fh:
            fh.write(f'\nc.Exchange.root = "{base / "exchange"}"\n')
        course.generate()
        course.run(GRADEKIT, "release", ASSIGNMENT)
        code, lines = _doctor(course)
        assert code == 0 and "nothing to fix" in lines[0], lines     # each folder: its student's alone

        mine = base / "exchange" / "transformers101" / "outbound" / ASSIGNMENT / "gkdoca"
        subprocess.run(["setfacl", "-m", "u:gkdocb:rx", str(mine)], check=True)  # a classmate let in
        code, lines = _doctor(course)
        assert code == 1 and len(lines) == 1 and str(mine) in lines[0] and "--force" in lines[0], lines
        assert unix_users.Account("gkdocb").may("ls", str(mine))   # the line is true: gkdocb reads it

        course.run(GRADEKIT, "release", ASSIGNMENT, "--force")
        code, lines = _doctor(course)
        assert code == 0, lines
        assert not unix_users.Account("gkdocb").may("ls", str(mine))
        assert unix_users.Account("gkdoca").may("ls", str(mine))
    finally:
        shutil.rmtree(base, ignore_errors=True)
        unix_users.remove(names)


def test_a_copy_of_the_reference_installed_with_the_students_python_is_found(deployed):
    """A deployment that packaged the course (its solutions, its graders) hands them to every account."""
    course, _ = deployed
    os.chmod(course.root, 0o700)
    base = course.root.parent
    site = base / "venv" / "lib" / "site-packages"
    leaked = site / "some_course" / "solutions" / "reference.py"
    leaked.parent.mkdir(parents=True)
    shutil.copy(course.root / "solutions" / ASSIGNMENT / "reference.py", leaked)
    for folder in [base / "venv", *leaked.parents]:
        if folder.is_relative_to(base / "venv"):
            os.chmod(folder, 0o755)
    os.chmod(leaked, 0o644)
    python = base / "venv" / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text(f'#!/bin/sh\nPYTHONPATH="{site}" exec "{unix_users.STUDENT_BIN / "python"}" "$@"\n')
    os.chmod(python, 0o755)
    code, lines = _doctor(course, "--student-python", str(python))
    assert code == 1 and len(lines) == 1, lines
    assert f"solutions/{ASSIGNMENT}/reference.py" in lines[0] and str(leaked) in lines[0], lines
    assert "make deploy" in lines[0].split("; fix: ", 1)[1]

    leaked.unlink()
    code, lines = _doctor(course, "--student-python", str(python))
    assert code == 0 and "nothing to fix" in lines[0], lines
    code, lines = _doctor(course)            # the deployment make deploy built: gradekit alone
    assert code == 0 and "nothing to fix" in lines[0], lines
