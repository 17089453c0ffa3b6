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


HUB_CONFIG = '''\
c = get_config()  # noqa: F821
c.JupyterHub.db_url = "sqlite:///{hub}/jupyterhub.sqlite"
c.JupyterHub.bind_url = "http://127.0.0.1:8000"
'''


def _fix(line: str) -> None:
    """Run the command a doctor line names, as the admin would."""
    subprocess.run(["sh", "-c", line.split("; fix: ", 1)[1]], check=True)


def test_homes_their_files_and_the_hub_s_database_that_a_classmate_reads_are_named_and_quiet_once_fixed():
    """What a newcomer's Debian machine has: homes 0755 (useradd -m), servers with umask 022."""
    reason = unix_users.unavailable()
    if reason:
        pytest.skip(reason)
    names = ["gkhoa", "gkhob"]
    a, b = unix_users.create(names)
    base = Path("/tmp") / f"gk-doctor-homes-{os.getpid()}"
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
        assert code == 0, lines                               # useradd -K HOME_MODE=0700: private homes
        for account in (a, b):
            os.chmod(account.home, 0o755)
        copy = a.home / ASSIGNMENT / "self_attention-Copy1.ipynb"
        workspace = a.home / ".jupyter" / "lab" / "workspaces" / "default-37a8.jupyterlab-workspace"
        for path in (copy, workspace):      # as a server with umask 022 writes them
            a.run("sh", "-c", f"umask 022 && mkdir -p '{path.parent}' && echo solved > '{path}'")
        hub = base / "jupyterhub"
        hub.mkdir(mode=0o755)
        (hub / "jupyterhub_config.py").write_text(HUB_CONFIG.format(hub=hub))
        for name in ("jupyterhub.sqlite", "jupyterhub_cookie_secret"):
            (hub / name).write_text("users and their tokens")
            os.chmod(hub / name, 0o644)
        assert b.may("cat", f"'{copy}'") and b.may("cat", f"'{workspace}'") and b.may("cat", f"'{hub}/jupyterhub.sqlite'")

        code, lines = _doctor(course, "--hub-config", str(hub / "jupyterhub_config.py"))
        print("\n".join(lines))
        assert code == 1, lines
        wanted = [f"the home {a.home} of gkhoa", f"the home {b.home} of gkhob", f"file(s) in {a.home}",
                  f"file(s) in {b.home}",   # the copy and the workspace; and Debian's 0644 .bashrc, .profile
                  "jupyterhub.sqlite", "jupyterhub_cookie_secret", "umask 077"]
        for what in wanted:
            assert any(what in line and "; fix: " in line for line in lines), (what, lines)
        assert len(lines) == len(wanted), lines

        for line in lines:
            if "umask" in line:
                with open(hub / "jupyterhub_config.py", "a") as fh:
                    fh.write('c.LocalProcessSpawner.popen_kwargs = {"umask": 0o077}\n')
            else:
                _fix(line)
        code, lines = _doctor(course, "--hub-config", str(hub / "jupyterhub_config.py"))
        assert code == 0 and len(lines) == 1 and "nothing to fix" in lines[0], lines
        assert not b.may("cat", f"'{copy}'") and not b.may("cat", f"'{workspace}'")
        assert not b.may("cat", f"'{hub}/jupyterhub.sqlite'") and a.may("cat", f"'{copy}'")
    finally:
        shutil.rmtree(base, ignore_errors=True)
        unix_users.remove(names)


