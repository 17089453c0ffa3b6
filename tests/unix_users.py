"""Real Unix accounts, for the tests that must see the file modes as a student sees them.

CI runs as root, and root ignores file modes: a test of who may read what runs
the student's side as accounts of its own (``useradd``), through ``runuser``,
with the student deployment ``make deploy`` builds (gradekit installed as a
package on Debian's Python, outside the course: a student cannot even enter
the course directory, nor root's home where the project's own venv lives).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

DEPLOY = Path(os.environ.get("GRADEKIT_DEPLOY", "/opt/gradekit"))
STUDENT_BIN = DEPLOY / "venv" / "bin"


def unavailable() -> str | None:
    """Why these tests cannot run here, or None."""
    if os.geteuid() != 0:
        return "needs root, to create Unix accounts"
    if not shutil.which("useradd") or not shutil.which("runuser"):
        return "needs useradd and runuser"
    if not (STUDENT_BIN / "nbgrader").exists():
        return f"needs the student deployment in {DEPLOY} (make deploy)"
    return None


@dataclass
class Account:
    name: str

    @property
    def home(self) -> Path:
        return Path("/home") / self.name

    def run(self, *argv: str, cwd: Path | None = None, check: bool = True, env: dict | None = None,
            timeout: float = 300) -> subprocess.CompletedProcess:
        """``argv`` as this account, in a clean environment of its own (no root variables)."""
        base = {"HOME": str(self.home), "USER": self.name, "LOGNAME": self.name, "LANG": "C.UTF-8",
                "PATH": f"{STUDENT_BIN}:/usr/bin:/bin"}
        proc = subprocess.run(["runuser", "-u", self.name, "--", "env", "-i",
                               *(f"{k}={v}" for k, v in {**base, **(env or {})}.items()), *argv],
                              cwd=cwd or self.home, capture_output=True, text=True, timeout=timeout)
        if check and proc.returncode != 0:
            raise AssertionError(f"{self.name}: {argv} failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
        return proc

    def nbgrader(self, *args: str, check: bool = True) -> subprocess.CompletedProcess:
        return self.run(str(STUDENT_BIN / "nbgrader"), *args, check=check)

    def may(self, *argv: str) -> bool:
        """Whether ``argv`` succeeds as this account (a shell command line: ``sh -c``)."""
        return self.run("sh", "-c", " ".join(argv), check=False).returncode == 0

    def write_config(self, text: str) -> None:
        folder = self.home / ".jupyter"
        self.run("mkdir", "-p", str(folder))
        (folder / "nbgrader_config.py").write_text(text)
        shutil.chown(folder / "nbgrader_config.py", self.name, self.name)


def create(names: list[str], password: str | None = None) -> list[Account]:
    """Fresh accounts (any left from an earlier run are removed first), homes 0700."""
    accounts = []
    for name in names:
        remove([name])
        subprocess.run(["useradd", "-m", "-K", "HOME_MODE=0700", "-s", "/bin/bash", name], check=True,
                       capture_output=True)
        if password is not None:
            subprocess.run(["chpasswd"], input=f"{name}:{password}\n", text=True, check=True, capture_output=True)
        accounts.append(Account(name))
    return accounts


def remove(names: list[str]) -> None:
    for name in names:
        subprocess.run(["pkill", "-KILL", "-u", name], capture_output=True)
        subprocess.run(["userdel", "-r", "-f", name], capture_output=True)
