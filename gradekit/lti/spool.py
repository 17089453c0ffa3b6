"""What a launch leaves for the course: one JSON file per launch, written by the hub's login.

The hub's process writes them (it may have no driver for the course's database: PostgreSQL's is not
in the students' venv), gradekit's LTI service and commands read them into the course's tables
(:func:`ingest`) and delete them. Standard library only: the hub imports this.

    .gradekit/lti/launches/<time>-<random>.json     a launch's claims and the username it gave
    .gradekit/lti/requests/<id>.json                a deep-linking request, read by the picker
"""

from __future__ import annotations

import json
import os
import secrets
import time
from pathlib import Path

LAUNCHES = "launches"
REQUESTS = "requests"
REQUEST_AGE = 3600.0  # seconds a deep-linking request stays usable by its picker


def _write(folder: Path, name: str, data: dict) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    os.chmod(folder.parent, 0o700)
    tmp = folder / f".{name}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        json.dump(data, fh)
    path = folder / f"{name}.json"
    os.replace(tmp, path)
    return path


def record_launch(lti_folder: Path, claims: dict, username: str) -> Path:
    """A launch, for the course (``lti_folder``: the course's .gradekit/lti)."""
    name = f"{time.time():.6f}-{secrets.token_hex(4)}"
    return _write(lti_folder / LAUNCHES, name, {"claims": claims, "username": username, "received": time.time()})


def record_request(lti_folder: Path, claims: dict, username: str) -> str:
    """A deep-linking request, for the picker; returns its id."""
    rid = secrets.token_urlsafe(18)
    _write(lti_folder / REQUESTS, rid, {"claims": claims, "username": username, "received": time.time()})
    return rid


def read_request(lti_folder: Path, rid: str) -> dict | None:
    """The deep-linking request ``rid`` (None: unknown, malformed id, or older than REQUEST_AGE)."""
    if not rid or not all(c.isalnum() or c in "-_" for c in rid):
        return None
    try:
        data = json.loads((lti_folder / REQUESTS / f"{rid}.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if time.time() - float(data.get("received", 0)) > REQUEST_AGE:
        return None
    return data


def pending(lti_folder: Path) -> list[Path]:
    return sorted((lti_folder / LAUNCHES).glob("*.json"))
