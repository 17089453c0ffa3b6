"""The tool's key pair: it signs service-token requests and deep-linking answers; the LMS checks them
against the tool's JWKS.

    .gradekit/lti/keys/<kid>.pem    each private key, 0600, in a 0700 folder
    .gradekit/lti/keys/current      the kid that signs now

``rotate`` makes a new key and signs with it from then on; the JWKS keeps the previous key
(``KEEP`` keys in all) so that what was signed just before, and an LMS that cached the old set,
still check. Older keys are deleted.
"""

from __future__ import annotations

import json
import os
import secrets
import time
from dataclasses import dataclass
from pathlib import Path

from gradekit.lti.platform import folder

KEEP = 2  # keys published at once: the current one and the one before it
BITS = 2048


@dataclass(frozen=True)
class SigningKey:
    kid: str
    pem: str  # PKCS#8 private key


def _dir(course) -> Path:
    return folder(course) / "keys"


def _private_dir(course) -> Path:
    base = _dir(course)
    base.mkdir(parents=True, exist_ok=True)
    os.chmod(base.parent, 0o700)
    os.chmod(base, 0o700)
    return base


def _write_private(path: Path, data: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as fh:
        fh.write(data)


def rotate(course) -> SigningKey:
    """A new key pair, which signs from now on (the first one, when there is none)."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    base = _private_dir(course)
    key = rsa.generate_private_key(public_exponent=65537, key_size=BITS)
    pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()
    kid = f"{time.strftime('%Y%m%d%H%M%S', time.gmtime())}-{secrets.token_hex(4)}"
    _write_private(base / f"{kid}.pem", pem)
    tmp = base / ".current"
    tmp.write_text(kid)
    os.chmod(tmp, 0o600)
    os.replace(tmp, base / "current")
    for old in _kids(course)[:-KEEP]:
        (base / f"{old}.pem").unlink(missing_ok=True)
    return SigningKey(kid, pem)


def _kids(course) -> list[str]:
    return sorted(p.stem for p in _dir(course).glob("*.pem"))


def current(course) -> SigningKey:
    """The key that signs now (made at first use)."""
    base = _dir(course)
    try:
        kid = (base / "current").read_text().strip()
        return SigningKey(kid, (base / f"{kid}.pem").read_text())
    except OSError:
        return rotate(course)


def jwks(course) -> dict:
    """The public keys, as the LMS reads them from the tool's JWKS URL."""
    from jwcrypto import jwk

    current(course)
    keys = []
    for kid in reversed(_kids(course)):
        key = jwk.JWK.from_pem((_dir(course) / f"{kid}.pem").read_bytes())
        public = json.loads(key.export_public())
        public.update({"kid": kid, "alg": "RS256", "use": "sig"})
        keys.append(public)
    return {"keys": keys}
