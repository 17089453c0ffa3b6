"""docs/admin/one-account.md, run as written: every command in its order, as root, its output compared.

As tests/test_docs.py runs the tutorial's: each ``console`` block's commands (``$ ...``) one by one,
what they print matched with the lines shown (``...``: any lines, or any text within a line). What
the machine cannot share with other test runs is put in place, the same way in the commands and in
what they print, and nothing else:

    /srv/courses, /srv/jupyterhub, /srv/jupyterhub-homes   folders of this run
    /opt/gradekit                                         the student deployment (make deploy)
    jovyan                                                an account of this run's (gkadmjovyan)
    the ports                                             free ones
    https://hub.example.edu/                              the hub itself (no TLS proxy in front here)
    2026-12-18 23:59:00 UTC (the due date)                30 days from now: always ahead
and hub-config is given these (--port, --hub-port, ..., --account, --homes, --deploy) where the page uses
its defaults.

The environments the page's step 1 builds are the suite's own (``.venv``'s gradekit first on PATH).
The hub, which runs until it is stopped, is started in the background and its log read. Then, as the
page's last step says: a student logs in with the password hub-config made for her and hands in, and
is graded within seconds; the instructor opens the grading page; a student does not.
"""

from __future__ import annotations

import csv
import os
import re
import shutil
import subprocess
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import hubs
import pytest
import unix_users
from conftest import VENV_BIN
from test_docs import blocks, matches

PAGE = Path(__file__).resolve().parents[2] / "docs" / "admin" / "one-account.md"
ACCOUNT = "gkadmjovyan"
STARTS_HUB = "jupyterhub -f jupyterhub_config.py"

pytestmark = [pytest.mark.slow, pytest.mark.e2e]


def test_the_one_account_page_runs_as_written(tmp_path):
    reason = unix_users.unavailable() or hubs.unavailable()
    if reason:
        pytest.skip(reason)
    base = Path("/tmp") / f"gk-admin-{os.getpid()}"
    shutil.rmtree(base, ignore_errors=True)
    base.mkdir(mode=0o755)
    ports = hubs.free_ports(6)
    places = [("/srv/jupyterhub-homes", str(base / "homes")), ("/srv/jupyterhub", str(base / "jupyterhub")),
              ("/srv/courses", str(base / "courses")), ("/opt/gradekit", str(unix_users.DEPLOY)),
              ("jovyan", ACCOUNT), ("127.0.0.1:8000", f"127.0.0.1:{ports[0]}"),
              ("https://hub.example.edu/", f"http://127.0.0.1:{ports[0]}/"),
              ("2026-12-18 23:59:00 UTC", f"{datetime.now(timezone.utc) + timedelta(days=30):%Y-%m-%d %H:%M:00} UTC")]

    def here(text: str) -> str:
        for docs, ours in places:
            text = text.replace(docs, ours)
        return text

    env = {k: v for k, v in os.environ.items() if not k.startswith(("GRADEKIT_", "VIRTUAL_ENV", "PYTHON"))}
    env.update(PATH=f"{VENV_BIN}{os.pathsep}/usr/sbin:/usr/bin:/bin", COLUMNS="100", HOME="/root")
    pairs = blocks(PAGE)
    assert len(pairs) >= 8 and any(STARTS_HUB in c for c, _ in pairs)
    cwd, hub = base, None
    subprocess.run(["userdel", ACCOUNT], capture_output=True)
    try:
        for command, shown in pairs:
            command, shown = here(command), here(shown)
            if "hub-config" in command:       # the ports are this run's: the page's defaults are others'
                names = ("--port", "--hub-port", "--proxy-api-port", "--grade-port", "--report-port",
                         "--exchange-port")
                mine = [f"{n} {p}" for n, p in zip(names, ports, strict=True)]   # and the account and homes
                mine += [f"--account {ACCOUNT}", f"--homes {base / 'homes'}", f"--deploy {unix_users.DEPLOY}"]
                command = command.replace(" --write ", " --write " + " ".join(mine) + " ")
            if STARTS_HUB in command:
                folder = Path(command.split("&&")[0].split()[1])
                hub = hubs.Hub(base / "hub-log", folder / "jupyterhub_config.py",
                               env={"PATH": f"{unix_users.STUDENT_BIN}:/usr/bin:/bin", "HOME": "/root"})
                started = time.monotonic()
                hub.start()
                continue
            if command.startswith("cd "):
                cwd = Path(command[3:])
                continue
            proc = subprocess.run(["bash", "-c", command], cwd=cwd, env=env, capture_output=True, text=True,
                                  timeout=600)
            assert proc.returncode == 0, (command, proc.stdout, proc.stderr)
            printed = proc.stdout + proc.stderr
            assert matches(shown, printed), f"$ {command}\n--- the page shows:\n{shown}--- it printed:\n{printed}"
        assert hub is not None
        serving = hub.wait_for(r"serving week1 of physics101", timeout=60)
        print({"hub_start_to_serving_s": round(time.monotonic() - started, 1)})
        assert "Service gradekit exited" not in hub.text(), hub.text()[-3000:]
        _a_student_is_graded_and_the_instructor_opens_the_pages(hub, base, ports[0], env)
        assert serving
    finally:
        if hub is not None:
            hub.close()
        subprocess.run(["userdel", ACCOUNT], capture_output=True)
        shutil.rmtree(base, ignore_errors=True)


