"""``make private-homes`` (which ``make deploy`` runs): after it, a plain ``useradd -m`` -- no option, as a
newcomer creates the class's accounts -- makes a home its account's alone.

It edits /etc/login.defs (HOME_MODE 0700): the test puts back the file it found, byte for byte, and
removes its account. Root only; it claims its account's name and /etc/login.defs (tests/unix_users.claim),
so that no other run edits the file or makes the account meanwhile.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
import unix_users

REPO = Path(__file__).resolve().parents[2]
LOGIN_DEFS = Path("/etc/login.defs")
NAME = "gkhomemode"


@pytest.fixture
def login_defs():
    if os.geteuid() != 0 or not shutil.which("useradd") or not LOGIN_DEFS.is_file():
        pytest.skip("needs root, useradd and /etc/login.defs")
    unix_users.claim([NAME, "login.defs"])
    kept = LOGIN_DEFS.read_bytes()
    mode = LOGIN_DEFS.stat().st_mode
    unix_users.remove([NAME], keep_claim=True)   # one an earlier run left
    try:
        yield kept
    finally:
        unix_users.remove([NAME])
        LOGIN_DEFS.write_bytes(kept)
        os.chmod(LOGIN_DEFS, mode & 0o7777)
        unix_users.release(["login.defs"])


def _make(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["make", "-s", *args], cwd=REPO, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("before", ["#HOME_MODE\t0022\n", "HOME_MODE 0755\n", ""],
                         ids=["commented out", "0755", "absent"])
def test_after_private_homes_a_plain_useradd_makes_a_home_of_its_own(login_defs, before):
    """Debian ships HOME_MODE commented out (homes 0755); a machine may set it 0755, or not name it."""
    lines = [line for line in login_defs.decode().splitlines(keepends=True) if not line.lstrip("#").startswith("HOME_MODE")]
    LOGIN_DEFS.write_text("".join(lines) + before)
    made = _make("private-homes")
    assert made.returncode == 0, made.stdout + made.stderr
    assert made.stdout.strip() == "deploy: HOME_MODE 0700 in /etc/login.defs (new homes are their account's alone)"
    assert _settings() == ["HOME_MODE 0700"]
    subprocess.run(["useradd", "-m", NAME], check=True, capture_output=True)   # no -K: as a newcomer types it
    home = Path("/home") / NAME
    assert home.stat().st_mode & 0o777 == 0o700, oct(home.stat().st_mode)
    again = _make("private-homes")                                             # already so: nothing said, nothing changed
    assert again.returncode == 0 and again.stdout == "", again.stdout
    assert _settings() == ["HOME_MODE 0700"]


def _settings() -> list[str]:
    """The HOME_MODE lines of /etc/login.defs that set it (not its comments)."""
    return [line for line in LOGIN_DEFS.read_text().splitlines() if line.startswith("HOME_MODE")]
