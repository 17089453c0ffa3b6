"""A throwaway PostgreSQL server for the shared-gradebook tests.

Started from Debian's ``postgresql`` package (installed by ``make test``'s
set-up) in a temporary directory, listening on 127.0.0.1 and a Unix socket,
with trust authentication, and stopped when the test session ends. As root the
server runs as the ``postgres`` user, since initdb refuses to run as root.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import ports


def pg_bindir() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    return Path(found[-1]).parent if found else None


def _free_port() -> int:
    return ports.free_port()


class PostgresServer:
    def __init__(self) -> None:
        bindir = pg_bindir()
        if bindir is None:
            raise RuntimeError("PostgreSQL server binaries not found (apt-get install postgresql)")
        self.bindir = bindir
        self.base = Path(tempfile.mkdtemp(prefix="gradekit-pg-"))
        self.data = self.base / "data"
        self.sock = self.base / "sock"
        self.sock.mkdir()
        self.port = _free_port()
        self.user = None
        if os.geteuid() == 0:
            self.user = "postgres"
            pw = pwd.getpwnam("postgres")
            os.chown(self.base, pw.pw_uid, pw.pw_gid)
            os.chown(self.sock, pw.pw_uid, pw.pw_gid)

    def _run(self, *args: str, **kwargs) -> subprocess.CompletedProcess:
        cmd = list(args)
        if self.user:
            cmd = ["runuser", "-u", self.user, "--"] + cmd
        return subprocess.run(cmd, check=True, capture_output=True, text=True, **kwargs)

    def start(self) -> "PostgresServer":
        self._run(str(self.bindir / "initdb"), "-D", str(self.data), "-U", "postgres",
                  "--auth=trust", "--no-sync", "-E", "UTF8")
        opts = f"-h 127.0.0.1 -p {self.port} -k {self.sock} -F"
        self._run(str(self.bindir / "pg_ctl"), "-D", str(self.data), "-o", opts,
                  "-l", str(self.base / "log"), "-w", "start")
        return self

    def createdb(self, name: str) -> str:
        self._run(str(self.bindir / "createdb"), "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres", name)
        return f"postgresql://postgres@127.0.0.1:{self.port}/{name}"

    def stop(self) -> None:
        try:
            self._run(str(self.bindir / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "stop")
        except subprocess.CalledProcessError:
            pass
        time.sleep(0.1)
        shutil.rmtree(self.base, ignore_errors=True)