def test_the_staff_group_may_read_the_course_and_a_student_in_it_may_not():
    reason = unix_users.unavailable()
    if reason:
        pytest.skip(reason)
    names, staff = ["gkstf", "gksta", "gkstb"], "gkdocstaff"
    teacher, a, _ = unix_users.create(names)
    unix_users.claim([staff])
    subprocess.run(["groupdel", staff], capture_output=True)
    subprocess.run(["groupadd", staff], check=True, capture_output=True)
    subprocess.run(["usermod", "-aG", staff, teacher.name], check=True, capture_output=True)
    base = Path("/tmp") / f"gk-doctor-staff-{os.getpid()}"
    shutil.rmtree(base, ignore_errors=True)
    base.mkdir(mode=0o755)
    try:
        course = CourseDir.create(base / "course", tuple(names[1:]))
        os.chmod(course.root, 0o700)
        with open(course.root / "nbgrader_config.py", "a") as fh:
            fh.write(f'\nc.Exchange.root = "{base / "exchange"}"\nc.Gradekit.staff_group = "{staff}"\n')
        course.generate()
        course.run(GRADEKIT, "release", ASSIGNMENT)
        from gradekit.doctor.access import share_line

        subprocess.run(["sh", "-c", share_line(course.root, staff)], check=True)
        assert teacher.may("cat", f"'{course.root / 'solutions' / ASSIGNMENT / 'reference.py'}'")
        code, lines = _doctor(course)
        assert code == 0 and "nothing to fix" in lines[0], lines      # the staff group reads it: accepted

        subprocess.run(["usermod", "-aG", staff, a.name], check=True, capture_output=True)   # a student in it
        code, lines = _doctor(course)
        assert code == 1 and any(f"{a.name} (students) are in the staff group {staff}" in line for line in lines), lines
        assert any("can be read by students through a group (gksta)" in line for line in lines), lines
        assert a.may("cat", f"'{course.root / 'solutions' / ASSIGNMENT / 'reference.py'}'")   # the lines are true
    finally:
        shutil.rmtree(base, ignore_errors=True)
        unix_users.remove(names)
        subprocess.run(["groupdel", staff], capture_output=True)
        unix_users.release([staff])


def test_doctor_finds_runuser_off_a_plain_users_path_and_the_students_python_from_the_hub_config(deployed, tmp_path):
    """A newcomer's doctor --hub-config: with /usr/sbin off PATH (Debian's default for a plain account) it
    printed runuser's FileNotFoundError as a traceback; and it checked /opt/gradekit's Python though the
    hub config's spawner runs another deployment's."""
    course, _here = deployed
    private = tmp_path / "elsewhere" / "bin"          # a deployment no other account can reach (tmp_path is 0700)
    private.mkdir(parents=True)
    (private / "python").symlink_to(unix_users.STUDENT_BIN / "python")
    config = tmp_path / "jupyterhub_config.py"
    config.write_text(f'c.Spawner.cmd = ["{private}/jupyterhub-singleuser"]\n'
                      'c.LocalProcessSpawner.popen_kwargs = {"umask": 0o077}\nc.JupyterHub.ip = "127.0.0.1"\n')
    env = dict(os.environ, PATH=f"{VENV_BIN}:/usr/bin:/bin", GRADEKIT_SECRET="gradekit-test-suite-secret")
    proc = course.run(GRADEKIT, "doctor", "--hub-config", str(config), check=False, env=env)
    assert "Traceback" not in proc.stderr and proc.returncode == 1, proc.stderr
    (line,) = [x for x in proc.stdout.splitlines() if "cannot import gradekit's exchange classes" in x]
    assert f"with {private}/python" in line                     # the hub's students' Python, not /opt/gradekit's


def test_allowed_users_with_no_account_are_named_where_servers_run_as_their_own_accounts(tmp_path):
    """hub-config's allowed_users from a roster of example students (alice, bob, chen with no Unix account):
    the hub logged a traceback for each at start and doctor said nothing."""
    from gradekit.doctor.hub import hub_problems, students_python

    config = tmp_path / "jupyterhub_config.py"
    base = ('c.LocalProcessSpawner.popen_kwargs = {"umask": 0o077}\nc.JupyterHub.ip = "127.0.0.1"\n'
            'c.Authenticator.allowed_users = {"root", "gk-nobody-here-1", "gk-nobody-here-2"}\n')
    config.write_text(base + 'c.JupyterHub.spawner_class = "localprocess"\n')
    (line,) = [p.line() for p in hub_problems(config)]
    assert "2 allowed user(s) of the hub have no Unix account here: gk-nobody-here-1, gk-nobody-here-2" in line
    assert "root" not in line.split(":", 1)[1].split("(")[0] and "useradd" in line
    config.write_text(base + 'c.JupyterHub.spawner_class = "dockerspawner.DockerSpawner"\n')
    assert hub_problems(config) == []          # servers in containers: hub users need no Unix account
    assert students_python(config) is None     # no spawner command: doctor falls back to make deploy's
    venv = tmp_path / "venv" / "bin"
    venv.mkdir(parents=True)
    (venv / "python").symlink_to(shutil.which("python3"))
    config.write_text(f'c.Spawner.cmd = ["{venv}/jupyterhub-singleuser"]\n')
    assert students_python(config) == venv / "python"
