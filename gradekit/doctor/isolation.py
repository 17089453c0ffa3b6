"""Whether the students' servers are kept apart where they all run as one Unix account.

On the hub exchange every student's server may be one account (``jovyan``). In a container each
(DockerSpawner, Kubernetes) or in bubblewrap namespaces each (gradekit.hub.spawner, the shape
``one-account``), a student's code sees their own home, processes and token alone. As local
processes of one account on one machine, nothing is between them: a student's code reads a
classmate's files and, in /proc/<pid>/environ, the classmate's hub token -- and hands in as them.
That shape is named, from the hub's config (its spawner) and from what runs (a server of the
account in this machine's own PID namespace).
"""

from __future__ import annotations

import os
from pathlib import Path

APART = ("docker", "kube", "namespacedspawner")  # spawners that keep each server apart (lowercase names)
SERVER = b"jupyterhub-singleuser"


def _spawner_name(c) -> str:
    value = c.get("JupyterHub", {}).get("spawner_class", "")
    name = getattr(value, "__name__", None) or str(value or "localprocess")
    return str(name)


def problems(course, hub_config: Path | None, account: str | None, load) -> list[tuple[str, str]]:
    """The one-account shape without namespaces, named once, as (what, fix) (``load``: the doctor's config
    loader)."""
    if str(getattr(course.settings, "exchange", "") or "filesystem") != "hub" or not account:
        return []
    spawner = ""
    if hub_config is not None:
        c, _problem = load(hub_config)
        spawner = _spawner_name(c) if c is not None else ""
    shared = shared_servers(account)
    unsafe_config = bool(spawner) and not any(kind in spawner.lower() for kind in APART)
    if not (unsafe_config or shared):
        return []
    seen = f"{len(shared)} server(s) of {account} run in this machine's own PID namespace" if shared else ""
    said = f"the spawner {spawner} runs them as local processes" if unsafe_config else ""
    return [
        (
            f"every student's server runs as the one account {account} on this machine with nothing between them "
            f"({'; '.join(x for x in (said, seen) if x)}): a student's code reads a classmate's files and hub token "
            "(/proc/<pid>/environ), and hands in as them",
            "gradekit hub-config --shape one-account (each server in bubblewrap namespaces of its own), or a "
            "container each: --shape docker or kubernetes (docs/admin/one-account.md)",
        )
    ]


def shared_servers(account: str) -> list[int]:
    """The pids of ``account``'s single-user servers that share this process's PID namespace."""
    import pwd

    try:
        uid = pwd.getpwnam(account).pw_uid
        ours = os.readlink("/proc/self/ns/pid")
    except (KeyError, OSError):
        return []
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if entry.stat().st_uid != uid:
                continue
            argv = (entry / "cmdline").read_bytes().split(b"\0")
            if SERVER in b" ".join(argv) and b"bwrap" not in argv[0] and os.readlink(entry / "ns" / "pid") == ours:
                found.append(int(entry.name))
        except OSError:
            continue
    return found