def _a_student_is_graded_and_the_instructor_opens_the_pages(hub, base: Path, port: int, env: dict) -> None:
    """Step 7: alice logs in with her password and hands in her answer key; graded within seconds, her
    feedback hers to read; prof opens the grading page and the class report, alice does not."""
    import io
    import json
    import zipfile

    import hub_kernel
    import requests

    url = f"http://127.0.0.1:{port}"
    with open(base / "jupyterhub" / "new-passwords.csv", newline="") as fh:
        passwords = {row["name"]: row["password"] for row in csv.DictReader(fh)}
    alice = hub_kernel.login(url, "alice", passwords["alice"])
    token = hub_kernel.token(alice, url, "alice")
    exchange = f"{url}/services/gradekit-exchange/api/physics101/"
    auth = {"Authorization": f"token {token}"}
    release = requests.get(exchange + "release/week1", headers=auth, timeout=60)
    assert release.ok and zipfile.ZipFile(io.BytesIO(release.content)).namelist(), release.text
    course = base / "courses" / "physics101"
    subprocess.run([str(VENV_BIN / "gradekit"), "answer-key", "week1", "--student", "alice", "--out",
                    str(base / "key")], cwd=course, env=env, check=True, capture_output=True)
    body = io.BytesIO()
    with zipfile.ZipFile(body, "w") as zf:
        zf.write(base / "key" / "week1.ipynb", "week1.ipynb")
    sent = time.monotonic()
    handin = requests.post(exchange + "handins/week1", data=body.getvalue(), timeout=60,
                           headers={**auth, "X-Gradekit-Key": "alice-docs-test-1"})
    assert handin.status_code == 201, handin.text
    while True:
        pages = requests.get(exchange + "feedback/week1", headers=auth, timeout=60).json()["feedback"]
        if pages:
            break
        assert time.monotonic() - sent < 60, hub.text()[-3000:]
        time.sleep(0.2)
    print(json.dumps({"handin_to_feedback_s": round(time.monotonic() - sent, 2)}))
    # the page's due date ahead: her answer to Question 1 (a value) is neither right nor wrong on her page yet
    (page,) = requests.get(exchange + "feedback/week1", headers=auth, timeout=60).json()["feedback"]
    said = " ".join(re.sub(r"<[^>]+>", " ", page["html"]).split())
    assert re.search(r"Checked after the due date \([^)]*\): Question 1 \(1 point\)", said), said[:3000]
    hub.wait_for(r"graded alice week1 attempt 1: (\d+)/\1 \(it counts\)")
    prof = hub_kernel.login(url, "prof", passwords["prof"])
    for service in ("gradekit-grade", "gradekit-report"):
        assert prof.get(f"{url}/services/{service}/", timeout=60).ok, service
        assert alice.get(f"{url}/services/{service}/", timeout=60).status_code == 403, service
