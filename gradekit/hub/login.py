"""A login for a hub whose students have no Unix account: each person's own password, kept hashed.

On the one-account shape (gradekit.hub.spawner) nobody but the shared account is a Unix account, so
PAM cannot log the students in. Each person the hub allows (the roster's accounts and the
instructors) gets a password of their own instead, made at random by ``gradekit hub-config
--write``, which hands the new ones to the admin once (``new-passwords.csv``, 0600) and keeps only
their scrypt hashes (``state/passwords.json``, 0600, read at each login):

    c.JupyterHub.authenticator_class = "gradekit.hub.login.PasswordAuthenticator"
    c.PasswordAuthenticator.passwords_file = "/srv/jupyterhub/state/passwords.json"

A person with no entry cannot log in; a new password for someone is their entry removed and
``hub-config --write`` run again. An LMS's login (LTI) or the institution's (OAuth) replaces this.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import secrets
from pathlib import Path

from jupyterhub.auth import Authenticator
from traitlets import Unicode

SCRYPT = {"n": 1 << 14, "r": 8, "p": 1}  # about 50 ms a login on one core
WORDS = 4  # a new password: 4 groups of 4 letters and digits, e.g. "k7mq-2xdr-9pfa-w3nt"


def hashed(password: str, salt: bytes | None = None) -> str:
    """``scrypt$<salt>$<hash>`` (base64) of ``password``."""
    salt = salt if salt is not None else secrets.token_bytes(16)
    digest = hashlib.scrypt(password.encode(), salt=salt, dklen=32, **SCRYPT)
    return "scrypt$" + base64.b64encode(salt).decode() + "$" + base64.b64encode(digest).decode()


def matches(password: str, stored: str) -> bool:
    try:
        kind, salt, _digest = stored.split("$")
        if kind != "scrypt":
            return False
        return hmac.compare_digest(hashed(password, base64.b64decode(salt)), stored)
    except ValueError:
        return False


def new_password() -> str:
    alphabet = "abcdefghjkmnpqrstuvwxyz23456789"  # no 0/o, 1/l/i to misread
    return "-".join("".join(secrets.choice(alphabet) for _ in range(4)) for _ in range(WORDS))


def read(path: Path) -> dict[str, str]:
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}


def give(path: Path, names: list[str]) -> dict[str, str]:
    """A new password for each of ``names`` without one in ``path``: the new ones (name -> password);
    their hashes are added to ``path`` (0600)."""
    kept = read(path)
    fresh = {name: new_password() for name in names if name not in kept}
    if fresh:
        kept.update({name: hashed(password) for name, password in fresh.items()})
        tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as out:
            json.dump(dict(sorted(kept.items())), out, indent=1)
        os.replace(tmp, path)
    return fresh


class PasswordAuthenticator(Authenticator):
    """Each person's own password, checked against its hash (see the module's docstring)."""

    passwords_file = Unicode("", help="The hashed passwords (gradekit hub-config --write makes it)").tag(config=True)

    async def authenticate(self, handler, data):
        name = self.normalize_username(str((data or {}).get("username", "")))
        stored = read(Path(self.passwords_file)).get(name)
        if stored and matches(str((data or {}).get("password", "")), stored):
            return name
        self.log.warning("gradekit: a wrong password, or no password, for %r", name)
        return None
