"""Real Unix accounts, for the tests that must see the file modes as a student sees them.

CI runs as root, and root ignores file modes: a test of who may read what runs
the student's side as accounts of its own (``useradd``), through ``runuser``,
with the student deployment ``make deploy`` builds (gradekit installed as a
package on Debian's Python, outside the course: a student cannot even enter
the course directory, nor root's home where the project's own venv lives).

An account's name is the test's (its assertions read it), so two runs on one machine -- two workers, two
engineers -- would make and delete the same account under each other: a test claims each name first
(:func:`claim`, a lock file the kernel lets go when the process ends), and waits while another run holds it.
The names of one run are all different, so that its workers never wait on each other.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

DEPLOY = Path(os.environ.get("GRADEKIT_DEPLOY", "/opt/gradekit"))
STUDENT_BIN = DEPLOY / "venv" / "bin"
CLAIMS = Path("/run/lock/gradekit-test-accounts")   # one lock file per account or group name, machine-wide
PATIENCE = 900.0  # seconds to wait for a name another run holds (a hub journey holds its accounts minutes)

_HELD: dict[str, int] = {}  # name -> the descriptor of its locked file


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


def claim(names: list[str]) -> None:
    """Hold these account (or group) names for this process until :func:`release`: wait while another run
    holds one (in sorted order, so that two runs claiming the same names never wait on each other)."""
    CLAIMS.mkdir(mode=0o700, parents=True, exist_ok=True)
    for name in sorted(set(names) - set(_HELD)):
        fd = os.open(CLAIMS / f"{name}.lock", os.O_CREAT | os.O_RDWR, 0o600)
        deadline = time.monotonic() + PATIENCE
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    os.close(fd)
                    raise AssertionError(f"the account {name} has been another test run's for {PATIENCE:g} s") from None
                time.sleep(0.5)
        _HELD[name] = fd


def release(names: list[str]) -> None:
    """Let these names go (the accounts or groups removed first)."""
    for name in names:
        fd = _HELD.pop(name, None)
        if fd is not None:
            os.close(fd)


def create(names: list[str], password: str | None = None) -> list[Account]:
    """Fresh accounts (any left from an earlier run are removed first), homes 0700; the names claimed."""
    claim(names)
    accounts = []
    for name in names:
        _remove(name)
        subprocess.run(["useradd", "-m", "-K", "HOME_MODE=0700", "-s", "/bin/bash", name], check=True,
                       capture_output=True)
        if password is not None:
            subprocess.run(["chpasswd"], input=f"{name}:{password}\n", text=True, check=True, capture_output=True)
        accounts.append(Account(name))
    return accounts


def remove(names: list[str], keep_claim: bool = False) -> None:
    """Remove these accounts (their processes killed: the accounts are this run's), and let their names go
    (unless ``keep_claim``)."""
    for name in names:
        _remove(name)
    if not keep_claim:
        release(names)


def _remove(name: str) -> None:
    # every process of the account, by its owner, never by a process's name: the account is this run's alone
    # while it holds the claim (another run waits for it), so no one else's process is among them
    subprocess.run(["pkill", "-KILL", "-u", name], capture_output=True)
    subprocess.run(["userdel", "-r", "-f", name], capture_output=True)
