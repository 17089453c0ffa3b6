"""``gradekit doctor``: the students' side.

the students    the Python the students run can import gradekit's exchange classes (a package,
                never the course directory), holds no copy of the course's private files, and the
                collect class judges by owner
the homes       each roster account's home, and the files in it, are theirs alone: a classmate
                can neither list the home nor read a file in it (a notebook duplicated, the Lab's
                workspace)
"""

from __future__ import annotations

import hashlib
import os
import pwd
import stat
import subprocess
from pathlib import Path

from gradekit.doctor.access import NO_RUNUSER, Problem, accounts, others_can, reachable, runuser_path


def student_problems(course, python: Path | None) -> list[Problem]:
    out = []
    trust = (course.config or {}).get("GradekitCollect", {}).get("trust_names", False)
    if trust:
        out.append(
            Problem(
                "c.GradekitCollect.trust_names is on: a submission counts for whatever name it carries, "
                "whoever handed it in",
                "remove it from nbgrader_config.py (it is for one account that simulates a class)",
            )
        )
    collect = str((course.config or {}).get("ExchangeFactory", {}).get("collect", ""))
    if not collect.endswith("GradekitCollect"):
        out.append(
            Problem(
                "nbgrader collect is nbgrader's own: it files a submission under the name it carries and "
                "takes its time from timestamp.txt",
                'c.ExchangeFactory.collect = "gradekit.exchange.filesystem.collect.GradekitCollect" '
                "in nbgrader_config.py",
            )
        )
    if python is None:
        return out
    if not python.exists():
        return [*out, Problem(f"{python} does not exist", "make deploy (or install gradekit into the students' venv)")]
    if Path(os.path.abspath(python)).is_relative_to(course.root.resolve()) or python.resolve().is_relative_to(
        course.root.resolve()
    ):  # a venv's bin/python is a symlink out of it: the path itself says where the venv is
        out.append(
            Problem(
                f"the students' Python {python} lives in the course directory: students would need to read it",
                "install gradekit as a package in a venv outside the course (make deploy)",
            )
        )
    if os.geteuid() == 0:
        runuser = runuser_path()
        if runuser is None:
            return [*out, NO_RUNUSER]
        probe = subprocess.run(
            [runuser, "-u", "nobody", "--", str(python), "-c", "import gradekit.exchange.filesystem.student"],
            capture_output=True,
            text=True,
        )
        if probe.returncode != 0:
            why = (probe.stderr.strip().splitlines() or ["it fails"])[-1][:160]
            out.append(
                Problem(
                    f"another account cannot import gradekit's exchange classes with {python} ({why})",
                    "make deploy (a venv on the system's Python, readable by every account)",
                )
            )
    elif not reachable(python) or not os.access(python.resolve(), os.X_OK):
        out.append(Problem(f"{python} is not reachable by other accounts", "make deploy"))
    return out


def _digests(paths) -> dict[tuple[int, str], Path]:
    out = {}
    for path in paths:
        try:
            data = path.read_bytes()
        except OSError:
            continue
        if data.strip():
            out[(len(data), hashlib.sha256(data).hexdigest())] = path
    return out


def copied_problems(course, python: Path | None) -> list[Problem]:
    """A copy of the course's private files (the reference, the graders) installed with the students'
    Python, where every account reads it: a course packaged into the deployment by mistake."""
    if python is None or not python.exists():
        return []
    private = _digests(p for d in ("solutions", "autograder") for p in (course.root / d).rglob("*.py"))
    if not private:
        return []
    probe = subprocess.run(
        [str(python), "-c", "import site, sys; print('\\n'.join(site.getsitepackages() + sys.path))"],
        capture_output=True,
        text=True,
    )
    roots = {Path(p) for p in probe.stdout.splitlines() if p and "site-packages" in p and Path(p).is_dir()}
    sizes = {size for size, _ in private}
    for root in sorted(roots):
        for dirname, _, files in os.walk(root):
            for name in files:
                if not name.endswith(".py"):
                    continue
                path = Path(dirname) / name
                try:
                    size = path.stat().st_size
                except OSError:
                    continue
                if size in sizes:
                    found = private.get((size, hashlib.sha256(path.read_bytes()).hexdigest()))
                    if found is not None and others_can(path, stat.S_IROTH):
                        mine = found.relative_to(course.root)
                        return [
                            Problem(
                                f"a copy of the course's {mine} is installed with the students' Python, readable "
                                f"by every account: {path}",
                                f"make deploy (it installs gradekit alone), or remove the course's package from {root}",
                            )
                        ]
    return []


HOME_FILES = 20_000  # files looked at per home, at most


def home_problems(course) -> list[Problem]:
    """A roster account's home another account can list or enter, or a file in it another can read."""
    out = []
    for account in accounts(course):
        try:
            home = Path(pwd.getpwnam(account).pw_dir)
            st = os.stat(home)
        except (KeyError, OSError):
            continue
        if not reachable(home):
            continue
        fix = f"chmod 0700 {home}   # and the servers' umask 077: gradekit hub-config writes both"
        if others_can(home, stat.S_IROTH | stat.S_IXOTH) or st.st_mode & 0o050 and _group_has_others(st, account):
            out.append(Problem(f"the home {home} of {account} can be entered by other accounts", fix))
        readable = _readable_files(home) if others_can(home, stat.S_IXOTH) else []
        if readable:
            out.append(
                Problem(
                    f"{len(readable)} file(s) in {home} can be read by other accounts, e.g. {readable[0]}",
                    f"chmod -R go-rwx {home}   # and chmod 0700 {home}",
                )
            )
    return out


def _group_has_others(st: os.stat_result, account: str) -> bool:
    """Whether a group other than the account's own private one owns the home (others are in it)."""
    import grp

    try:
        group = grp.getgrgid(st.st_gid)
    except KeyError:
        return False
    return bool(set(group.gr_mem) - {account}) or group.gr_name != account


def _readable_files(home: Path) -> list[Path]:
    found: list[Path] = []
    seen = 0
    for dirname, dirs, files in os.walk(home):
        here = Path(dirname)
        dirs[:] = [d for d in dirs if others_can(here / d, stat.S_IXOTH)]  # what others cannot enter is private
        for name in files:
            seen += 1
            path = here / name
            if not os.path.islink(path) and others_can(path, stat.S_IROTH):
                found.append(path)
        if seen > HOME_FILES:
            break
    return sorted(found, key=lambda p: (any(part.startswith(".") for part in p.relative_to(home).parts), str(p)))
